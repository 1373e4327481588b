#!/bin/sh
# A kjudge loop proposer that hands the iteration's brief to an agent CLI (docs/proposer.md).
#
#   export KJUDGE_AGENT='claude -p --permission-mode acceptEdits'   # any CLI taking a prompt argument
#   kjudge loop softmax --proposer 'sh examples/proposers/agent.sh' --hours 8
#
# The loop sets KJUDGE_BRIEF (Markdown), KJUDGE_CONTEXT (the same as JSON) and KJUDGE_OUTPUT_DIR
# (empty; every file written there is judged). The agent's output goes to the iteration's
# proposer.log; a non-zero exit or the --proposer-timeout discards what it wrote.
set -eu
: "${KJUDGE_AGENT:?set KJUDGE_AGENT to an agent command line that takes a prompt as its last argument}"
: "${KJUDGE_BRIEF:?run me through kjudge loop}"
: "${KJUDGE_OUTPUT_DIR:?run me through kjudge loop}"

prompt="You are the proposer of a kjudge search loop (protocol $KJUDGE_PROTOCOL, iteration $KJUDGE_ITERATION).
Read the brief in $KJUDGE_BRIEF (the same content as JSON: $KJUDGE_CONTEXT). Follow its Request.
Write each new candidate kernel as one complete source file into $KJUDGE_OUTPUT_DIR and nowhere else.
Each file includes \"kjudge/candidate.h\", exports kj_run, and exports kj_info returning
\"family=NAME;notes=...\" where NAME names the algorithm family (a new name for a structurally
different algorithm). The judge checks hidden shapes and input distributions: do not special-case
the public cases. Do not run the judge yourself; the loop judges every file you write."

# shellcheck disable=SC2086  # KJUDGE_AGENT is a command line on purpose
exec $KJUDGE_AGENT "$prompt"
