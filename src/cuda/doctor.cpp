// `kjudge doctor` on cuda: the device ceilings every result is compared with (DESIGN.md §4,
// speed of light). Copy bandwidth counts bytes read + bytes written over a buffer far larger
// than L2; matrix rates come from cuBLAS on random (not zero) data at 8192^3.
#include "cuda/doctor.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/detail/kernels.hpp"
#include "inputs/distributions.hpp"

namespace kjudge::cuda {

namespace {

using json = nlohmann::json;

// 2 GiB per copy buffer: 35x the H200's 60 MB L2, ~1 ms per copy at 4 TB/s.
constexpr std::size_t k_copy_bytes = 2ull << 30;
constexpr int k_copy_reps = 30;
// cuBLAS: 8192^3 (1.1 TFLOP per product; ~20 ms in fp32 SIMT, ~1.4 ms in bf16 on an H200).
constexpr int k_gemm_n = 8192;
constexpr int k_gemm_warmup = 2;
constexpr int k_gemm_reps = 8;

struct spread {
  double median = 0, min = 0, max = 0;
  int n = 0;
};

spread summarize(std::vector<double> v) {
  spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.n = static_cast<int>(v.size());
  s.min = v.front();
  s.max = v.back();
  s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  return s;
}

json spread_json(const spread& s, const char* unit) {
  return json{{"median", s.median}, {"min", s.min}, {"max", s.max}, {"n", s.n}, {"unit", unit}};
}

// Times `launch` reps times with events around each call, seconds per call.
template <class F>
std::vector<double> time_each(cudaStream_t s, int warmup, int reps, F&& launch) {
  event a, b;
  for (int i = 0; i < warmup; ++i) launch();
  KJ_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> out;
  for (int i = 0; i < reps; ++i) {
    KJ_CUDA_CHECK(cudaEventRecord(a.get(), s));
    launch();
    KJ_CUDA_CHECK(cudaEventRecord(b.get(), s));
    KJ_CUDA_CHECK(cudaEventSynchronize(b.get()));
    float ms = 0;
    KJ_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
    out.push_back(ms * 1e-3);
  }
  return out;
}

void fill_normal(void* p, std::size_t n, bool bf16, std::uint64_t seed, cudaStream_t s) {
  detail::gen_params g;
  const std::uint64_t key = mix_seed(seed, 0x6b6a7564ULL);
  g.k0 = static_cast<std::uint32_t>(key);
  g.k1 = static_cast<std::uint32_t>(key >> 32);
  g.dist = detail::gen_dist::normal;
  KJ_CUDA_CHECK(bf16 ? detail::launch_generate_bf16(static_cast<std::uint16_t*>(p), n, g, s)
                     : detail::launch_generate_f32(static_cast<float*>(p), n, g, s));
}

}  // namespace

json measure_ceilings(int device) {
  KJ_CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  KJ_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  stream st;
  const cudaStream_t s = st.get();
  json details;

  // Copy bandwidth: a 16-byte-vector copy kernel and cudaMemcpyAsync device-to-device.
  {
    device_buffer src(k_copy_bytes), dst(k_copy_bytes);
    KJ_CUDA_CHECK(cudaMemsetAsync(src.get(), 0x5a, k_copy_bytes, s));
    KJ_CUDA_CHECK(cudaMemsetAsync(dst.get(), 0xa5, k_copy_bytes, s));
    const int blocks = prop.multiProcessorCount * 8;  // 8 x 256 threads per SM: full occupancy
    auto gbps = [](std::vector<double> t) {
      for (double& x : t) x = 2.0 * static_cast<double>(k_copy_bytes) / x / 1e9;
      return summarize(std::move(t));
    };
    const spread kernel = gbps(time_each(s, 3, k_copy_reps, [&] {
      KJ_CUDA_CHECK(detail::launch_copy16(src.get(), dst.get(), k_copy_bytes, blocks, s));
    }));
    const spread memcpy_spread = gbps(time_each(s, 3, k_copy_reps, [&] {
      KJ_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), k_copy_bytes, cudaMemcpyDeviceToDevice, s));
    }));
    details["copy_kernel_gbps"] = spread_json(kernel, "GB/s");
    details["copy_memcpy_gbps"] = spread_json(memcpy_spread, "GB/s");
    details["copy_bytes"] = k_copy_bytes;
    details["copy_method"] = "median over " + std::to_string(k_copy_reps) +
                             " copies of 2 GiB, each timed with events; bytes read + written; the ceiling is the "
                             "faster of a 16-byte-vector copy kernel and cudaMemcpyAsync device-to-device";
    details["copy_gbps_source"] = kernel.median >= memcpy_spread.median ? "kernel" : "cudaMemcpyAsync";
    details["copy_gbps_value"] = std::max(kernel.median, memcpy_spread.median);
  }

  // Matrix rates through cuBLAS (column-major, no transposes; the layout does not matter for
  // square products).
  json gemm;
  double fp32 = 0, tf32 = 0, bf16 = 0;
  {
    const std::size_t n = k_gemm_n, elems = n * n;
    device_buffer a(elems * 4), b(elems * 4), c(elems * 4);
    device_buffer a16(elems * 2), b16(elems * 2);
    fill_normal(a.get(), elems, false, 1, s);
    fill_normal(b.get(), elems, false, 2, s);
    fill_normal(a16.get(), elems, true, 3, s);
    fill_normal(b16.get(), elems, true, 4, s);
    cublas_handle h;
    KJ_CUDA_CHECK(cublasSetStream(h.get(), s));
    const float one = 1.0f, zero = 0.0f;
    const int ni = k_gemm_n;
    const double flop = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    auto rate = [&](std::vector<double> t) {
      for (double& x : t) x = flop / x / 1e9;
      return summarize(std::move(t));
    };
    auto run = [&](cublasComputeType_t ct, cudaDataType_t in_type, const void* pa, const void* pb) {
      KJ_CUDA_CHECK(cublasGemmEx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, pa, in_type, ni, pb, in_type, ni,
                                 &zero, c.get(), CUDA_R_32F, ni, ct, CUBLAS_GEMM_DEFAULT));
    };
    KJ_CUDA_CHECK(cublasSetMathMode(h.get(), CUBLAS_PEDANTIC_MATH));
    const spread r32 = rate(time_each(s, k_gemm_warmup, k_gemm_reps,
                                      [&] { run(CUBLAS_COMPUTE_32F_PEDANTIC, CUDA_R_32F, a.get(), b.get()); }));
    KJ_CUDA_CHECK(cublasSetMathMode(h.get(), CUBLAS_DEFAULT_MATH));
    const spread rtf = rate(time_each(s, k_gemm_warmup, k_gemm_reps,
                                      [&] { run(CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, a.get(), b.get()); }));
    const spread rbf = rate(
        time_each(s, k_gemm_warmup, k_gemm_reps, [&] { run(CUBLAS_COMPUTE_32F, CUDA_R_16BF, a16.get(), b16.get()); }));
    fp32 = r32.median;
    tf32 = rtf.median;
    bf16 = rbf.median;
    gemm["fp32_gflops"] = spread_json(r32, "GFLOP/s");
    gemm["tf32_gflops"] = spread_json(rtf, "GFLOP/s");
    gemm["bf16_gflops"] = spread_json(rbf, "GFLOP/s");
    int ver = 0;
    cublasGetVersion(h.get(), &ver);
    gemm["cublas_version"] = ver;
    gemm["method"] = "cublasGemmEx " + std::to_string(k_gemm_n) +
                     "^3, N/N, f32 output, inputs N(0,1) from the judge's "
                     "generator; fp32 = CUBLAS_COMPUTE_32F_PEDANTIC, tf32 = CUBLAS_COMPUTE_32F_FAST_TF32, bf16 = bf16 "
                     "inputs with CUBLAS_COMPUTE_32F; median of " +
                     std::to_string(k_gemm_reps) + " after " + std::to_string(k_gemm_warmup) + " warm-ups";
  }
  details["gemm"] = gemm;
  char bus[32] = {0};
  cudaDeviceGetPCIBusId(bus, sizeof bus, device);
  details["pci_bus_id"] = bus;
  details["sms"] = prop.multiProcessorCount;
  details["l2_bytes"] = prop.l2CacheSize;
  details["memory_bytes"] = prop.totalGlobalMem;
  return json{{"schema", "kjudge.ceilings/1"},
              {"device", "cuda"},
              {"identity", std::string(prop.name) + " (" + std::to_string(prop.multiProcessorCount) + " SMs, " +
                               std::to_string(prop.totalGlobalMem >> 20) + " MiB)"},
              {"copy_gbps", details["copy_gbps_value"]},
              {"fp32_gflops", fp32},
              {"tf32_gflops", tf32},
              {"bf16_gflops", bf16},
              {"details", details}};
}

}  // namespace kjudge::cuda
