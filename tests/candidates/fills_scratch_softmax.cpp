// Test candidate (softmax). Fills its scratch directory ($TMPDIR) at its first call, in 8 MiB
// files (each below the worker's RLIMIT_FSIZE of 64 MiB), until a write fails or 96 MiB are
// written, and keeps the files. It then computes an honest softmax only if the writes stopped at
// 64 MiB or less; past that it writes zeros.
// Expected verdict: with --scratch-limit 32 (its scratch a 32 MiB tmpfs), correct (ok_*); with
// --scratch-limit 0 (the real directory, no total bound), wrong_result: the quota, not a lack of
// room on the test machine's disk, is what stopped it.
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

namespace {

constexpr long long k_block = 1 << 20;            // bytes per write
constexpr long long k_file_blocks = 8;            // 8 MiB per file
constexpr long long k_most = 96LL << 20;          // stop here: never fills a real disk
constexpr long long k_honest_up_to = 64LL << 20;  // more than this written: the output is zeros

long long fill_scratch() {
  const char* dir = std::getenv("TMPDIR");
  if (dir == nullptr) return 0;
  std::vector<char> block(k_block, 1);
  long long written = 0;
  for (int f = 0; written < k_most; ++f) {
    const std::string path = std::string(dir) + "/fill-" + std::to_string(f);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return written;
    for (long long b = 0; b < k_file_blocks && written < k_most; ++b) {
      const ssize_t n = ::write(fd, block.data(), block.size());
      if (n > 0) written += n;
      if (n != static_cast<ssize_t>(block.size())) {
        ::close(fd);
        return written;
      }
    }
    ::close(fd);
  }
  return written;
}

template <class IO>
int run(const kj_args* a, int64_t m, int64_t n, bool honest) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  T* y = (T*)a->outputs[0].data;
  std::vector<float> e((size_t)n);
  for (int64_t i = 0; i < m; ++i) {
    const T* xr = x + i * n;
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, IO::load(xr[j]));
    float sum = 0.0f;
    for (int64_t j = 0; j < n; ++j) sum += (e[j] = std::exp(IO::load(xr[j]) - mx));
    const float inv = 1.0f / sum;
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = IO::store(honest ? e[j] * inv : 0.0f);
  }
  return 0;
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  static const long long written = fill_scratch();
  int64_t m, n;
  if (a->n_inputs != 1 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  const bool honest = written <= k_honest_up_to;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype, [&](auto io) { return run<decltype(io)>(a, m, n, honest); });
}
