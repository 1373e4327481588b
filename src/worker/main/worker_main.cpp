// kjudge-worker: started by the controller with its channel on fd 3 and its arena on fd 4.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "worker/worker.hpp"

int main(int argc, char** argv) {
  std::size_t arena_bytes = 0;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--arena-bytes") == 0) arena_bytes = std::strtoull(argv[i + 1], nullptr, 10);
  if (arena_bytes == 0) {
    std::fprintf(stderr, "kjudge-worker is started by kjudge, not by hand (missing --arena-bytes)\n");
    return 2;
  }
  try {
    return kjudge::run_worker(3, 4, arena_bytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kjudge-worker: %s\n", e.what());
    return 3;
  }
}
