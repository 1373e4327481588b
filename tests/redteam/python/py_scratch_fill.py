# Attack (the baselines' compile starved of disk): a Python worker may write files of up to 2 GiB
# each (RLIMIT_FSIZE raised for torch's compilers). This softmax is honest and correct; its timing
# worker (scratch ".../candidate-timing", started while the checks run, before the baselines'
# warm-up compiles) writes 64 MiB files into its scratch at import until a write fails, and keeps
# the space until the evaluation ends. Were the scratch a directory of the file system that holds
# KJUDGE_CACHE, a torch:compile baseline's warm-up could not write its compile, and the evaluation
# would end without a verdict (the judge's fault: exit 3, batch outcome judge_fault); on the 2-core
# VM on 2026-12-07, before the scratch quota, with KJUDGE_CACHE on a 1.2 GiB tmpfs: exit 3,
# "InductorError: OSError: [Errno 28] No space left on device".
# Expected: the candidate's scratch is a tmpfs of --scratch-limit MiB (pool/detail/private_mounts),
# so the fill ends there with ENOSPC and the evaluation goes on with the baselines unharmed: the
# honest softmax passes (harmless). py_scratch_fill.sh shows it with a torch:compile baseline and
# KJUDGE_CACHE on a small tmpfs (the same VM, the same date, with the quota: ok_faster, 536 KiB of
# that tmpfs used).
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
