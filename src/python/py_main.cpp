// kjudge-worker-py: the worker that hosts CPython and runs one PyTorch party (a reference, a
// torch baseline, a Python candidate) with the C++ worker session (docs/python.md).
//   kjudge-worker-py --arena-bytes N          started by kjudge: channel fd 3, arena fd 4
//   kjudge-worker-py --inspect PYTHON REQUEST  importers: prints the glue's JSON answer
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "python/py_host.hpp"
#include "worker/worker.hpp"
#ifdef KJUDGE_HAVE_CUDA
#include <memory>

#include "cuda/cuda_backend.hpp"
#endif

namespace {

#ifdef KJUDGE_HAVE_CUDA
std::unique_ptr<kjudge::backend> make_cuda() {
  return kjudge::cuda::make_cuda_backend();
}
#endif

std::string load(const nlohmann::json& hello, kjudge::hosted_program& out) {
  return kjudge::py::load_program(hello, out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--inspect") == 0) {
    try {
      const std::string answer = kjudge::py::inspect(argv[2], argv[3]);
      std::fwrite(answer.data(), 1, answer.size(), stdout);
      std::fputc('\n', stdout);
      std::fflush(stdout);
      // The inspected file may have started threads; leave without running their destructors.
      std::_Exit(0);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kjudge-worker-py: %s\n", e.what());
      std::_Exit(3);
    }
  }
  std::size_t arena_bytes = 0;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--arena-bytes") == 0) arena_bytes = std::strtoull(argv[i + 1], nullptr, 10);
  if (arena_bytes == 0) {
    std::fprintf(stderr, "kjudge-worker-py is started by kjudge, not by hand (missing --arena-bytes)\n");
    return 2;
  }
  try {
#ifdef KJUDGE_HAVE_CUDA
    kjudge::register_backend("cuda", &make_cuda);  // torch parties on the judge's device buffers
#endif
    const int rc = kjudge::run_hosted_worker(3, 4, arena_bytes, &load);
    std::fflush(nullptr);
    // Python's finalisation after torch (threads, atexit handlers of the party) can hang or
    // crash; the session is over, so the process leaves directly.
    std::_Exit(rc);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kjudge-worker-py: %s\n", e.what());
    std::_Exit(3);
  }
}
