// The device backend seam (DESIGN.md §1): what the worker needs from a device to run, check and
// time one call. The cpu backend is in worker/cpu_backend.cpp; the cuda backend in src/cuda/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/tensor.hpp"
#include "inputs/distributions.hpp"
#include "worker/device_fault.hpp"

namespace kjudge {

using json = nlohmann::json;

// Guard zone size on each side of every buffer, bytes. A write up to this far outside the
// buffer is caught; the canary pattern cannot be produced by float arithmetic on our inputs.
inline constexpr std::size_t guard_bytes = 4096;
inline constexpr unsigned char canary_byte = 0xcb;

// A device (or host) allocation of `bytes` usable bytes framed by guard zones.
struct guarded_buffer {
  void* data = nullptr;  // first usable byte (device pointer on cuda)
  std::size_t bytes = 0;
  void* base = nullptr;  // start of the front guard
  std::string label;     // "input x", "output y", "workspace" — for evidence
  // The allocation holding it (the guards start `base - allocation` bytes in: a shift that moves
  // from one allocation to the next, so that no two consecutive calls see the same data pointer).
  void* allocation = nullptr;
  std::size_t allocation_bytes = 0;
};

// The shifts of successive allocations, bytes: 4096 positions 256 bytes apart (every alignment a
// kernel may assume of a buffer is kept; at most 1 MiB more per allocation, untouched on the host).
// Allocators hand back the address they just freed, so without it a call's buffers sat where the
// last call's did: a candidate that recognises a timed call, or caches a result, by its buffers'
// addresses (tests/redteam/cpu/pointer_cache_softmax.cpp) sees new ones for 4096 allocations in a
// row (GPU MODE reference-kernels #148; NVIDIA SOL-ExecBench's shifting allocator).
class allocation_shift {
 public:
  std::size_t next() { return (m_count++ % positions) * 256; }
  static constexpr std::size_t positions = 4096;

 private:
  std::size_t m_count = 0;
};

struct guard_violation {
  std::string buffer;      // label
  std::string side;        // "before" | "after"
  std::size_t offset = 0;  // distance in bytes from the buffer edge to the first changed byte
  std::size_t bytes_changed = 0;
};

// What the deferred-work probe found: bytes of a buffer that differ from an earlier copy.
struct byte_changes {
  std::size_t changed = 0;  // bytes that differ
  std::size_t first = 0;    // offset of the first, when changed > 0
};

// One timed call.
struct timed_call {
  int rc = 0;
  double seconds = 0.0;       // the backend's timer (steady clock on cpu, events on cuda)
  double host_seconds = 0.0;  // host wall clock around launch + completion (cross-check)
  // cpu: the timer's second reading, CLOCK_MONOTONIC ns, which the controller compares with its
  // own clock at the "go" of an armed sample (timing/rounds.cpp); 0 where the backend has none.
  long long end_ns = 0;
  json extra;  // backend-specific evidence (e.g. SM clock, kernel trace)
};

class backend {
 public:
  virtual ~backend() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  virtual json environment() = 0;

  virtual guarded_buffer allocate(std::size_t bytes, std::string label) = 0;
  virtual void release(guarded_buffer& b) = 0;
  virtual void upload(guarded_buffer& b, const void* host, std::size_t bytes) = 0;
  virtual void download(const guarded_buffer& b, void* host, std::size_t bytes) = 0;
  // Fills the usable bytes with the poison pattern of the dtype (oracle/oracle.hpp).
  virtual void poison(guarded_buffer& b, dtype t, std::size_t numel) = 0;
  virtual std::vector<guard_violation> check_guards(const guarded_buffer& b) = 0;
  // Maps an input buffer (guards included) read-only for the rest of its life, so that a write
  // by the candidate faults instead of going unnoticed once undone (protocol/log_markers, rule
  // input_modified); a no-op where the device cannot. Called after the inputs are filled.
  virtual void make_read_only(guarded_buffer& b) { (void)b; }
  // Makes an output mapping readable and writable again after a call, whatever protection the
  // call left on it (host backends; a device buffer has no page protection).
  virtual void restore_access(const guarded_buffer& b) { (void)b; }

  virtual void* stream() = 0;  // passed in kj_args.stream
  virtual void synchronize() = 0;
  // Evicts the last-level cache (cold samples); not timed.
  virtual void flush_cache() = 0;
  // Times `call` (which launches the candidate) with the backend's method.
  virtual timed_call time(const std::function<int()>& call) = 0;
  // Bytes allocated by the candidate during the last timed or run call beyond what the judge
  // allocated (peak device memory), when the backend can see it; -1 if unknown.
  virtual long long last_call_peak_extra_bytes() { return -1; }

  // Optional capabilities of device backends; the defaults are what the cpu backend needs.

