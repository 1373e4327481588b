// The judge's own kernels: the blocking kernel and the clock probes of the timer, poison fills,
// the fp64 widening of reference inputs, and the copy of the bandwidth ceiling.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda/detail/kernels.hpp"

namespace kjudge::cuda::detail {

namespace {

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned int sm_id() {
  unsigned int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

constexpr int threads = 256;

int blocks_for(std::size_t n, int per_thread = 1) {
  const std::size_t b =
      (n + static_cast<std::size_t>(threads) * per_thread - 1) / (static_cast<std::size_t>(threads) * per_thread);
  // Grid-stride loops cover the rest; 65535 * 8 blocks keep every SM busy on any GPU.
  return static_cast<int>(b < 1 ? 1 : (b > 65535u * 8u ? 65535u * 8u : b));
}

}  // namespace

__global__ void kj_hold_stream(const volatile int* release, int* outcome, unsigned long long timeout_ns) {
  const unsigned long long t0 = global_ns();
  for (;;) {
    if (*release != 0) {
      *outcome = hold_released;
      return;
    }
    if (global_ns() - t0 > timeout_ns) {
      *outcome = hold_timed_out;
      return;
    }
    // Each read of the mapped flag crosses the bus; polling every ~0.5 us is plenty.
    __nanosleep(500);
  }
}

__global__ void kj_clock_probe(clock_sample* out, unsigned int tag) {
  if (threadIdx.x != 0) return;
  // The two clocks read back to back: cycles / ns between two probes on one SM is its clock.
  const unsigned long long c = clock64();
  const unsigned long long t = global_ns();
  const unsigned int sm = sm_id();
  if (sm < static_cast<unsigned int>(max_sm_slots)) {
    out[sm].cycles = c;
    out[sm].ns = t;
    out[sm].tag = tag;
  }
}

template <class T>
__global__ void kj_fill(T* p, std::size_t n, T v) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = v;
}

template <class T>
__device__ __forceinline__ double widen(T v) {
  return static_cast<double>(v);
}
template <>
__device__ __forceinline__ double widen(__nv_bfloat16 v) {
  return static_cast<double>(__bfloat162float(v));
}
template <>
__device__ __forceinline__ double widen(__half v) {
  return static_cast<double>(__half2float(v));
}

template <class T>
__global__ void kj_widen(const T* src, double* dst, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    dst[i] = widen(src[i]);
}

__global__ void kj_copy16(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n) {
  // Four independent 16-byte loads in flight per thread before the stores.
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

__device__ __forceinline__ unsigned long long splitmix_finalize(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// inputs/distributions.cpp's mix_seed.
__device__ __forceinline__ unsigned long long mix_seed_dev(unsigned long long seed, unsigned long long salt) {
  return splitmix_finalize(splitmix_finalize(seed + 0x9E3779B97F4A7C15ULL) ^
                           (salt * 0xD1B54A32D192ED03ULL + 0x632BE59BD9B4E019ULL));
}

__device__ __forceinline__ std::uint16_t ulp16(std::uint16_t bits, bool up, std::uint16_t exp_mask) {
  if ((bits & exp_mask) == exp_mask) return bits;  // Inf or NaN stay
  const bool negative = (bits & 0x8000u) != 0;
  if (up != negative) {  // away from zero
    const std::uint16_t next = static_cast<std::uint16_t>(bits + 1);
    return (next & exp_mask) == exp_mask ? bits : next;
  }
  if ((bits & 0x7fffu) != 0) return static_cast<std::uint16_t>(bits - 1);
  return static_cast<std::uint16_t>((bits ^ 0x8000u) + 1);  // through zero
}

template <class T>
__global__ void kj_perturb_ulp(const T* src, T* dst, std::size_t n, unsigned long long seed, std::uint16_t exp_mask) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const unsigned long long state = mix_seed_dev(seed, i - i % 64);
    const bool up = ((state >> (i % 64)) & 1u) != 0;
    const T v = src[i];
    if constexpr (sizeof(T) == 2) {
      dst[i] = ulp16(v, up, exp_mask);
    } else if constexpr (sizeof(T) == 4) {
      dst[i] = isfinite(v) ? nextafterf(v, up ? INFINITY : -INFINITY) : v;
    } else {
      dst[i] = isfinite(v) ? nextafter(v, up ? static_cast<double>(INFINITY) : -static_cast<double>(INFINITY)) : v;
    }
  }
}

// oracle.cpp's round_to_tf32_random on the device: each finite f32 off the TF32 grid moves to
// its TF32 neighbour toward zero or away from it, the direction bit i % 64 of
// mix_seed(seed, i - i % 64); a move away that would overflow to infinity stays toward zero.
__global__ void kj_round_tf32_random(const std::uint32_t* src, std::uint32_t* dst, std::size_t n,
                                     unsigned long long seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t bits = src[i];
    if ((bits & 0x7f800000u) == 0x7f800000u || (bits & 0x1fffu) == 0) {  // inf, nan; on the grid
      dst[i] = bits;
      continue;
    }
    const unsigned long long state = mix_seed_dev(seed, i - i % 64);
    const bool up = ((state >> (i % 64)) & 1u) != 0;
    const std::uint32_t toward_zero = bits & ~0x1fffu;
    const std::uint32_t away = toward_zero + 0x2000u;  // carries into the exponent where it must
    dst[i] = up && (away & 0x7f800000u) != 0x7f800000u ? away : toward_zero;
  }
}

