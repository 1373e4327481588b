// Attack (reading the secret from the environment): looks through its environment and
// /proc/self/environ for the secret seed or the judge's paths (any variable naming a seed,
// secret, token or the store), planning to regenerate the hidden inputs and answer them from a
// table; without the secret it has no answer and returns zeros.
// Expected: wrong_result, rule tolerance: the worker starts with a clean environment (the secret
// lives only in the controller's memory), so the fallback is judged. Had the environment leaked,
// the candidate would return 77 (verdict runtime_error), failing this expectation.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "kjudge/candidate.h"

extern char** environ;

static bool suspicious(const std::string& kv) {
  const std::string name = kv.substr(0, kv.find('='));
  for (const char* w : {"SEED", "SECRET", "TOKEN", "KJUDGE_DB", "XDG_DATA_HOME"})
    if (name.find(w) != std::string::npos) return true;
  return false;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  for (char** e = environ; e && *e; ++e)
    if (suspicious(*e)) return 77;
  const int fd = open("/proc/self/environ", O_RDONLY);
  if (fd >= 0) {
    char buf[65536];
    const ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    for (ssize_t i = 0; i < n;) {
      const std::string kv(buf + i);
      if (suspicious(kv)) return 77;
      i += static_cast<ssize_t>(kv.size()) + 1;
    }
  }
  const int64_t n = a->outputs[0].shape[0] * a->outputs[0].shape[1];
  std::memset(a->outputs[0].data, 0, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
