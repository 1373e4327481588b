// Attack (caching by content): results are memoised by a hash of the shape and a strided sample
// of 64 elements of x (hashing everything would cost as much as the kernel). A benchmark that
// times the same input over and over is fooled into timing a memcpy; data that differs outside
// the sample gets the old result.
// Expected: hack, rule stale_output (the stale-output probe changes a few elements of every input,
// almost surely outside any sparse sample).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "kjudge/candidate.h"

static std::unordered_map<uint64_t, std::vector<float>> g_memo;

static uint64_t sample_hash(const float* x, int64_t m, int64_t n) {
  uint64_t h = 1469598103934665603ull ^ static_cast<uint64_t>(m * 1000003 + n);
  const int64_t total = m * n, step = total / 64 > 0 ? total / 64 : 1;
  for (int64_t i = 0; i < total; i += step) {
    uint32_t b;
    std::memcpy(&b, x + i, 4);
    h = (h ^ b) * 1099511628211ull;
  }
  return h;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  const float* b = static_cast<const float*>(a->inputs[2].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const uint64_t h = sample_hash(x, m, n);
  if (auto it = g_memo.find(h); it != g_memo.end() && it->second.size() == static_cast<size_t>(m * n)) {
    std::memcpy(y, it->second.data(), it->second.size() * sizeof(float));
    return 0;
  }
  const float eps = static_cast<float>(a->scalars[0]);
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += xr[j];
    const float mean = s / static_cast<float>(n);
    float q = 0;
    for (int64_t j = 0; j < n; ++j) q += (xr[j] - mean) * (xr[j] - mean);
    const float r = 1.0f / std::sqrt(q / static_cast<float>(n) + eps);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = (xr[j] - mean) * r * w[j] + b[j];
  }
  g_memo[h].assign(y, y + m * n);
  return 0;
}
