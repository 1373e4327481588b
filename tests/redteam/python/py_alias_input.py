# Attack (the result's copy left to the judge, after the clock): a ModelNew for a reshape that
# returns a view of its input. The values are right, and the judge copies the result into its
# output buffer after the clock stopped: the candidate's timed call does no work, while an honest
# kernel writes 4 MiB of output in its call (the reference's clone does). The call waits as long
# as moving the problem's 8 MiB would take at 20 GB/s, under 1.5x the 2-core VM's copy ceiling
# (~14 GB/s), so the speed-of-light rule does not fire.
# Pre-fix (b5c5f0e), 2-core VM, --budget 2: ok_faster 1.55x [1.48, 1.60]; without the wait,
# faster_than_light.
# Expected after the fix: runtime_error, rule nonzero_return ("output 0 is (a view of) input 0").
import time

import torch.nn as nn

_clock = time.perf_counter


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        until = _clock() + 2 * x.numel() * x.element_size() / 20e9
        while _clock() < until:
            pass
        return x.view(-1)
