#!/usr/bin/env bash
# Two-step demonstration of tests/redteam/python/py_cache_poison.py (build-cache poisoning):
#   1. an honest C++ softmax (tests/honest/cpu/softmax_poly_exp_simd.cpp) judged on a fresh cache:
#      the figures against the real cpu_fast (this also builds cpu_fast into the cache);
#   2. the Python candidate py_cache_poison.py judged (--no-timing): at import it renames a copy
#      of the reference's shared object over cpu_fast's in $KJUDGE_CACHE/build;
#   3. the same honest softmax judged again: "cpu_fast" is now the single-threaded reference.
# Pre-fix (b5c5f0e, 2-core VM): step 1 ok_not_faster, 0.49x (cpu_fast 701 us on bench-0); step 3
# ok_faster, 1.71x (cpu_fast 2126 us: the reference's time). After the fix: step 2 cannot write
# (sandbox) and the cache verifies artifacts at use: steps 1 and 3 agree.
# Usage: tests/redteam/python/py_cache_poison.sh [path/to/kjudge]   (default: build/bin/kjudge)
# Torch baselines are left out (KJUDGE_TORCH_BASELINES=none) so that cpu_fast is the strongest.
set -u
kj=${1:-build/bin/kjudge}
here=$(cd "$(dirname "$0")" && pwd)
honest=$here/../../honest/cpu/softmax_poly_exp_simd.cpp
tmp=$(mktemp -d /tmp/kjudge-redteam-cache-poison.XXXXXX)
export KJUDGE_CACHE=$tmp/cache KJUDGE_DB=$tmp/store.db KJUDGE_TORCH_BASELINES=none

summary() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
v = r["verdict"]
print(f'  verdict: {v["status"]} {v.get("rule") or ""}: {v["reasons"][0][:160]}')
for c in (r.get("timing") or {}).get("cases", []):
    bl = ", ".join(f'{b["name"]} {b["median_s"] * 1e6:.0f} us ({b["speedup"]["median"]:.2f}x)' for b in c["baselines"])
    print(f'  {c["id"]} {c["shape"]}: candidate {c["candidate"]["median_s"] * 1e6:.0f} us; {bl}')
PY
}
cached() {  # the cached shared object whose kj_info contains $1
  for so in "$KJUDGE_CACHE"/build/*/*/candidate.so; do
    if grep -q "$1" "$so" 2>/dev/null; then echo "$so"; return; fi
  done
}
show() {
  echo "  cpu_fast's cache entry: $(sha256sum "$fast" | cut -c1-16)...  $fast"
  echo "  the reference's entry:  $(sha256sum "$ref" | cut -c1-16)...  $ref"
}

echo "== 1. honest softmax, fresh cache"
"$kj" eval softmax "$honest" --device cpu --no-store --budget 2 -q --json "$tmp/before.json" >/dev/null 2>&1
summary "$tmp/before.json"
fast=$(cached "family=baseline_fast;notes=3-pass")
ref=$(cached "family=reference;notes=float max-subtracted")
show
echo "== 2. py_cache_poison.py"
"$kj" eval softmax "$here/py_cache_poison.py" --device cpu --no-store --no-timing -q --json "$tmp/attack.json" >/dev/null 2>&1
summary "$tmp/attack.json"
show
echo "== 3. the same honest softmax, same cache"
"$kj" eval softmax "$honest" --device cpu --no-store --budget 2 -q --json "$tmp/after.json" >/dev/null 2>&1
summary "$tmp/after.json"
echo "(results in $tmp)"
