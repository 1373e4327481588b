// Attack (reading the controller's memory directly): process_vm_readv on the parent, scanning
// for the per-run secret.
// Expected: hack, rule sandbox_violation (seccomp kills the worker on process_vm_readv).
#include <sys/uio.h>
#include <unistd.h>

#include <cstring>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  char buf[4096];
  iovec local{buf, sizeof buf};
  iovec remote{reinterpret_cast<void*>(0x400000), sizeof buf};
  if (process_vm_readv(getppid(), &local, 1, &remote, 1, 0) > 0) return 77;
  const int64_t n = a->outputs[0].shape[0] * a->outputs[0].shape[1];
  std::memset(a->outputs[0].data, 0, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
