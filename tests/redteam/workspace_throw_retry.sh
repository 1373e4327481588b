#!/usr/bin/env bash
# Demonstration of tests/redteam/cpu/workspace_throw_layernorm.cpp under `kjudge batch --retry`:
# a wrong layernorm that throws from kj_workspace_bytes on the shapes it gets wrong. Each draw
# that meets such a shape is recorded as outcome judge_fault (no verdict, nothing stored), and
# --retry judges it again with a fresh secret seed until a draw misses every wrong shape: the
# batch ends with the cheat judged ok: with the worker's error taken as the judge's fault, about 1
# evaluation in 3 was a judge fault and the others ok_not_faster, never a rejection (2-core VM,
# 2026-12-07). Expected: every draw that meets a wrong shape is the candidate's verdict
# (runtime_error), outcome judged, and --retry leaves it.
# Usage: tests/redteam/workspace_throw_retry.sh [path/to/kjudge] [max tries, default 8]
set -u
kj=${1:-build/bin/kjudge}
tries=${2:-8}
here=$(cd "$(dirname "$0")" && pwd)/cpu
tmp=$(mktemp -d /tmp/kjudge-redteam-retry.XXXXXX)
export KJUDGE_DB=$tmp/store.db KJUDGE_TORCH_BASELINES=none
mkdir -p "$tmp/run/layernorm"
cp "$here/workspace_throw_layernorm.cpp" "$tmp/run/layernorm/cheat.cpp"
for i in $(seq 1 "$tries"); do
  "$kj" batch "$tmp/run" --layout kjudge --device cpu --no-timing --retry -q >"$tmp/batch-$i.log" 2>&1
  rc=$?
  outcome=$(python3 - "$tmp/run/.kjudge-batch" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/results/**/*.json", recursive=True):
    d = json.load(open(f))
    v = d["verdict"]
    print(d["batch"]["outcome"], v["status"], v.get("rule") or "", (v.get("reasons") or [""])[0][:100])
PY
)
  echo "try $i: exit $rc: $outcome"
  case "$outcome" in judged*) break ;; esac
done
echo "(state in $tmp)"