  // Fills the `d.numel()` elements of `b` with the values fill_distribution(t, distribution,
  // seed, input_index, range) gives on the host, generated where the buffer lives (multi-hundred-MB
  // inputs per timed sample are too slow to draw on the host and upload). Returns false when
  // the backend cannot (dtype or distribution): the worker then draws on the host and uploads.
  virtual bool generate(guarded_buffer& b, const tensor_desc& d, std::string_view distribution, std::uint64_t seed,
                        int input_index, const std::optional<int_range>& range) {
    (void)b, (void)d, (void)distribution, (void)seed, (void)input_index, (void)range;
    return false;
  }
  // Imposes a square-matrix structure (inputs/distributions.hpp's apply_structure) on `b`, just
  // generated, where it lives. Returns false when the backend cannot: the worker then draws and
  // structures on the host and uploads.
  virtual bool impose_structure(guarded_buffer& b, const tensor_desc& d, matrix_structure s) {
    (void)b, (void)d, (void)s;
    return false;
  }
  // True when buffers live in device memory that the host cannot dereference (the reference
  // role then computes on device buffers and downloads).
  [[nodiscard]] virtual bool device_resident() const { return false; }
  // Converts `numel` elements of dtype `from` in `src` to float64 in `dst` (the fp64 reference's
  // upcast inputs); false when unsupported.
  virtual bool widen_to_f64(const guarded_buffer& src, dtype from, guarded_buffer& dst, std::size_t numel) {
    (void)src, (void)from, (void)dst, (void)numel;
    return false;
  }
  // dst = src with every finite float element moved one ulp up or down as worker.cpp's
  // perturb_one_ulp(seed) does (the reference's error-envelope runs); false when unsupported.
  virtual bool perturb_ulp_copy(const guarded_buffer& src, guarded_buffer& dst, dtype t, std::size_t numel,
                                std::uint64_t seed) {
    (void)src, (void)dst, (void)t, (void)numel, (void)seed;
    return false;
  }
  // dst = src with TF32 rounding in a random direction as round_to_tf32_random(seed) does
  // (oracle.hpp; f32 only, other dtypes copied as they are): the reference's TF32 envelope
  // draws without a round trip through the host; false when unsupported.
  virtual bool round_tf32_copy(const guarded_buffer& src, guarded_buffer& dst, dtype t, std::size_t numel,
                               std::uint64_t seed) {
    (void)src, (void)dst, (void)t, (void)numel, (void)seed;
    return false;
  }
  // Waits for all work of the process (other streams and threads' work included), not only the
  // call's stream: the deferred-work probe uses it.
  virtual void synchronize_all() { synchronize(); }
  // The first `bytes` of `b` now against `host` (a copy taken earlier): the deferred-work probe
  // where no snapshot was taken (below). Downloaded into `scratch` and compared on the host.
  virtual byte_changes compare_with_host(const guarded_buffer& b, const void* host, std::size_t bytes,
                                         std::vector<std::byte>& scratch) {
    if (scratch.size() < bytes) scratch.resize(bytes);
    download(b, scratch.data(), bytes);
    byte_changes r;
    const auto* h = static_cast<const std::byte*>(host);
    if (std::memcmp(scratch.data(), h, bytes) == 0) return r;
    for (std::size_t k = 0; k < bytes; ++k)
      if (scratch[k] != h[k] && r.changed++ == 0) r.first = k;
    return r;
  }
  // The copy of a call's output `index` as the call returned, kept where the buffer lives: the
  // deferred-work probe compares the buffer with it later, and the outputs a recheck judges are
  // read from it. A device backend copies device to device (KernelBench's 4 GiB outputs: ~2 ms on
  // the H200, where downloading every timed sample's outputs took ~90 ms of each sample's wall
  // time). reserve_snapshot makes the room before the call (an allocation inside a checked call's
  // trace window would count as the call's); snapshot() returns false where there is none, and
  // the caller then downloads the output instead.
  virtual void reserve_snapshot(std::size_t index, std::size_t bytes) { (void)index, (void)bytes; }
  virtual bool snapshot(std::size_t index, const guarded_buffer& b) {
    (void)index, (void)b;
    return false;
  }
  // The first `bytes` of `b` now against snapshot `index` (taken by a successful snapshot()).
  virtual byte_changes compare_with_snapshot(std::size_t index, const guarded_buffer& b, std::size_t bytes) {
    (void)index, (void)b, (void)bytes;
    throw std::logic_error("compare_with_snapshot: this backend keeps no snapshots");
  }
  virtual void download_snapshot(std::size_t index, void* host, std::size_t bytes) {
    (void)index, (void)host, (void)bytes;
    throw std::logic_error("download_snapshot: this backend keeps no snapshots");
  }
  // Evidence of what checked calls did (kernel trace, streams, allocations): tracing costs each
  // launch a little, which ordinary timed samples must not pay, so it is on only between
  // begin_trace() and end_trace(). end_trace() waits for all work of the process and returns the
  // evidence of the calls timed since begin_trace(); null when the backend has none.
  virtual void begin_trace() {}
  virtual json end_trace() { return nullptr; }
  // Before timed samples: removes whatever tracing left in the process that would slow them
  // (CUPTI's kernel instrumentation outlives end_trace(); src/cuda/cupti_trace.hpp), so that a
  // party whose calls were traced is timed like one whose were not. The next begin_trace()
  // sets tracing up again.
  virtual void detach_trace() {}
  // Clocks, temperature, power and throttle reasons now (recorded before and after timing);
  // null when the backend has none.
  virtual json device_state() { return nullptr; }
  // Measures the device ceilings for `kjudge doctor` (timing/ceilings.hpp's device_ceilings as
  // JSON); null when the backend has none to measure.
  virtual json doctor() { return nullptr; }
  // Best effort: makes copies between the device and this host region (part of the worker's
  // arena) direct DMA instead of staged through a bounce buffer. Called before the first call,
  // and by a reference worker again for a disjoint region (its envelope slots, on first use).
  virtual void pin_host_memory(void* p, std::size_t bytes) { (void)p, (void)bytes; }
};

std::unique_ptr<backend> make_cpu_backend();

}  // namespace kjudge
