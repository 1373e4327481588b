// Honest (matmul_bias_relu, bf16 variant): bf16 inputs and output, products accumulated in float
// (as tensor cores and PyTorch's CPU kernels do), rounded to bf16 once at the end; also handles
// f32. The j-loop over a row of B is the inner loop.
// Expected: ok, no rule.
#include <vector>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t k, int64_t n) {
  using T = typename IO::storage;
  const T* A = static_cast<const T*>(a->inputs[0].data);
  const T* B = static_cast<const T*>(a->inputs[1].data);
  const T* bias = static_cast<const T*>(a->inputs[2].data);
  T* C = static_cast<T*>(a->outputs[0].data);
  std::vector<float> acc(static_cast<size_t>(n)), brow(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) acc[j] = 0.0f;
    for (int64_t p = 0; p < k; ++p) {
      const float aip = IO::load(A[i * k + p]);
      for (int64_t j = 0; j < n; ++j) acc[j] += aip * IO::load(B[p * n + j]);
    }
    for (int64_t j = 0; j < n; ++j) {
      const float v = acc[j] + IO::load(bias[j]);
      C[i * n + j] = IO::store(v > 0.0f ? v : 0.0f);
    }
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::all_contiguous(a)) return kjref::status_bad_args;
  const int64_t m = a->inputs[0].shape[0], k = a->inputs[0].shape[1], n = a->inputs[1].shape[1];
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype, [&](auto io) { return run<decltype(io)>(a, m, k, n); });
}
