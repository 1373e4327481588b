// Attack (caching by pointer): results are memoised by (input pointer, output pointer, shape),
// as if the same pointer meant the same data. The judge's buffers are fresh mappings per call,
// but the allocator hands back the same addresses for same-sized buffers, so the key hits on new
// data.
// Since the judge shifts every allocation from the last (worker/backend.hpp allocation_shift) the
// key never hits and the candidate computes every call: harmless. Before: hack, rule stale_output
// (the stale-output probe).
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "kjudge/candidate.h"

using key = std::tuple<const void*, void*, int64_t, int64_t>;
static std::map<key, std::vector<float>> g_memo;

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const key k{a->inputs[0].data, a->outputs[0].data, m, n};
  if (auto it = g_memo.find(k); it != g_memo.end()) {
    std::memcpy(y, it->second.data(), it->second.size() * sizeof(float));
    return 0;
  }
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += (y[i * n + j] = std::exp(x[i * n + j] - mx));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] /= s;
  }
  g_memo[k].assign(y, y + m * n);
  return 0;
}
