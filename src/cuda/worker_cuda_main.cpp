// kjudge-worker-cuda: kjudge-worker with the cuda backend registered. Started by kjudge with its
// channel on fd 3 and its arena on fd 4 (src/worker/main/worker_main.cpp is the cpu-only twin).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>

#include "cuda/cuda_backend.hpp"
#include "worker/worker.hpp"

namespace {
std::unique_ptr<kjudge::backend> make_cuda() {
  return kjudge::cuda::make_cuda_backend();
}
}  // namespace

int main(int argc, char** argv) {
  std::size_t arena_bytes = 0;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--arena-bytes") == 0) arena_bytes = std::strtoull(argv[i + 1], nullptr, 10);
  if (arena_bytes == 0) {
    std::fprintf(stderr, "kjudge-worker-cuda is started by kjudge, not by hand (missing --arena-bytes)\n");
    return 2;
  }
  try {
    kjudge::register_backend("cuda", &make_cuda);
    return kjudge::run_worker(3, 4, arena_bytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kjudge-worker-cuda: %s\n", e.what());
    return 3;
  }
}
