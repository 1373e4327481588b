# Attack (the baselines' compile starved of disk): a worker's scratch directory has no quota, and a
# Python worker may write files of up to 2 GiB each (RLIMIT_FSIZE raised for torch's compilers), in
# the cache's file system, which the baselines' scratch (their torch.compile caches, inductor's
# generated C++ and shared objects on the cpu) shares. This softmax is honest and correct; its
# timing worker (scratch ".../candidate-timing", started while the checks run, before the
# baselines' warm-up compiles) fills that file system at import, in 64 MiB files, and keeps the
# space until the evaluation ends. A torch:compile baseline's warm-up then cannot write its
# compile: the evaluation ends without a verdict (a baseline's failure is the judge's: exit 2 or
# 3, batch outcome bad_input or judge_fault), and a slow candidate is never recorded as
# ok_not_faster; the store's publish of the compile cache fails too.
# Demonstration on a 1.2 GiB tmpfs: tests/redteam/python/py_scratch_fill.sh. Not in the manifest:
# judged there it would fill the disk the tests run on.
# On the 2-core VM (2026-12-07, a 1.2 GiB tmpfs): exit 3, "internal error: baseline torch:compile:default
# failed while warming up: InductorError: OSError: [Errno 28] No space left on device"; the same
# file system with an honest torch.softmax: ok_not_faster.
# Expected: a worker's scratch is bounded; the candidate's excess is its own resource_limit (or
# the evaluation goes on with the baselines unharmed).
import os

import torch


def _fill():
    scratch = os.environ.get("KJUDGE_SCRATCH") or os.environ.get("HOME", "")
    if os.path.basename(scratch.rstrip("/")) != "candidate-timing":
        return 0
    block = b"\0" * (1 << 20)
    written = 0
    for i in range(100000):
        try:
            with open(os.path.join(scratch, f"fill-{i}"), "wb") as f:
                for _ in range(64):
                    f.write(block)
                    written += len(block)
        except OSError:
            break
    return written


_filled = _fill()


def kernel(x):
    return torch.softmax(x, dim=-1)
