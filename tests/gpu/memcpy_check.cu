// An independent copy-bandwidth measurement for checking kjudge doctor's ceiling: plain
// cudaMemcpy device-to-device of 2 GiB, timed with events, median of 30, bytes read + written.
// Shares no code with kjudge. Prints one JSON line.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main() {
  const size_t bytes = 2ull << 30;
  const int reps = 30;
  void *src = nullptr, *dst = nullptr;
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  CHECK(cudaMemset(src, 1, bytes));
  CHECK(cudaMemset(dst, 2, bytes));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
  std::vector<double> gbps;
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(a));
    CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    gbps.push_back(2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9);
  }
  std::sort(gbps.begin(), gbps.end());
  std::printf("{\"method\": \"cudaMemcpy D2D 2 GiB, events, median of %d, bytes read + written\", "
              "\"median_gbps\": %.1f, \"min_gbps\": %.1f, \"max_gbps\": %.1f}\n",
              reps, gbps[reps / 2], gbps.front(), gbps.back());
  return 0;
}
