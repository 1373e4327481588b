#!/usr/bin/env bash
# Demonstration of tests/redteam/python/py_scratch_fill.py: KJUDGE_CACHE on a small tmpfs (root
# only: mount), a torch:compile:default baseline; the attack judged first, on a fresh cache,
# then an honest torch.softmax as the control; `df` after each shows what the cache's file system
# kept free (logs kept in /tmp/kjudge-redteam-fill-logs.*). Usage: tests/redteam/python/py_scratch_fill.sh [path/to/kjudge]
set -u
kj=$(realpath "${1:-build/bin/kjudge}")
here=$(cd "$(dirname "$0")" && pwd)
mnt=$(mktemp -d /tmp/kjudge-redteam-fill.XXXXXX)
mount -t tmpfs -o size=1200m tmpfs "$mnt" || exit 1
trap 'umount "$mnt"' EXIT
export KJUDGE_CACHE=$mnt/cache KJUDGE_DB=$mnt/store.db KJUDGE_TORCH_BASELINES=torch:compile:default
logs=$(mktemp -d /tmp/kjudge-redteam-fill-logs.XXXXXX)
printf 'import torch\n\n\ndef kernel(x):\n    return torch.softmax(x, dim=-1)\n' >"$logs/honest_softmax.py"
for c in "$here/py_scratch_fill.py" "$logs/honest_softmax.py"; do
  log=$logs/$(basename "$c" .py).log
  "$kj" eval softmax "$c" --device cpu --no-store --budget 1 -q --json "$mnt/r.json" >"$log" 2>&1
  rc=$?
  echo "== $(basename "$c"): exit $rc"
  grep -v '^\s*$' "$log" | tail -4 | cut -c1-300
  python3 -c "import json;d=json.load(open('$mnt/r.json'));v=d['verdict'];print(v['status'],v.get('rule'),v['reasons'][0][:200])" 2>/dev/null
  rm -f "$mnt/r.json"
  df -h "$mnt" | tail -1
done
