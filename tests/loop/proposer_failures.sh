#!/bin/sh
# A proposer that fails in every way the loop must record and survive, one per iteration.
case "$KJUDGE_ITERATION" in
  1) printf 'int x;\n' > "$KJUDGE_OUTPUT_DIR/written_before_crash.cpp"
     echo "proposer: giving up"; exit 3 ;;
  2) sleep 60 ;;
  3) echo "some notes" > "$KJUDGE_OUTPUT_DIR/notes.txt"
     : > "$KJUDGE_OUTPUT_DIR/empty.cpp"
     printf '\000\001\002\003' > "$KJUDGE_OUTPUT_DIR/binary.cpp"
     mkdir "$KJUDGE_OUTPUT_DIR/subdir" ;;
  4) printf '#include "kjudge/candidate.h"\nKJ_EXPORT int kj_run(const kj_args* a) { return syntax error; }\nKJ_EXPORT const char* kj_info(void) { return "family=broken;notes=x"; }\n' \
       > "$KJUDGE_OUTPUT_DIR/broken.cpp" ;;
  *) : ;;
esac
