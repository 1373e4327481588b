#!/usr/bin/env bash
# The cpu figures of the core judge (issue "The judge end to end on the CPU backend"):
#  1. A/A: every suite problem's reference judged as a candidate; ratio and 95% CI.
#  2. Time to verdict for a cpu candidate on each suite problem, compile included (a fresh build
#     cache per run), 5 runs each; median and spread.
# Prints everything and writes bench/results/cpu/<date>.md with the environment.
# Usage: bench/cpu-figures.sh [BUILD_DIR]   (run on a quiet machine: the figures are timings)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
kj="$build/bin/kjudge"
out="bench/results/cpu/$(date -u +%Y-%m-%d)-$(hostname -s).md"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KJUDGE_DB="$tmp/bench.db"
runs=${RUNS:-5}

{
  echo "# kjudge cpu figures, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) logical cores, $(free -g | awk '/Mem:/{print $2}') GiB"
  echo "- kernel: $(uname -sr); compiler: $(g++ --version | head -1)"
  echo "- kjudge: $(git rev-parse --short HEAD 2>/dev/null || echo unknown); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- mode: cold (every sample's buffers flushed from all cache levels with clflush), default budget"
  echo
  echo "## A/A validation (kjudge validate --all)"
  echo
  echo '```'
  "$kj" validate --all -q || true
  echo '```'
  echo
  echo "## Time to verdict, compile included ($runs runs per problem, fresh build cache each run)"
  echo
  echo "| problem | candidate | verdict | median s | min s | max s |"
  echo "|---|---|---|---|---|---|"
  all=()
  for p in gelu_bias_residual layernorm rmsnorm softmax matmul_bias_relu; do
    ts=()
    st=""
    for i in $(seq "$runs"); do
      KJUDGE_CACHE="$tmp/cache-$p-$i" "$kj" eval "$p" "examples/$p/fast.cpp" -q --json "$tmp/r.json" > /dev/null || true
      t=$(python3 -c "import json;print(json.load(open('$tmp/r.json'))['time_to_verdict_s'])")
      st=$(python3 -c "import json;print(json.load(open('$tmp/r.json'))['verdict']['status'])")
      ts+=("$t"); all+=("$t")
    done
    python3 - "$p" "$st" "${ts[@]}" <<'PY'
import statistics, sys
p, st, *ts = sys.argv[1:]
ts = sorted(float(t) for t in ts)
print(f"| {p} | examples/{p}/fast.cpp | {st} | {statistics.median(ts):.2f} | {ts[0]:.2f} | {ts[-1]:.2f} |")
PY
  done
  python3 - "${all[@]}" <<'PY'
import statistics, sys
ts = sorted(float(t) for t in sys.argv[1:])
print(f"\nAll {len(ts)} runs: median {statistics.median(ts):.2f} s, min {ts[0]:.2f} s, max {ts[-1]:.2f} s (target: median <= 15 s on 2 cores).")
PY
} | tee "$out"
echo "written: $out"
