#!/usr/bin/env bash
# Demonstration of tests/redteam/python/py_compile_cache_reach.py against the torch.compile cache
# (src/judge/torch_compile_cache.hpp): judged with a torch:compile:default baseline on a fresh
# cache (~1-2 min of inductor compile on the 2-core VM), it tries to read and write
# $KJUDGE_CACHE/torch-compile and the baselines' scratch while they are seeded and warming up,
# and plants marked files in its own scratch's cache directories. Then the store is searched for
# the marker and the baseline's compile_cache report is printed.
# On the 2-core VM (2026-12-07): ok_not_faster 0.44x (nothing reached), the baseline's entry published
# (seeded_files [0], stored "published"), no marker in it. The candidate's refused reads and writes
# are not listed in sandbox_denied (landlock refuses them with EACCES, unrecorded).
# Usage: tests/redteam/python/py_compile_cache_reach.sh [path/to/kjudge]
set -u
kj=${1:-build/bin/kjudge}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/kjudge-redteam-compile-cache.XXXXXX)
export KJUDGE_CACHE=$tmp/cache KJUDGE_DB=$tmp/store.db KJUDGE_TORCH_BASELINES=torch:compile:default
"$kj" eval softmax "$here/py_compile_cache_reach.py" --device cpu --no-store --budget 1 -q \
  --json "$tmp/attack.json" >"$tmp/attack.log" 2>&1
echo "exit $?"
python3 - "$tmp/attack.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
v = r["verdict"]
print(f'verdict: {v["status"]} {v.get("rule") or ""}: {v["reasons"][0][:300]}')
for b in r.get("baselines") or []:
    if isinstance(b, dict) and "compile_cache" in (b.get("python") or {}):
        print(b.get("name"), "compile_cache", json.dumps(b["python"]["compile_cache"]))
print("sandbox_denied", json.dumps(r.get("sandbox_denied"))[:300])
PY
echo "store entries: $(ls "$KJUDGE_CACHE/torch-compile" 2>/dev/null | tr '\n' ' ')"
if grep -rl "KJ-REDTEAM-PLANTED" "$KJUDGE_CACHE/torch-compile" 2>/dev/null; then
  echo "MARKER FOUND IN THE STORE"
else
  echo "no marker in the store"
fi
find "$KJUDGE_CACHE/torch-compile" -name 'kjredteam*' -o -name 'KJREDTEAM' 2>/dev/null
echo "(results in $tmp)"