__global__ void kj_empty() {}

__global__ void kj_spin_cycles(unsigned long long cycles) {
  const unsigned long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

cudaError_t launch_hold_stream(const volatile int* release, int* outcome, unsigned long long timeout_ns,
                               cudaStream_t s) {
  kj_hold_stream<<<1, 1, 0, s>>>(release, outcome, timeout_ns);
  return cudaGetLastError();
}

cudaError_t launch_clock_probe(clock_sample* out, unsigned int tag, int blocks, cudaStream_t s) {
  kj_clock_probe<<<blocks, 32, 0, s>>>(out, tag);
  return cudaGetLastError();
}

cudaError_t launch_fill_pattern(void* p, std::size_t numel, int elem_bytes, std::uint64_t pattern, cudaStream_t s) {
  if (numel == 0) return cudaSuccess;
  switch (elem_bytes) {
    case 1:
      kj_fill<<<blocks_for(numel), threads, 0, s>>>(static_cast<std::uint8_t*>(p), numel,
                                                    static_cast<std::uint8_t>(pattern));
      break;
    case 2:
      kj_fill<<<blocks_for(numel), threads, 0, s>>>(static_cast<std::uint16_t*>(p), numel,
                                                    static_cast<std::uint16_t>(pattern));
      break;
    case 4:
      kj_fill<<<blocks_for(numel), threads, 0, s>>>(static_cast<std::uint32_t*>(p), numel,
                                                    static_cast<std::uint32_t>(pattern));
      break;
    case 8:
      kj_fill<<<blocks_for(numel), threads, 0, s>>>(static_cast<std::uint64_t*>(p), numel, pattern);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_widen_to_f64(const void* src, widen_src t, double* dst, std::size_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  const int b = blocks_for(n);
  switch (t) {
    case widen_src::f32:
      kj_widen<<<b, threads, 0, s>>>(static_cast<const float*>(src), dst, n);
      break;
    case widen_src::f16:
      kj_widen<<<b, threads, 0, s>>>(static_cast<const __half*>(src), dst, n);
      break;
    case widen_src::bf16:
      kj_widen<<<b, threads, 0, s>>>(static_cast<const __nv_bfloat16*>(src), dst, n);
      break;
    case widen_src::i32:
      kj_widen<<<b, threads, 0, s>>>(static_cast<const std::int32_t*>(src), dst, n);
      break;
    case widen_src::i64:
      kj_widen<<<b, threads, 0, s>>>(static_cast<const long long*>(src), dst, n);
      break;
    case widen_src::u8:
      kj_widen<<<b, threads, 0, s>>>(static_cast<const std::uint8_t*>(src), dst, n);
      break;
    case widen_src::boolean:
      kj_widen<<<b, threads, 0, s>>>(static_cast<const std::uint8_t*>(src), dst, n);
      break;
  }
  return cudaGetLastError();
}

// Byte differences between a and b: 16-byte words (both 16-byte aligned: arena slots and guarded
// buffers are) and a byte tail. Equal buffers, the usual case, take no atomic at all.
__global__ void kj_count_changed(const uint4* a, const uint4* b, std::size_t n16, const unsigned char* ta,
                                 const unsigned char* tb, std::size_t tail, unsigned long long* out) {
  unsigned long long count = 0, first = ~0ull;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t w = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; w < n16; w += stride) {
    const uint4 x = a[w], y = b[w];
    if (x.x == y.x && x.y == y.y && x.z == y.z && x.w == y.w) continue;
    const unsigned int xs[4] = {x.x, x.y, x.z, x.w}, ys[4] = {y.x, y.y, y.z, y.w};
    for (int k = 0; k < 4; ++k)
      for (int byte = 0; byte < 4; ++byte)
        if (((xs[k] ^ ys[k]) >> (8 * byte)) & 0xffu) {
          if (count++ == 0) first = w * 16 + static_cast<std::size_t>(4 * k + byte);
        }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0)
    for (std::size_t t = 0; t < tail; ++t)
      if (ta[t] != tb[t]) {
        ++count;
        first = min(first, static_cast<unsigned long long>(n16 * 16 + t));
      }
  if (count > 0) {
    atomicAdd(&out[0], count);
    atomicMin(&out[1], first);
  }
}

cudaError_t launch_count_changed(const void* a, const void* b, std::size_t bytes, unsigned long long* out,
                                 cudaStream_t s) {
  const std::size_t n16 = bytes / 16;
  const int want = blocks_for(n16, 4);
  const int blocks = want > 4096 ? 4096 : want;  // grid-stride beyond; blocks_for gives at least 1
  kj_count_changed<<<blocks, threads, 0, s>>>(static_cast<const uint4*>(a), static_cast<const uint4*>(b), n16,
                                              static_cast<const unsigned char*>(a) + n16 * 16,
                                              static_cast<const unsigned char*>(b) + n16 * 16, bytes % 16, out);
  return cudaGetLastError();
}

cudaError_t launch_copy16(const void* src, void* dst, std::size_t bytes, int blocks, cudaStream_t s) {
  kj_copy16<<<blocks, threads, 0, s>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), bytes / 16);
  return cudaGetLastError();
}

