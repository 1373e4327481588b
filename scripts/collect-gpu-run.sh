#!/usr/bin/env bash
# Files one scripts/gpu-check.sh call's $OUT (as the device tool brought it back) under
# bench/results/h200/DIR with a run suffix; DIR names the date and the GPU, RUN the call (its UTC
# start time, say), so that names sort in the order the runs were made:
#   scripts/collect-gpu-run.sh /work/.device/N 2026-12-07-h100 t0417
# summary.txt -> gpu-check-t0417-summary.txt, env.txt -> env-t0417.txt, kb-validate-level1.txt ->
# kb-validate-level1-t0417.txt (bench/kb-validation-summary.py and KJ_KB_NEXT read these, after
# the archives under bench/results/h200/archive/), the red team's log and the GPU tests' JSON;
# from logs.tar.gz the request traces (gzipped) and the per-problem results. A tagged run
# (KJ_KB_TAG, a diagnostic) keeps its tag; rename it with --tag-as kb-timing-worker (say) so that
# the summary, which reads kb-validate-level*, skips it. bench/results/README.md says how the
# folders of a date are packed into its archive.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 DEVICE_OUT_DIR DIR RUN [--tag-as PREFIX]" >&2; exit 2; }
src=$1 dir=$2 run=$3
tag_as=${5:-}
[ "${4:-}" = "--tag-as" ] || [ -z "${4:-}" ] || { echo "$0: unknown option ${4}" >&2; exit 2; }
cd "$(dirname "$0")/.."
dst=bench/results/h200/$dir
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
cp "$src/summary.txt" "$dst/gpu-check-$run-summary.txt"
[ -f "$src/env.txt" ] && cp "$src/env.txt" "$dst/env-$run.txt"
[ -f "$src/gpu-tests.json" ] && cp "$src/gpu-tests.json" "$dst/gpu-tests-$run.json"
[ -f "$src/redteam-cuda.txt" ] && cp "$src/redteam-cuda.txt" "$dst/redteam-cuda-$run.txt"
[ -f "$src/torch-table.md" ] && cp "$src/torch-table.md" "$dst/torch-table-$run.md"
[ -f "$src/oracle-bench.txt" ] && cp "$src/oracle-bench.txt" "$dst/oracle-bench-$run.txt"
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
    name="${tag_as:-kb-diagnostic}-$tag-$lvl-$run.txt"
  else
    name="$kind-$lvl${tag:+-$tag}-$run.txt"
  fi
  cp "$f" "$dst/$name"
done
if [ -f "$src/logs.tar.gz" ]; then
  tmp=$(mktemp -d)
  tar xzf "$src/logs.tar.gz" -C "$tmp"
  for t in "$tmp"/kb-requests-*.txt; do
    b=$(basename "$t" .txt)
    gzip -c "$t" >"$dst/$b-$run.txt.gz"
  done
  for d in "$tmp"/kb-results-*/; do
    b=$(basename "$d")                            # kb-results-level1[-tag]
    lvl=${b#kb-results-}; lvl=${lvl%%-*}          # level1
    rest=${b#kb-results-"$lvl"}; rest=${rest#-}   # tag
    # Level 1's results are kb-results-RUN (the name the archived ones have).
    name=kb-results$( [ "$lvl" = level1 ] || echo "-$lvl")${rest:+-$rest}-$run
    rm -rf "${dst:?}/$name"
    cp -r "$d" "$dst/$name"
  done
  rm -rf "$tmp"
fi
ls "$dst" | sed "s|^|$dst/|" | grep -- "-$run" || true
