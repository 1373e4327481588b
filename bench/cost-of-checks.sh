#!/usr/bin/env bash
# The cost of the per-call checks (issue "Anti-cheat", figure "time to verdict with all rules on is
# at most 1.5x the time without the per-call rechecks and the trace"): each suite problem's fast
# example judged with every rule (default: one timed call rechecked per round) and with
# `--rechecks 0` (and on cuda `--no-trace`: no CUPTI trace of checked calls), alternately, RUNS
# times each, build cache warm (compile time is not a check). On cpu there is no kernel trace.
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
echo "# cost of the checks, $device, $(date -u +%Y-%m-%dT%H:%M:%SZ), $runs runs per setting"
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) logical cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- kjudge $(git rev-parse --short HEAD 2>/dev/null || echo unknown); default budget, cold mode, torch baselines off"
echo
off_label="--rechecks 0"; [ "$device" = cuda ] && off_label="--rechecks 0 --no-trace"
echo "| problem | all rules: median s (min-max) | $off_label: median s (min-max) | ratio | rechecks per run |"
echo "|---|---|---|---|---|"
ratios=()
for p in ${PROBLEMS:-gelu_bias_residual layernorm rmsnorm softmax matmul_bias_relu}; do
  cand=examples/$p/fast.$ext
  "$kj" eval "$p" "$cand" --device "$device" --no-store -q --torch none --no-timing >/dev/null 2>&1 || true  # warm the build cache
  on=(); off=(); nre=""
  for i in $(seq "$runs"); do
    for setting in on off; do
      flags=()
      if [ $setting = off ]; then flags=(--rechecks 0); [ "$device" = cuda ] && flags+=(--no-trace); fi
      "$kj" eval "$p" "$cand" --device "$device" --no-store -q --torch none --json "$tmp/r.json" "${flags[@]}" >/dev/null 2>&1 || true
      t=$(python3 -c "import json;print(json.load(open('$tmp/r.json'))['time_to_verdict_s'])")
      if [ $setting = on ]; then on+=("$t"); nre=$(python3 -c "import json;print(json.load(open('$tmp/r.json'))['timing']['rechecks']['count'])"); else off+=("$t"); fi
    done
  done
  line=$(python3 - "${on[*]}" "${off[*]}" <<'PY'
import statistics, sys
on = [float(x) for x in sys.argv[1].split()]
off = [float(x) for x in sys.argv[2].split()]
a, b = statistics.median(on), statistics.median(off)
print(f"{a:.2f} ({min(on):.2f}-{max(on):.2f}) | {b:.2f} ({min(off):.2f}-{max(off):.2f}) | {a / b:.3f}")
PY
)
  echo "| $p | $line | $nre |"
  ratios+=("$(echo "$line" | awk -F'|' '{print $3}')")
done
echo
python3 -c "import sys,math; r=[float(x) for x in sys.argv[1:]]; print(f'largest ratio {max(r):.3f}, geometric mean {math.exp(sum(map(math.log,r))/len(r)):.3f} (target <= 1.5)')" "${ratios[@]}"
