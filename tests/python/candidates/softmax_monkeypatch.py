# A Python candidate for softmax that tries to move the judge's figures from inside its process:
# it freezes Python's clocks, replaces torch's copy/export functions and tensor arithmetic, and
# sleeps 2 ms in every call. kjudge's timer and result path are C++ taken before this module was
# imported, so the verdict stays correct and every timed call still measures >= 2 ms.
import sys
import time

import torch

_frozen = time.perf_counter()
_sleep = time.sleep
time.perf_counter = lambda: _frozen
time.perf_counter_ns = lambda: 0
time.monotonic = lambda: _frozen
time.monotonic_ns = lambda: 0
time.time = lambda: _frozen
time.process_time = lambda: 0.0
torch.Tensor.__add__ = lambda self, other: self  # breaks `+` for everything in this process
torch.Tensor.copy_ = lambda self, src, non_blocking=False: self  # a no-op copy
torch.Tensor.contiguous = lambda self, *a, **k: self
torch._C._to_dlpack = lambda t: None
torch.utils.dlpack.to_dlpack = lambda t: None
torch.utils.dlpack.from_dlpack = lambda t: torch.zeros(1)
if "kjudge_host" in sys.modules:  # the judge's glue module: replace everything it offers
    for name in list(vars(sys.modules["kjudge_host"])):
        if not name.startswith("__"):
            setattr(sys.modules["kjudge_host"], name, lambda *a, **k: None)


def kernel(x):
    _sleep(0.002)
    return torch.softmax(x, dim=-1)
