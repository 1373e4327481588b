// The cuda backend of the worker (DESIGN.md §1, §3, §4): guarded device buffers, poison,
// inputs drawn on the device, the blocking-kernel event timer with per-sample SM clocks, L2
// flush, CUPTI traces of checked calls, NVML environment, doctor ceilings.
#pragma once

#include <memory>

#include "worker/backend.hpp"

namespace kjudge::cuda {

// Timer constants (DESIGN.md §4), named here so that documents and tests can quote them.
// The blocking kernel gives up after this long, ns: a call that synchronises inside kj_run (or
// launches more than the launch queue holds) would otherwise wait for it forever. When it fires,
// the sample is marked and later samples are timed without it.
inline constexpr unsigned long long hold_timeout_ns = 20'000'000;
// The L2 flush writes max(2 x L2, this) bytes with cudaMemsetAsync, then synchronises.
inline constexpr std::size_t flush_min_bytes = 256u << 20;

// Creates the context on the current device (CUDA_VISIBLE_DEVICES picks it), loads NVML and
// registers CUPTI before the worker's sandbox is applied. Throws if no device is usable.
std::unique_ptr<backend> make_cuda_backend();

}  // namespace kjudge::cuda
