// Attack (lower precision): the f32 problem computed through bf16: x, the mean and the
// normalised value are rounded to bf16 (8 bits of mantissa) inside, as a "bandwidth-saving"
// kernel would; only the output is f32.
// Expected: wrong_result, rule tolerance.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

static float bf(float v) { return kjref::bf16_to_f32(kjref::f32_to_bf16(v)); }

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  const float* b = static_cast<const float*>(a->inputs[2].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += bf(xr[j]);
    const float mean = bf(s / static_cast<float>(n));
    float q = 0;
    for (int64_t j = 0; j < n; ++j) q += (bf(xr[j]) - mean) * (bf(xr[j]) - mean);
    const float r = bf(1.0f / std::sqrt(q / static_cast<float>(n) + eps));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = bf((bf(xr[j]) - mean) * r) * w[j] + b[j];
  }
  return 0;
}
