// Honest (matmul_bias_relu): cache blocking (64 x 64 x 256 tiles) with a packed copy of the B
// tile in a thread_local buffer, accumulation in a local C tile, bias and ReLU on the way out;
// ragged edges handled.
// Expected: ok, no rule.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], k = a->inputs[0].shape[1], n = a->inputs[1].shape[1];
  const float* A = static_cast<const float*>(a->inputs[0].data);
  const float* B = static_cast<const float*>(a->inputs[1].data);
  const float* bias = static_cast<const float*>(a->inputs[2].data);
  float* C = static_cast<float*>(a->outputs[0].data);
  constexpr int64_t bm = 64, bn = 64, bk = 256;
  thread_local std::vector<float> pack, acc;
  pack.resize(static_cast<size_t>(bk * bn));
  acc.resize(static_cast<size_t>(bm * bn));
  for (int64_t i0 = 0; i0 < m; i0 += bm)
    for (int64_t j0 = 0; j0 < n; j0 += bn) {
      const int64_t im = std::min(bm, m - i0), jn = std::min(bn, n - j0);
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t p0 = 0; p0 < k; p0 += bk) {
        const int64_t pk = std::min(bk, k - p0);
        for (int64_t p = 0; p < pk; ++p) std::memcpy(&pack[p * bn], B + (p0 + p) * n + j0, static_cast<size_t>(jn) * 4);
        for (int64_t i = 0; i < im; ++i)
          for (int64_t p = 0; p < pk; ++p) {
            const float aip = A[(i0 + i) * k + p0 + p];
            for (int64_t j = 0; j < jn; ++j) acc[i * bn + j] += aip * pack[p * bn + j];
          }
      }
      for (int64_t i = 0; i < im; ++i)
        for (int64_t j = 0; j < jn; ++j) {
          const float v = acc[i * bn + j] + bias[j0 + j];
          C[(i0 + i) * n + j0 + j] = v > 0.0f ? v : 0.0f;
        }
    }
  return 0;
}
