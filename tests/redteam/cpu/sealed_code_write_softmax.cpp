// Attack (patching the worker's clock where it now lives): the worker times calls with its own
// code (a clock_gettime system call in the executable, worker/cpu_timer.cpp), so a patcher goes
// for the executable's text. On its first call this candidate finds the main program's executable
// segment (dl_iterate_phdr), tries to make it writable (mprotect), then to write it through
// /proc/self/mem (which ignores page protection), and then writes to it anyway, as a patcher that
// does not check for errors would.
// Expected: hack, rule timer_tamper. The worker sealed its code before loading the candidate
// (mseal: mprotect is refused), landlock keeps /proc read-only, and the write faults; the worker's
// fault reporter names the sealed region (kjudge-worker: sealed_write) and the controller turns
// that into timer_tamper. Without the seal the write would land and the worker's clock could be
// redirected (tests/redteam/cpu/timer_patch_scale_rmsnorm.cpp did it to libstdc++'s clock).
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>

#include "kjudge/candidate.h"

namespace {

std::uintptr_t g_text = 0;

int find_text(dl_phdr_info* info, size_t, void*) {
  // The first object is the main program: kjudge-worker.
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
      g_text = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
      return 1;
    }
  return 1;
}

void patch_worker_text() {
  dl_iterate_phdr(find_text, nullptr);
  if (g_text == 0) return;
  const std::uintptr_t page = g_text & ~std::uintptr_t(4095);
  unsigned char ret = 0xc3;  // what a patch would write: the start of a jump to a fake clock
  if (mprotect(reinterpret_cast<void*>(page), 4096, PROT_READ | PROT_WRITE | PROT_EXEC) == 0) {
    *reinterpret_cast<volatile unsigned char*>(page + 64) = ret;
    return;
  }
  const int fd = open("/proc/self/mem", O_RDWR);
  if (fd >= 0) {
    const ssize_t w = pwrite(fd, &ret, 1, static_cast<off_t>(page + 64));
    close(fd);
    if (w == 1) return;
  }
  *reinterpret_cast<volatile unsigned char*>(page + 64) = ret;
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  static bool patched = false;
  if (!patched) {
    patched = true;
    patch_worker_text();
  }
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    float sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += std::exp(x[i * n + j] - mx);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = std::exp(x[i * n + j] - mx) / sum;
  }
  return 0;
}
