// The input generator on the device: inputs/distributions.cpp's single-precision generator
// (block_f32 and the helpers of inputs/counter_rng.hpp) transcribed for the GPU, so that
// a call's multi-hundred-MB inputs are drawn where they are used instead of on the host.
//
// Bit identity with the host: every value is a function of (key, counter) through integer
// operations and IEEE +, -, *, / and int<->float conversions, which are correctly rounded on both
// sides. The host keeps a*b+c as two roundings (fp-contract=off); this file is compiled with
// -fmad=false for the same reason, and division and conversions are the IEEE ones by default.
// tests/gpu checks the identity for every distribution, f32 and bf16, odd lengths included. A
// change to the host generator must be made here too (that test fails otherwise).
#include "cuda/detail/kernels.hpp"

namespace kjudge::cuda::detail {

namespace {

constexpr unsigned int k_block = 256;  // distributions.cpp: values come in blocks of 256
constexpr unsigned int k_half = k_block / 2;
// distributions.cpp's double constants, rounded to float exactly as its static_casts do.
constexpr float k_wide_decades = static_cast<float>(8.0);
constexpr float k_wide_min_decade = static_cast<float>(-4.0);
constexpr float k_log2_10 = static_cast<float>(3.321928094887362);

__device__ __forceinline__ std::uint32_t hash32(std::uint32_t c, std::uint32_t k0, std::uint32_t k1) {
  std::uint32_t x = c * 0x9E3779B9u + k0;
  x ^= x >> 16;
  x *= 0x21f0aaadu;
  x ^= x >> 15;
  x *= 0x735a2d97u;
  x ^= x >> 15;
  x ^= k1;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

__device__ __forceinline__ float unit_co_f(std::uint32_t x) {
  return static_cast<float>(static_cast<std::int32_t>(x >> 8)) * 0x1p-24f;
}
__device__ __forceinline__ float unit_oc_f(std::uint32_t x) {
  return static_cast<float>(static_cast<std::int32_t>(x >> 8) + 1) * 0x1p-24f;
}
__device__ __forceinline__ float unit_oo_f(std::uint32_t x) {
  return (static_cast<float>(static_cast<std::int32_t>(x >> 8)) + 0.5f) * 0x1p-24f;
}

__device__ __forceinline__ float det_sqrt_f(float x) {
  float y = __uint_as_float(0x5f3759dfu - (__float_as_uint(x) >> 1));
  const float half = 0.5f * x;
  y = y * (1.5f - half * y * y);
  y = y * (1.5f - half * y * y);
  y = y * (1.5f - half * y * y);
  return x * y;
}

__device__ __forceinline__ float det_log_f(float x) {
  const std::uint32_t b = __float_as_uint(x);
  std::int32_t e = static_cast<std::int32_t>(b >> 23) - 127;
  float m = __uint_as_float((b & 0x007fffffu) | 0x3f800000u);
  const std::int32_t big = m > 1.41421356f ? 1 : 0;
  m = __uint_as_float(__float_as_uint(m) - (static_cast<std::uint32_t>(big) << 23));
  e += big;
  const float s = (m - 1.0f) / (m + 1.0f);
  const float s2 = s * s;
  float p = 1.0f / 9.0f;
  p = p * s2 + 1.0f / 7.0f;
  p = p * s2 + 1.0f / 5.0f;
  p = p * s2 + 1.0f / 3.0f;
  p = p * s2 + 1.0f;
  return static_cast<float>(e) * 0.693147180559945f + 2.0f * s * p;
}

__device__ __forceinline__ float det_exp2_f(float y) {
  const std::int32_t n = static_cast<std::int32_t>(y + 128.5f) - 128;
  const float g = (y - static_cast<float>(n)) * 0.693147180559945f;
  float p = 1.0f / 5040.0f;
  p = p * g + 1.0f / 720.0f;
  p = p * g + 1.0f / 120.0f;
  p = p * g + 1.0f / 24.0f;
  p = p * g + 1.0f / 6.0f;
  p = p * g + 0.5f;
  p = p * g + 1.0f;
  p = p * g + 1.0f;
  return p * __uint_as_float(static_cast<std::uint32_t>(n + 127) << 23);
}

__device__ __forceinline__ void det_sincos_turn_f(float u, float& sin_out, float& cos_out) {
  const float t = u * 4.0f;
  const std::int32_t q = static_cast<std::int32_t>(t + 0.5f);
  const float phi = (t - static_cast<float>(q)) * 1.57079632679490f;
  const float p2 = phi * phi;
  float s = 1.0f / 362880.0f;
  s = s * p2 - 1.0f / 5040.0f;
  s = s * p2 + 1.0f / 120.0f;
  s = s * p2 - 1.0f / 6.0f;
  s = s * p2 + 1.0f;
  s = s * phi;
  float c = 1.0f / 40320.0f;
  c = c * p2 - 1.0f / 720.0f;
  c = c * p2 + 1.0f / 24.0f;
  c = c * p2 - 0.5f;
  c = c * p2 + 1.0f;
  const std::uint32_t swap = 0u - static_cast<std::uint32_t>(q & 1);
  const std::uint32_t sb = __float_as_uint(s);
  const std::uint32_t cb = __float_as_uint(c);
  const std::uint32_t sv = (cb & swap) | (sb & ~swap);
  const std::uint32_t cv = (sb & swap) | (cb & ~swap);
  sin_out = __uint_as_float(sv ^ (static_cast<std::uint32_t>(q & 2) << 30));
  cos_out = __uint_as_float(cv ^ (static_cast<std::uint32_t>((q + 1) & 2) << 30));
}

__device__ __forceinline__ float shape_normal(float z, const gen_params& p) {
  if (p.negative) return -(fabsf(z) + 1e-3f);
  if (p.offset != 0.0f || p.scale != 1.0f) return p.offset + p.scale * z;
  return z;
}

__device__ __forceinline__ void store(float* out, std::size_t i, float v, bool) {
  out[i] = v;
}
__device__ __forceinline__ void store(std::uint16_t* out, std::size_t i, float v, bool uniform) {
  // Round to nearest even (generated values are finite); U[0,1) stays below 1.
  const std::uint32_t u = __float_as_uint(v);
  std::uint16_t h = static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  if (uniform && h >= 0x3f80u) h = 0x3f7fu;
  out[i] = h;
}

// One thread per counter pair of a 256-value block: for the normal family it produces elements
// base+p (cosine) and base+128+p (sine) from counters base+2p, base+2p+1, as block_f32 does; for
// the per-element distributions it produces elements base+p and base+128+p from their own
// counters.
template <class T>
__global__ void kj_generate(T* out, std::size_t n, gen_params p) {
  const std::size_t pairs = (n + k_block - 1) / k_block * k_half;
  for (std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; t < pairs;
       t += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t base = t / k_half * k_block;
    const std::uint32_t q = static_cast<std::uint32_t>(t % k_half);
    const std::uint32_t hi = static_cast<std::uint32_t>(base >> 32);
    const std::uint32_t k0 = p.k0 + hi * 0x85ebca6bu;
    const std::uint32_t k1 = p.k1;
    const std::uint32_t lo = static_cast<std::uint32_t>(base);
    const std::size_t e0 = base + q, e1 = base + k_half + q;
    const bool uniform = p.dist == gen_dist::uniform;
    switch (p.dist) {
      case gen_dist::uniform:
        if (e0 < n) store(out, e0, unit_co_f(hash32(lo + q, k0, k1)), uniform);
        if (e1 < n) store(out, e1, unit_co_f(hash32(lo + k_half + q, k0, k1)), uniform);
        break;
      case gen_dist::wide: {
        const std::uint32_t c[2] = {lo + q, lo + k_half + q};
        const std::size_t e[2] = {e0, e1};
        for (int j = 0; j < 2; ++j) {
          if (e[j] >= n) continue;
          const std::uint32_t x = hash32(c[j], k0, k1);
          const float mag = det_exp2_f((unit_co_f(x) * k_wide_decades + k_wide_min_decade) * k_log2_10);
          store(out, e[j], (x & 1u) != 0 ? -mag : mag, false);
        }
        break;
      }
      case gen_dist::heavy: {
        const std::uint32_t c[2] = {lo + q, lo + k_half + q};
        const std::size_t e[2] = {e0, e1};
        for (int j = 0; j < 2; ++j) {
          if (e[j] >= n) continue;
          const float u = unit_oo_f(hash32(c[j], k0, k1));
          store(out, e[j], (2.0f * u - 1.0f) / det_sqrt_f(2.0f * u * (1.0f - u)), false);
        }
        break;
      }
      default: {
        const float u1 = unit_oc_f(hash32(lo + 2 * q, k0, k1));
        const float u2 = unit_co_f(hash32(lo + 2 * q + 1, k0, k1));
        const float r = det_sqrt_f(-2.0f * det_log_f(u1));
        float s, c;
        det_sincos_turn_f(u2, s, c);
        if (e0 < n) store(out, e0, shape_normal(r * c, p), false);
        if (e1 < n) store(out, e1, shape_normal(r * s, p), false);
        break;
      }
    }
  }
}

// inputs/counter_rng.hpp's uniform_int and distributions.cpp's generate_ints: element i
// from counter i, the counter's high half folded into the key.
template <class T>
__global__ void kj_generate_int(T* out, std::size_t n, std::uint32_t key0, std::uint32_t key1, std::int64_t lo,
                                std::uint64_t span) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t k0 = key0 + static_cast<std::uint32_t>(i >> 32) * 0x85ebca6bu;
    const std::uint32_t x = hash32(static_cast<std::uint32_t>(i), k0, key1);
    out[i] = static_cast<T>(lo + static_cast<std::int64_t>((static_cast<std::uint64_t>(x) * span) >> 32));
  }
}

template <class T>
cudaError_t launch_int(T* out, std::size_t n, const gen_params& p, std::int64_t lo, std::uint64_t span,
                       cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  const int threads = 256;
  std::size_t blocks = (n + threads - 1) / threads;
  if (blocks > 65535u * 4u) blocks = 65535u * 4u;
  kj_generate_int<<<static_cast<unsigned int>(blocks), threads, 0, s>>>(out, n, p.k0, p.k1, lo, span);
  return cudaGetLastError();
}

// apply_structure: one thread per element below/above the diagonal's side it writes; reads only
// elements it never writes (the upper triangle for symmetric), so no ordering is needed.
template <class T>
__global__ void kj_impose_structure(T* a, std::size_t numel, std::size_t n, int code) {
  for (std::size_t e = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; e < numel;
       e += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t c = e % n, r = (e / n) % n;
    if (code == 1 && r > c)
      a[e] = T(0);
    else if (code == 2 && c > r)
      a[e] = T(0);
    else if (code == 3 && r > c)
      a[e] = a[e - (r * n + c) + c * n + r];
  }
}

template <class T>
cudaError_t launch_structure(T* a, std::size_t numel, std::size_t n, int code, cudaStream_t s) {
  if (numel == 0 || n == 0) return cudaSuccess;
  const int threads = 256;
  std::size_t blocks = (numel + threads - 1) / threads;
  if (blocks > 65535u * 4u) blocks = 65535u * 4u;
  kj_impose_structure<<<static_cast<unsigned int>(blocks), threads, 0, s>>>(a, numel, n, code);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch(T* out, std::size_t n, const gen_params& p, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  const std::size_t pairs = (n + k_block - 1) / k_block * k_half;
  const int threads = 256;
  std::size_t blocks = (pairs + threads - 1) / threads;
  if (blocks > 65535u * 4u) blocks = 65535u * 4u;
  kj_generate<<<static_cast<unsigned int>(blocks), threads, 0, s>>>(out, n, p);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_generate_f32(float* out, std::size_t numel, const gen_params& p, cudaStream_t s) {
  return launch(out, numel, p, s);
}

cudaError_t launch_generate_bf16(std::uint16_t* out, std::size_t numel, const gen_params& p, cudaStream_t s) {
  return launch(out, numel, p, s);
}

cudaError_t launch_generate_int(void* out, std::size_t elem_bytes, std::size_t numel, const gen_params& p,
                                std::int64_t lo, std::uint64_t span, cudaStream_t s) {
  switch (elem_bytes) {
    case 1:
      return launch_int(static_cast<std::uint8_t*>(out), numel, p, lo, span, s);
    case 4:
      return launch_int(static_cast<std::int32_t*>(out), numel, p, lo, span, s);
    case 8:
      return launch_int(static_cast<std::int64_t*>(out), numel, p, lo, span, s);
    default:
      return cudaErrorInvalidValue;
  }
}

namespace {

__global__ void shape_profile_kernel(const float* z, const float* e, float* out, const profile_label* labels,
                                     profile_shape p, std::size_t total) {
  const std::size_t nn = p.n * p.n;
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t b = k / nn, r = k % nn, i = r / p.n, j = r % p.n;
    const profile_label l = labels[b];
    const float* row = z + (k - j);
    const double back = j >= p.rank ? static_cast<double>(row[j - p.rank]) : 0.0;
    const double noise = profile_needs_noise(l) ? static_cast<double>(e[k]) : 0.0;
    out[k] = static_cast<float>(shape_profile_element(p, l, i, j, row[j], row[0], back, noise));
  }
}

}  // namespace

cudaError_t launch_shape_profile(const float* z, const float* e, float* out, const profile_label* labels,
                                 const profile_shape& shape, std::size_t batch, cudaStream_t s) {
  const std::size_t total = batch * shape.n * shape.n;
  if (total == 0) return cudaSuccess;
  const unsigned int threads = 256;
  const std::size_t want = (total + threads - 1) / threads;
  const unsigned int blocks = static_cast<unsigned int>(want < 65535u * 8u ? want : 65535u * 8u);
  shape_profile_kernel<<<blocks, threads, 0, s>>>(z, e, out, labels, shape, total);
  return cudaGetLastError();
}

cudaError_t launch_impose_structure(void* data, std::size_t elem_bytes, std::size_t numel, std::size_t n, int code,
                                    cudaStream_t s) {
  // Bytes are copied or zeroed as unsigned integers of the element's width: the same bytes as
  // the host's memcpy/memset whatever the dtype.
  switch (elem_bytes) {
    case 1:
      return launch_structure(static_cast<std::uint8_t*>(data), numel, n, code, s);
    case 2:
      return launch_structure(static_cast<std::uint16_t*>(data), numel, n, code, s);
    case 4:
      return launch_structure(static_cast<std::uint32_t*>(data), numel, n, code, s);
    case 8:
      return launch_structure(static_cast<std::uint64_t*>(data), numel, n, code, s);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace kjudge::cuda::detail
