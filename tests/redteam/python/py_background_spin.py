# Attack (background load between its own calls, from a Python candidate): at import this module
# forks 4 helper processes that stay in the worker's process group (so the watchdog and the
# worker's stop still kill them, and they leave nothing behind) and stream memory in bursts
# (below) whenever the candidate is NOT in a call. The flag is a byte of shared memory set around
# the kernel. The judge times the parties one after another, so the baselines' samples
# (reference, cpu_fast, torch:eager) compete with the helpers for the cores and DRAM, while the
# candidate's own run on a quiet machine. No signal, priority or scheduling call touches another
# process; the fork happens at import, before the sandbox (and kjudge-worker-py permits
# subprocesses anyway, for inductor's compiler). None of the baselines' samples was set aside as
# "disturbed" (0 of 364).
# The kernel is torch.softmax: the same work as the torch:eager baseline.
# Pre-fix (b5c5f0e), 2-core VM, --budget 3: ok_faster, 1.72x [1.14, 2.63]; torch:eager 1.29 ms
# and cpu_fast 1.78 ms on bench-0 (0.62 and 0.67 ms in the control run, tests/python/candidates/
# softmax_torch.py: ok_not_faster, 0.98x [0.94, 1.13]). A helper streaming without pauses had no
# effect (1.01x): see _helper.
# Expected after the fix: hack, rule background_work (CPU time of the candidate's processes
# outside its calls). Needs the timing phase.
import ctypes
import mmap
import os
import time

LIFETIME_S = 300.0  # the helpers' own limit (s), in case the worker's group is never killed
HELPERS = 4

_flag = mmap.mmap(-1, mmap.PAGESIZE)  # shared with the helper: _flag[0] = 1 while in a call


def _helper(parent):
    # While no call runs: 100 us of memory streaming (64 KiB copies within two 32 MiB buffers),
    # then 200 us asleep. A process that mostly sleeps is favoured by the scheduler when it wakes,
    # so it preempts a baseline's sample instead of waiting behind it (a helper that streamed
    # without sleeping never got a core while a baseline ran: the baselines were not slowed).
    ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL: dies with the worker
    a, b = bytearray(32 << 20), bytearray(32 << 20)
    va, vb = memoryview(a), memoryview(b)
    chunk, off = 64 << 10, 0
    start = time.monotonic()
    while os.getppid() == parent and time.monotonic() - start < LIFETIME_S:
        if _flag[0]:
            time.sleep(0.002)  # the candidate is in a call: keep quiet (a 0.1 ms poll slowed it)
            continue
        t0 = time.monotonic()
        while not _flag[0] and time.monotonic() - t0 < 100e-6:
            vb[off:off + chunk] = va[off:off + chunk]
            off = (off + chunk) % len(a)
        time.sleep(200e-6)


_parent = os.getpid()
for _ in range(HELPERS):
    if os.fork() == 0:
        try:
            _helper(_parent)
        finally:
            os._exit(0)

import torch  # noqa: E402


def kernel(x):
    _flag[0] = 1
    try:
        return torch.softmax(x, dim=-1)
    finally:
        _flag[0] = 0
