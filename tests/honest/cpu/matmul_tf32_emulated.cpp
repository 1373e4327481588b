// Honest (matmul_bias_relu, f32, TF32 permitted): what a TF32 tensor-core matmul computes, on the
// cpu: a and b rounded to TF32 (10 mantissa bits, round to nearest even, truncating the way
// hardware conversion may differs by at most one TF32 ulp), products and sums in float. The
// problem permits TF32 (tf32_allowed), so this must pass; with `--no-tf32` it must fail.
// Expected: ok, no rule.
#include <cstdint>
#include <cstring>
#include <vector>

#include "kjudge/candidate.h"

static float tf32(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, 4);
  if ((b & 0x7f800000u) != 0x7f800000u) b = (b + 0xfffu + ((b >> 13) & 1u)) & ~0x1fffu;
  std::memcpy(&v, &b, 4);
  return v;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], k = a->inputs[0].shape[1], n = a->inputs[1].shape[1];
  const float* A = static_cast<const float*>(a->inputs[0].data);
  const float* B = static_cast<const float*>(a->inputs[1].data);
  const float* bias = static_cast<const float*>(a->inputs[2].data);
  float* C = static_cast<float*>(a->outputs[0].data);
  std::vector<float> bt(static_cast<size_t>(k * n)), row(static_cast<size_t>(n));
  for (int64_t i = 0; i < k * n; ++i) bt[static_cast<size_t>(i)] = tf32(B[i]);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) row[static_cast<size_t>(j)] = 0.0f;
    for (int64_t p = 0; p < k; ++p) {
      const float aip = tf32(A[i * k + p]);
      const float* br = &bt[static_cast<size_t>(p * n)];
      for (int64_t j = 0; j < n; ++j) row[static_cast<size_t>(j)] += aip * br[j];
    }
    for (int64_t j = 0; j < n; ++j) {
      const float v = row[static_cast<size_t>(j)] + bias[j];
      C[i * n + j] = v > 0.0f ? v : 0.0f;
    }
  }
  return 0;
}

KJ_EXPORT const char* kj_info(void) { return "family=tf32-emulated;notes=inputs rounded to TF32, float accumulation"; }
