#!/bin/sh
# Iteration 1: an honest candidate and a cheating one; later iterations: nothing.
# $1: the honest source, $2: the cheating source.
test -f "$KJUDGE_CONTEXT" || exit 9
test -f "$KJUDGE_BRIEF" || exit 9
if [ "$KJUDGE_ITERATION" = 1 ]; then
  cp "$1" "$KJUDGE_OUTPUT_DIR/honest.cpp"
  cp "$2" "$KJUDGE_OUTPUT_DIR/cheat.cpp"
fi
