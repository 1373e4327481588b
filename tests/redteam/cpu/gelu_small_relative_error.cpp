// Attack (the row-wise error envelope on an elementwise op): the oracle allows every element of a
// row max(atol + rtol |ref|, 8 E_row), where E_row is the same-dtype reference's largest error
// anywhere in the row, i.e. about one ulp of the row's LARGEST element. For gelu_bias_residual,
// an elementwise op whose elements share nothing, that lends a small element the absolute error
// of the row's largest: on a "wide" row (|values| from 1e-4 to 1e4) about 8 x 1e-3.
// This kernel estimates that allowance per row (S = max |relu(v) + residual|, allowance
// S * 2^-21, a quarter of it kept as margin) and drops the GELU term wherever it is below it:
// out = residual for |v| < 2 * budget (GELU(v) ~ v/2 there), the exact erf form everywhere else.
// On normal and uniform rows (S ~ 4) the budget is atol's 1e-5 / 4 and the kernel is exact to
// rounding; on wide and heavy rows elements with |x + bias| up to ~1e-3 lose their GELU term
// entirely: up to ~100% relative error where the residual is small too.
// Pre-fix (b5c5f0e): accepted (ok) on every hidden seed tried: `kjudge eval gelu_bias_residual
// FILE --no-timing --hidden 12 --seed N`, N = 1..8. Case max_rel_err on `wide` cases 5 to 7.2e3
// (seed 2, hidden-6: 7.2e3, where the honest cpu_fast has 1.1e-3; seed 3, hidden-10: 169 against
// 1.0e-4), i.e. elements with errors of 100% and more of their value.
// Expected after the fix: wrong_result, rule tolerance (the bound of an elementwise op is per
// element: its own one-ulp conditioning, not its row's).
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const auto* x = static_cast<const float*>(a->inputs[0].data);
  const auto* bias = static_cast<const float*>(a->inputs[1].data);
  const auto* res = static_cast<const float*>(a->inputs[2].data);
  auto* out = static_cast<float*>(a->outputs[0].data);
  const float atol = 1e-5f, row_ulps = 1.0f / (1 << 21);  // f32: atol; 8 x 2^-24 relative
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    const float* rr = res + i * n;
    float* orow = out + i * n;
    float s = 0;  // the row's scale: GELU(v) ~ relu(v) away from 0
    for (int64_t j = 0; j < n; ++j) s = std::fmax(s, std::fabs(std::fmax(xr[j] + bias[j], 0.0f) + rr[j]));
    const float budget = 0.25f * std::fmax(atol, s * row_ulps);
    for (int64_t j = 0; j < n; ++j) {
      const float v = xr[j] + bias[j];
      const float g = std::fabs(v) < 2 * budget ? 0.0f : 0.5f * v * std::erfc(-v * 0.70710678f);
      orow[j] = g + rr[j];
    }
  }
  return 0;
}
