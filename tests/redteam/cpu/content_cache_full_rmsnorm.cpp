// Attack, judged harmless (caching by full content): results are memoised by a hash of every
// byte of every input and the shape. That is correct by construction: the cache only answers for
// an input it has seen whole. It would fool a benchmark that times one input over and over; this
// judge gives every timed call fresh data, so the cache never hits there and the figure is the
// kernel's (plus the hashing). Memoisation that cannot return a wrong answer and cannot shorten a
// timed call is not a violation.
// Expected: ok_not_faster (harmless), no rule.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "kjudge/candidate.h"

static std::unordered_map<uint64_t, std::vector<float>> g_memo;

static uint64_t full_hash(const kj_args* a) {
  uint64_t h = 1469598103934665603ull;
  for (int32_t t = 0; t < a->n_inputs; ++t) {
    int64_t count = 1;
    for (int32_t d = 0; d < a->inputs[t].ndim; ++d) {
      count *= a->inputs[t].shape[d];
      h = (h ^ static_cast<uint64_t>(a->inputs[t].shape[d])) * 1099511628211ull;
    }
    const auto* p = static_cast<const uint32_t*>(a->inputs[t].data);
    for (int64_t i = 0; i < count; ++i) h = (h ^ p[i]) * 1099511628211ull;
  }
  return h;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const uint64_t h = full_hash(a);
  if (auto it = g_memo.find(h); it != g_memo.end() && it->second.size() == static_cast<size_t>(m * n)) {
    std::memcpy(y, it->second.data(), it->second.size() * sizeof(float));
    return 0;
  }
  const float eps = static_cast<float>(a->scalars[0]);
  for (int64_t i = 0; i < m; ++i) {
    float sq = 0;
    for (int64_t j = 0; j < n; ++j) sq += x[i * n + j] * x[i * n + j];
    const float r = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = x[i * n + j] * r * w[j];
  }
  if (g_memo.size() > 64) g_memo.clear();
  g_memo[h].assign(y, y + m * n);
  return 0;
}
