#!/usr/bin/env bash
# The cost of the per-call checks (issue "Anti-cheat", figure "time to verdict with all rules on is
# at most 1.5x the time without the per-call rechecks and the trace"): each suite problem's fast
# example judged with every rule (default: one timed call rechecked per round) and with
# `--rechecks 0` (and on cuda `--no-trace`: no CUPTI trace of checked calls), alternately, RUNS
# times each, build cache warm (compile time is not a check). On cpu there is no kernel trace.
#
# Two comparisons, because the timing phase is capped by its budget (default 6 s): with the
# default settings a run whose rechecks take time gets fewer rounds within the same cap, so its
# time to verdict hides part of the cost as less statistical work. The second table pins both
# settings to the same number of rounds (`--rounds 10`, the minimum of a default run), which
# shows the cost as time.
# Usage: bench/cost-of-checks.sh [DEVICE] [BUILD_DIR]   (a quiet machine: the figures are timings)
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-cpu}
build=${2:-build}
kj="$build/bin/kjudge"
ext=cpp; [ "$device" = cuda ] && ext=cu
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KJUDGE_DB="$tmp/bench.db"
off_flags=(--rechecks 0); [ "$device" = cuda ] && off_flags+=(--no-trace)
problems=${PROBLEMS:-gelu_bias_residual layernorm rmsnorm softmax matmul_bias_relu}

echo "# cost of the checks, $device, $(date -u +%Y-%m-%dT%H:%M:%SZ), $runs runs per setting"
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) logical cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- kjudge $(git rev-parse --short HEAD 2>/dev/null || echo unknown); cold mode, torch baselines off; checks off = ${off_flags[*]}"

# One eval; prints "time_to_verdict rounds candidate_samples rechecks rechecks_s".
one() {
  rm -f "$tmp/r.json"  # a failed eval must not leave the previous run's figures behind
  "$kj" eval "$@" --device "$device" --no-store -q --torch none --json "$tmp/r.json" >/dev/null 2>&1 || true
  python3 - "$tmp/r.json" <<'PY'
import json, os, sys
if not os.path.exists(sys.argv[1]):
    print("nan 0 0 0 0 no-result")
    sys.exit()
d = json.load(open(sys.argv[1]))
t = d.get("timing") or {}
n = sum((c.get("candidate") or {}).get("n", 0) for c in t.get("cases", []))
r = t.get("rechecks") or {}
print(d["time_to_verdict_s"], t.get("rounds", 0), n, r.get("count", 0), r.get("seconds", 0.0), d["verdict"]["status"])
PY
}

for table in default fixed; do
  echo
  if [ $table = default ]; then
    echo "## default settings (budget 6 s: rounds until the CI target or the budget)"
    extra=()
  else
    echo "## equal statistical work: --rounds 10 in both settings"
    extra=(--rounds 10)
  fi
  echo
  echo "| problem | all rules: median s (min-max) | checks off: median s (min-max) | ratio | rounds on / off | candidate samples on / off | rechecks per run (s) | at equal samples: (off + rechecks' s) / off | verdicts |"
  echo "|---|---|---|---|---|---|---|---|---|"
  ratios=(); eq=()
  for p in $problems; do
    cand=examples/$p/fast.$ext
    "$kj" eval "$p" "$cand" --device "$device" --no-store -q --torch none --no-timing >/dev/null 2>&1 || true  # warm the build cache
    : >"$tmp/on.txt"; : >"$tmp/off.txt"
    for i in $(seq "$runs"); do
      one "$p" "$cand" "${extra[@]}" >>"$tmp/on.txt"
      one "$p" "$cand" "${extra[@]}" "${off_flags[@]}" >>"$tmp/off.txt"
    done
    line=$(python3 - "$tmp/on.txt" "$tmp/off.txt" <<'PY'
import statistics, sys
rows = [[l.split() for l in open(f) if l.strip()] for f in sys.argv[1:3]]
on, off = ([float(r[0]) for r in x] for x in rows)
a, b = statistics.median(on), statistics.median(off)
med = lambda x, k: statistics.median(float(r[k]) for r in x)
print(f"{a:.2f} ({min(on):.2f}-{max(on):.2f}) | {b:.2f} ({min(off):.2f}-{max(off):.2f}) | {a / b:.3f} | "
      f"{med(rows[0], 1):.0f} / {med(rows[1], 1):.0f} | {med(rows[0], 2):.0f} / {med(rows[1], 2):.0f} | "
      f"{med(rows[0], 3):.0f} ({med(rows[0], 4):.2f}) | {(b + med(rows[0], 4)) / b:.3f} | "
      f"{' '.join(sorted(set(r[5] for x in rows for r in x)))}")
PY
)
    echo "| $p | $line |"
    ratios+=("$(echo "$line" | awk -F'|' '{print $3}')")
    eq+=("$(echo "$line" | awk -F'|' '{print $7}')")
  done
  echo
  python3 -c "import sys,math; r=[float(x) for x in sys.argv[1:]]; print(f'$table: largest ratio {max(r):.3f}, geometric mean {math.exp(sum(map(math.log,r))/len(r)):.3f} (target <= 1.5)')" "${ratios[@]}"
  python3 -c "import sys; r=[float(x) for x in sys.argv[1:]]; print(f'$table, at equal samples: largest {max(r):.3f} (target <= 1.5)')" "${eq[@]}"
done
