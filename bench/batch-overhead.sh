#!/usr/bin/env bash
# What `kjudge batch` costs per evaluation against a loop of `kjudge eval` calls over the same
# candidates (the suite's fast examples of four problems), repeated: each repetition judges them
# once by the loop and once by one batch, in that order, and bench/batch-figures.py prints both
# walls and the part of each outside the evaluations' own time to verdict.
#
#   bench/batch-overhead.sh [BUILD_DIR] [REPS]      (default: build, 3)
# Environment: KJ_DEVICE (cpu | cuda; default cpu), KJ_BUDGET (timing budget per evaluation, s;
# default 1), KJ_OUT (directory for the runs; default a temporary one, removed at exit).
# The scripts/gpu-check.sh `batch` stage does one repetition of the same on the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-3}
KJ=$BUILD/bin/kjudge
DEVICE=${KJ_DEVICE:-cpu}
ext=cpp
[ "$DEVICE" = cuda ] && ext=cu
OUTDIR=${KJ_OUT:-$(mktemp -d)}
[ -z "${KJ_OUT:-}" ] && trap 'rm -rf "$OUTDIR"' EXIT
flags=(--device "$DEVICE" --torch none --budget "${KJ_BUDGET:-1}" --no-store -q)
problems=(softmax rmsnorm layernorm gelu_bias_residual)
echo "# bench/batch-overhead.sh, $(date -u +%Y-%m-%dT%H:%MZ), $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# kjudge $(git rev-parse --short HEAD), device $DEVICE, ${REPS} repetition(s), flags: ${flags[*]}"
for ((r = 1; r <= REPS; r++)); do
  dir=$OUTDIR/rep$r
  rm -rf "$dir"
  mkdir -p "$dir/suite-run"
  for p in "${problems[@]}"; do
    mkdir -p "$dir/suite-run/$p"
    cp "examples/$p/fast.$ext" "$dir/suite-run/$p/"
  done
  : >"$dir/eval-loop.txt"
  for p in "${problems[@]}"; do
    s0=$(date +%s.%N)
    rc=0
    "$KJ" eval "$p" "$dir/suite-run/$p/fast.$ext" "${flags[@]}" --json "$dir/eval-$p.json" >"$dir/eval-$p.log" 2>&1 || rc=$?
    echo "$p rc=$rc wall_s=$(python3 -c "print(round($(date +%s.%N) - $s0, 3))")" >>"$dir/eval-loop.txt"
  done
  s0=$(date +%s.%N)
  rc=0
  "$KJ" batch "$dir/suite-run" --state "$dir/suite-state" "${flags[@]}" >"$dir/suite-batch.log" 2>&1 || rc=$?
  echo "batch rc=$rc wall_s=$(python3 -c "print(round($(date +%s.%N) - $s0, 3))")" >>"$dir/eval-loop.txt"
  echo "## repetition $r of $REPS (load $(cut -d' ' -f1-3 /proc/loadavg))"
  python3 bench/batch-figures.py overhead "$dir" | tail -n +2
done
# Over the repetitions: per evaluation, the wall time outside the evaluations' own time to verdict.
python3 - "$OUTDIR" "$REPS" <<'PY'
import glob, json, os, statistics, sys
base, reps = sys.argv[1], int(sys.argv[2])
def ttv(paths):
    docs = [json.load(open(p)) for p in paths]
    return sum(d.get("time_to_verdict_s") or 0 for d in docs), len(docs)
loop_out, batch_out = [], []
for r in range(1, reps + 1):
    d = os.path.join(base, f"rep{r}")
    walls = {}
    for line in open(os.path.join(d, "eval-loop.txt")):
        name, *fields = line.split()
        walls[name] = float(dict(f.split("=", 1) for f in fields)["wall_s"])
    lt, ln = ttv(glob.glob(os.path.join(d, "eval-*.json")))
    bt, bn = ttv(glob.glob(os.path.join(d, "suite-state", "results", "**", "*.json"), recursive=True))
    if ln and bn:
        loop_out.append((sum(v for k, v in walls.items() if k != "batch") - lt) / ln)
        batch_out.append((walls["batch"] - bt) / bn)
def show(xs):
    return f"median {statistics.median(xs):.2f} s, range [{min(xs):.2f}, {max(xs):.2f}] over {len(xs)} repetitions"
if loop_out:
    print(f"## outside the time to verdict, per evaluation: loop of kjudge eval {show(loop_out)}; "
          f"kjudge batch {show(batch_out)}")
PY