cudaError_t launch_perturb_ulp_copy(const void* src, void* dst, std::size_t n, int elem, bool bf16, std::uint64_t seed,
                                    cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  const int b = blocks_for(n);
  switch (elem) {
    case 2:
      kj_perturb_ulp<<<b, threads, 0, s>>>(static_cast<const std::uint16_t*>(src), static_cast<std::uint16_t*>(dst), n,
                                           seed, static_cast<std::uint16_t>(bf16 ? 0x7f80u : 0x7c00u));
      break;
    case 4:
      kj_perturb_ulp<<<b, threads, 0, s>>>(static_cast<const float*>(src), static_cast<float*>(dst), n, seed, 0);
      break;
    case 8:
      kj_perturb_ulp<<<b, threads, 0, s>>>(static_cast<const double*>(src), static_cast<double*>(dst), n, seed, 0);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_round_tf32_copy(const float* src, float* dst, std::size_t n, std::uint64_t seed, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  kj_round_tf32_random<<<blocks_for(n), threads, 0, s>>>(reinterpret_cast<const std::uint32_t*>(src),
                                                         reinterpret_cast<std::uint32_t*>(dst), n, seed);
  return cudaGetLastError();
}

cudaError_t launch_empty(cudaStream_t s) {
  kj_empty<<<1, 32, 0, s>>>();
  return cudaGetLastError();
}

cudaError_t launch_spin_cycles(unsigned long long cycles, int blocks, cudaStream_t s) {
  kj_spin_cycles<<<blocks, 32, 0, s>>>(cycles);
  return cudaGetLastError();
}

}  // namespace kjudge::cuda::detail
