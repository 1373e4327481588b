// Launch wrappers of the judge's own kernels (kernels.cu, generate.cu). Plain C++ declarations
// so that host translation units need no nvcc; each returns the launch's cudaError_t.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "inputs/matrix_profile_shape.hpp"

namespace kjudge::cuda::detail {

// One SM's clocks at a probe: clock64 (SM cycles) and %globaltimer (ns), tagged with the sample
// so that a slot no block of this probe visited is recognised.
struct clock_sample {
  unsigned long long cycles;
  unsigned long long ns;
  unsigned int tag;
  unsigned int pad;
};
// Slots per probe: one per SM id (%smid < %nsmid, well under this on any GPU).
inline constexpr int max_sm_slots = 1024;

// Outcome written by the blocking kernel into mapped host memory.
inline constexpr int hold_released = 1;
inline constexpr int hold_timed_out = 2;

// Spins until *release != 0 (host-mapped, set by the host once the start event, the call and
// the stop event are queued) or until timeout_ns of %globaltimer have passed.
cudaError_t launch_hold_stream(const volatile int* release, int* outcome, unsigned long long timeout_ns,
                               cudaStream_t s);
// `blocks` blocks of one warp; each records its SM's clocks into out[%smid].
cudaError_t launch_clock_probe(clock_sample* out, unsigned int tag, int blocks, cudaStream_t s);
// Writes `pattern` (elem_bytes = 1, 2, 4 or 8 of it) into numel elements at p.
cudaError_t launch_fill_pattern(void* p, std::size_t numel, int elem_bytes, std::uint64_t pattern, cudaStream_t s);

// Source dtype codes of launch_widen_to_f64 (the order of kjudge::dtype does not matter here).
enum class widen_src : int { f32, f16, bf16, i32, i64, u8, boolean };
cudaError_t launch_widen_to_f64(const void* src, widen_src t, double* dst, std::size_t numel, cudaStream_t s);

// dst = src with every finite float element moved one ulp up or down, the direction bit i % 64
// of mix_seed(seed, i - i % 64): worker.cpp's perturb_one_ulp on the device (the reference's
// error-envelope runs). elem: 4 = f32, 8 = f64, 2 = bf16 (bf16 = true) or f16.
cudaError_t launch_perturb_ulp_copy(const void* src, void* dst, std::size_t numel, int elem, bool bf16,
                                    std::uint64_t seed, cudaStream_t s);

// dst = src with every finite f32 off the TF32 grid moved to one of its two TF32 neighbours, the
// direction bit i % 64 of mix_seed(seed, i - i % 64): oracle.cpp's round_to_tf32_random on the
// device (the reference's TF32 envelope draws), bit for bit.
cudaError_t launch_round_tf32_copy(const float* src, float* dst, std::size_t numel, std::uint64_t seed, cudaStream_t s);

// dst[i] = src[i] for `bytes` bytes (a multiple of 16, both 16-byte aligned): the copy ceiling.
cudaError_t launch_copy16(const void* src, void* dst, std::size_t bytes, int blocks, cudaStream_t s);
// out[0] += the number of bytes where a and b differ over `bytes` bytes, out[1] = min(out[1], the
// first such offset): the deferred-work probe compares on the device (out: two device words the
// caller sets to 0 and ~0 first).
cudaError_t launch_count_changed(const void* a, const void* b, std::size_t bytes, unsigned long long* out,
                                 cudaStream_t s);
// An empty kernel (timer floor tests).
cudaError_t launch_empty(cudaStream_t s);
// Spins `cycles` SM cycles in one block (timer stability tests; a fixed amount of work).
cudaError_t launch_spin_cycles(unsigned long long cycles, int blocks, cudaStream_t s);

// Distribution codes of the device generator (inputs/distributions.hpp's names).
enum class gen_dist : int { uniform, normal, negative, wide, offset, heavy, small, large };
struct gen_params {
  gen_dist dist = gen_dist::normal;
  std::uint32_t k0 = 0, k1 = 0;  // the 64-bit key of fill_distribution, split
  float offset = 0.0f;           // normal draws become offset + scale * z ...
  float scale = 1.0f;
  bool negative = false;  // ... or -(|z| + 1e-3)
};
// Fills numel f32 / bf16 (uint16 storage) elements with the values of inputs/distributions.cpp's
// single-precision generator, bit for bit (generate.cu is compiled without FMA contraction).
cudaError_t launch_generate_f32(float* out, std::size_t numel, const gen_params& p, cudaStream_t s);
cudaError_t launch_generate_bf16(std::uint16_t* out, std::size_t numel, const gen_params& p, cudaStream_t s);
// Integer and bool tensors: numel elements of `elem_bytes` (1: u8 and bool, 4: i32, 8: i64), each
// uniform over [lo, lo + span - 1] as inputs/distributions.cpp's generate_ints draws them (span
// <= 2^32; p.k0/k1 the key, the distribution fields unused).
// inputs/distributions.cpp's apply_structure on the device: over matrices of order n (numel / n^2
// of them), code 1 zeroes below the diagonal (upper), 2 above it (lower), 3 copies each element
// above the diagonal to its mirror below (symmetric); elements of 1, 2, 4 or 8 bytes.
cudaError_t launch_impose_structure(void* data, std::size_t elem_bytes, std::size_t numel, std::size_t n, int code,
                                    cudaStream_t s);
cudaError_t launch_generate_int(void* out, std::size_t elem_bytes, std::size_t numel, const gen_params& p,
                                std::int64_t lo, std::uint64_t span, cudaStream_t s);
// A matrix profile on f32 matrices of order shape.n (batch of them): out[b][i][j] =
// shape_profile_element(shape, labels[b], i, j, ...) of the normal draw z and the noise e (null
// where no matrix reads it); shape's vectors are device pointers. out must not alias z or e.
cudaError_t launch_shape_profile(const float* z, const float* e, float* out, const profile_label* labels,
                                 const profile_shape& shape, std::size_t batch, cudaStream_t s);

}  // namespace kjudge::cuda::detail
