#!/usr/bin/env bash
# Two-step demonstration of tests/redteam/python/py_rewrite_model.py (rewriting an imported
# problem's reference):
#   0. kernelbench/1_ScaledTanh.py imported into a temporary directory (`kjudge import kernelbench
#      --out`); py_rewrite_model_zeros.py (returns zeros) judged against it: wrong_result, the control;
#   1. py_rewrite_model.py judged (--no-timing): honest itself, it appends to the problem's model.py
#      a line that makes Model.forward return zeros (its own verdict depends on a race: ok when
#      the reference worker imported model.py first, wrong_result when the rewrite came first);
#   2. py_rewrite_model_zeros.py judged again (with timing): accepted.
# Pre-fix (b5c5f0e): step 0 wrong_result:tolerance, step 1 ok, step 2 ok_faster, 3.0x against
# torch:eager (73 us against 207 us); model.py ends with the appended lines. After the fix: step 1 cannot write (sandbox) and a later evaluation checks the
# problem files against the sha256 recorded at import (a changed model.py: exit 2); step 2 is
# wrong_result like step 0.
# Usage: tests/redteam/python/py_rewrite_model.sh [path/to/kjudge]   (default: build/bin/kjudge)
set -u
kj=${1:-build/bin/kjudge}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/kjudge-redteam-rewrite-model.XXXXXX)
export KJUDGE_CACHE=$tmp/cache KJUDGE_DB=$tmp/store.db

summary() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
v = r["verdict"]
print(f'  verdict: {v["status"]} {v.get("rule") or ""}: {v["reasons"][0][:200]}')
for c in (r.get("timing") or {}).get("cases", []):
    bl = ", ".join(f'{b["name"]} {b["median_s"] * 1e6:.0f} us ({b["speedup"]["median"]:.2f}x)' for b in c["baselines"])
    print(f'  {c["id"]}: candidate {c["candidate"]["median_s"] * 1e6:.0f} us; {bl}')
PY
}

"$kj" import kernelbench "$here/kernelbench/1_ScaledTanh.py" --out "$tmp/problems" >/dev/null 2>&1 || { echo "import failed"; exit 2; }
problem=$tmp/problems/kb/kernelbench/1_ScaledTanh
echo "model.py: $(sha256sum "$problem/model.py" | cut -c1-16)..."
echo "== 0. zeros, against the real model.py"
"$kj" eval "$problem" "$here/py_rewrite_model_zeros.py" --device cpu --no-store --no-timing -q --json "$tmp/control.json" >/dev/null 2>&1
echo "  exit $?"; summary "$tmp/control.json"
echo "== 1. py_rewrite_model.py"
"$kj" eval "$problem" "$here/py_rewrite_model.py" --device cpu --no-store --no-timing -q --json "$tmp/attack.json" >/dev/null 2>&1
echo "  exit $?"; summary "$tmp/attack.json"
echo "model.py: $(sha256sum "$problem/model.py" | cut -c1-16)...; its last lines:"
tail -3 "$problem/model.py" | sed 's/^/    /'
echo "== 2. zeros again"
"$kj" eval "$problem" "$here/py_rewrite_model_zeros.py" --device cpu --no-store --budget 2 -q --json "$tmp/after.json" >/dev/null 2>&1
echo "  exit $?"; [ -f "$tmp/after.json" ] && summary "$tmp/after.json"
echo "(results in $tmp)"
