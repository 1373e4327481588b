// Honest (gelu_bias_residual): a persistent pool of std::threads created on the first call and
// kept across calls (sleeping on a condition variable between them); each call splits its rows
// among the workers and waits on a counter until every worker has finished before returning, so
// no work outlives the call.
// Expected: ok, no rule (no deferred_work: all output is written when kj_run returns).
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "kjudge/candidate.h"

namespace {

struct job {
  const float *x = nullptr, *b = nullptr, *r = nullptr;
  float* out = nullptr;
  int64_t m = 0, n = 0;
};

class pool {
 public:
  explicit pool(int n) {
    for (int t = 0; t < n; ++t) m_threads.emplace_back([this, t, n] { loop(t, n); });
  }
  void run(const job& j) {
    std::unique_lock<std::mutex> lk(m_mu);
    m_job = j;
    m_pending = static_cast<int>(m_threads.size());
    ++m_generation;
    m_cv.notify_all();
    m_done_cv.wait(lk, [this] { return m_pending == 0; });
  }

 private:
  void loop(int t, int nt) {
    long seen = 0;
    for (;;) {
      job j;
      {
        std::unique_lock<std::mutex> lk(m_mu);
        m_cv.wait(lk, [&] { return m_generation != seen; });
        seen = m_generation;
        j = m_job;
      }
      for (int64_t i = t; i < j.m; i += nt)
        for (int64_t k = 0; k < j.n; ++k) {
          const float v = j.x[i * j.n + k] + j.b[k];
          j.out[i * j.n + k] = 0.5f * v * (1.0f + std::erf(v * 0.70710678f)) + j.r[i * j.n + k];
        }
      std::lock_guard<std::mutex> lk(m_mu);
      if (--m_pending == 0) m_done_cv.notify_all();
    }
  }
  std::vector<std::thread> m_threads;
  std::mutex m_mu;
  std::condition_variable m_cv, m_done_cv;
  job m_job;
  int m_pending = 0;
  long m_generation = 0;
};

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  static pool* p = new pool(2);  // never destroyed: the worker exits with its threads
  job j;
  j.x = static_cast<const float*>(a->inputs[0].data);
  j.b = static_cast<const float*>(a->inputs[1].data);
  j.r = static_cast<const float*>(a->inputs[2].data);
  j.out = static_cast<float*>(a->outputs[0].data);
  j.m = a->inputs[0].shape[0];
  j.n = a->inputs[0].shape[1];
  p->run(j);
  return 0;
}
