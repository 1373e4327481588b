#!/bin/sh
# For the loop's HTML page (tests/integration/test_html.cpp): iteration 1 proposes the naive
# softmax and a cheat whose family is markup; iteration 2 the fast softmax, another family, an
# accepted improvement with a diff against the naive one; later iterations: nothing.
# $1: the repository.
case "$KJUDGE_ITERATION" in
  1) cp "$1/examples/softmax/naive.cpp" "$KJUDGE_OUTPUT_DIR/naive.cpp"
     sed 's|family=nonneg_shortcut|family=<script>alert(1)</script>|' "$1/tests/loop/cheat_softmax_nonneg.cpp" \
       > "$KJUDGE_OUTPUT_DIR/cheat.cpp" ;;
  2) cp "$1/examples/softmax/fast.cpp" "$KJUDGE_OUTPUT_DIR/fast.cpp" ;;
esac
exit 0
