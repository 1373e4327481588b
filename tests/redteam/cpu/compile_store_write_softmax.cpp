// Attack (writing the torch.compile store and the baselines' scratch from C++): the torch
// baselines' compile caches live in $KJUDGE_CACHE/torch-compile/<key> and, while an evaluation
// runs, in each baseline's scratch (.../scratch/<run>/baseline-torch-compile-*/torch-compile-
// cache), which the controller publishes after the baseline's warm-up. On its first call this
// softmax tries to list the store, create an entry and a file in it, write into every stored
// entry, and create files in its sibling scratch directories (the baselines', the reference's),
// the store being three levels above its own scratch ($KJUDGE_SCRATCH = <cache>/scratch/<run>/
// candidate). Had anything opened, it returns 77 (runtime_error); otherwise it computes an honest
// softmax.
// Expected: every attempt refused (landlock: its scratch is its only writable directory); ok,
// harmless.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "kjudge/candidate.h"

namespace {

std::string parent(const std::string& p) {
  const auto k = p.find_last_of('/', p.size() > 1 && p.back() == '/' ? p.size() - 2 : std::string::npos);
  return k == std::string::npos ? std::string("/") : p.substr(0, k);
}

bool creates(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') out.emplace_back(e->d_name);
    ::closedir(d);
  }
  return out;
}

// Whether any write outside the candidate's scratch succeeded, or the store could be listed.
bool reached() {
  const char* s = std::getenv("KJUDGE_SCRATCH");
  if (s == nullptr) return false;
  const std::string scratch = s, run = parent(scratch), cache = parent(parent(run));
  const std::string store = cache + "/torch-compile";
  bool any = ::opendir(store.c_str()) != nullptr;
  any |= ::mkdir((store + "/00000000000000000000000000000000").c_str(), 0755) == 0;
  any |= creates(store + "/kjredteam");
  for (const auto& e : entries(store)) any |= creates(store + "/" + e + "/kjredteam");
  std::vector<std::string> siblings = entries(run);
  for (const char* known : {"baseline-torch-compile-default", "baseline-reference", "reference"})
    siblings.emplace_back(known);
  for (const auto& sib : siblings) {
    if (sib.rfind("candidate", 0) == 0) continue;
    any |= ::mkdir((run + "/" + sib + "/torch-compile-cache").c_str(), 0755) == 0;
    any |= creates(run + "/" + sib + "/torch-compile-cache/kjredteam");
    any |= creates(run + "/" + sib + "/kjredteam");
  }
  return any;
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  static const bool escaped = reached();
  if (escaped) return 77;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    float mx = xr[0];
    for (int64_t j = 1; j < n; ++j) mx = std::fmax(mx, xr[j]);
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += std::exp(static_cast<double>(xr[j] - mx));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = static_cast<float>(std::exp(static_cast<double>(xr[j] - mx)) / sum);
  }
  return 0;
}
