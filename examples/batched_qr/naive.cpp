// Honest, naive batched_qr: the textbook Householder QR, one column at a time. For column k the
// reflector v = x - beta e_1 (beta = -sign(x_1) ‖x‖, no cancellation) is built in a scratch
// vector and scaled so that v_1 = 1, tau = 2 / vᵀv; then H_k = I - tau v vᵀ is applied to each
// trailing column in turn, a dot product and an update walking down the column with stride n
// (cache-unfriendly on a row-major matrix). Float throughout, one thread. Its tau comes from
// 2 / vᵀv rather than LAPACK's (beta - alpha) / beta, so its bits differ from the reference's;
// the QR oracle judges the factorization, not the bits. Expected verdict: correct
// (ok_not_faster).
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"

static void qr_one(float* h, float* tau, int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    float below2 = 0.0f;
    for (int64_t i = k + 1; i < n; ++i) below2 += h[i * n + k] * h[i * n + k];
    if (below2 == 0.0f) {  // nothing below the diagonal: H_k = I
      tau[k] = 0.0f;
      continue;
    }
    const float alpha = h[k * n + k];
    const float norm = std::sqrt(alpha * alpha + below2);
    const float beta = alpha >= 0.0f ? -norm : norm;
    const float v1 = alpha - beta;
    float vtv = 1.0f;
    v[k] = 1.0f;
    for (int64_t i = k + 1; i < n; ++i) {
      v[i] = h[i * n + k] / v1;
      vtv += v[i] * v[i];
    }
    const float t = 2.0f / vtv;
    tau[k] = t;
    h[k * n + k] = beta;
    for (int64_t i = k + 1; i < n; ++i) h[i * n + k] = v[i];
    for (int64_t j = k + 1; j < n; ++j) {
      float dot = 0.0f;
      for (int64_t i = k; i < n; ++i) dot += v[i] * h[i * n + j];
      for (int64_t i = k; i < n; ++i) h[i * n + j] -= t * dot * v[i];
    }
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t b = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* A = (const float*)a->inputs[0].data;
  float* H = (float*)a->outputs[0].data;
  float* tau = (float*)a->outputs[1].data;
  for (int64_t m = 0; m < b; ++m) {
    for (int64_t e = 0; e < n * n; ++e) H[m * n * n + e] = A[m * n * n + e];
    qr_one(H + m * n * n, tau + m * n, n);
  }
  return 0;
}
