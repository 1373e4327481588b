#!/usr/bin/env bash
# Files one scripts/gpu-check.sh call's $OUT (as the device tool brought it back) under
# bench/results/h200/SESSION with a call suffix, the way the committed sessions are laid out:
#   scripts/collect-gpu-run.sh /work/.device/N session8 call1
# summary.txt -> gpu-check-call1-summary.txt, env.txt -> env-call1.txt, kb-validate-level1.txt ->
# kb-validate-level1-call1.txt (bench/kb-validation-summary.py and KJ_KB_NEXT read these), the
# red team's log and the GPU tests' JSON; from logs.tar.gz the request traces (gzipped) and the
# per-problem results. A tagged run (KJ_KB_TAG, a diagnostic) keeps its tag; rename it with
# --tag-as kb-timing-worker (say) so that the summary, which globs kb-validate-level*, skips it.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 DEVICE_OUT_DIR SESSION CALL [--tag-as PREFIX]" >&2; exit 2; }
src=$1 session=$2 call=$3
tag_as=${5:-}
[ "${4:-}" = "--tag-as" ] || [ -z "${4:-}" ] || { echo "$0: unknown option ${4}" >&2; exit 2; }
cd "$(dirname "$0")/.."
dst=bench/results/h200/$session
mkdir -p "$dst"
# Over 8 files, gpu-check.sh packed all but four into more.tar.gz (the device tool's limit): the
# call's files are read from a copy with it unpacked.
if [ -f "$src/more.tar.gz" ]; then
  merged=$(mktemp -d)
  trap 'rm -rf "$merged"' EXIT
  cp -r "$src"/. "$merged/"
  tar -xzf "$src/more.tar.gz" -C "$merged"
  src=$merged
fi
[ -f "$src/summary.txt" ] || { echo "$0: $src has no summary.txt (not a gpu-check output)" >&2; exit 2; }
cp "$src/summary.txt" "$dst/gpu-check-$call-summary.txt"
[ -f "$src/env.txt" ] && cp "$src/env.txt" "$dst/env-$call.txt"
[ -f "$src/gpu-tests.json" ] && cp "$src/gpu-tests.json" "$dst/gpu-tests-$call.json"
[ -f "$src/redteam-cuda.txt" ] && cp "$src/redteam-cuda.txt" "$dst/redteam-cuda-$call.txt"
[ -f "$src/torch-table.md" ] && cp "$src/torch-table.md" "$dst/torch-table-$call.md"
[ -f "$src/oracle-bench.txt" ] && cp "$src/oracle-bench.txt" "$dst/oracle-bench-$call.txt"
# kb-validate-level1.txt / kb-validate-level1-TAG.txt (and kb-import-...).
shopt -s nullglob
for f in "$src"/kb-validate-level*.txt "$src"/kb-import-level*.txt; do
  base=$(basename "$f" .txt)                      # kb-validate-level1-fresh2
  kind=${base%%-level*}                           # kb-validate
  rest=${base#"$kind"-}                           # level1-fresh2
  lvl=${rest%%-*}                                 # level1
  tag=${rest#"$lvl"}; tag=${tag#-}                # fresh2
  if [ -n "$tag" ] && [ "$kind" = kb-validate ]; then
    # A diagnostic run: never under the kb-validate-level* name the summary reads.
    name="${tag_as:-kb-diagnostic}-$tag-$lvl-$call.txt"
  else
    name="$kind-$lvl${tag:+-$tag}-$call.txt"
  fi
  cp "$f" "$dst/$name"
done
if [ -f "$src/logs.tar.gz" ]; then
  tmp=$(mktemp -d)
  tar xzf "$src/logs.tar.gz" -C "$tmp"
  for t in "$tmp"/kb-requests-*.txt; do
    b=$(basename "$t" .txt)
    gzip -c "$t" >"$dst/$b-$call.txt.gz"
  done
  for d in "$tmp"/kb-results-*/; do
    b=$(basename "$d")                            # kb-results-level1[-tag]
    lvl=${b#kb-results-}; lvl=${lvl%%-*}          # level1
    rest=${b#kb-results-"$lvl"}; rest=${rest#-}   # tag
    # Level 1's results keep the earlier sessions' name (kb-results-callN).
    name=kb-results$( [ "$lvl" = level1 ] || echo "-$lvl")${rest:+-$rest}-$call
    rm -rf "${dst:?}/$name"
    cp -r "$d" "$dst/$name"
  done
  rm -rf "$tmp"
fi
ls "$dst" | sed "s|^|$dst/|" | grep -- "-$call" || true
