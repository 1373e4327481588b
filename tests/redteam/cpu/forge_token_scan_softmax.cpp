// Attack (forged result with the stolen channel token): in-process code can read the worker's
// memory, so this candidate finds the 128-bit channel token (a run of 32 hex digits after
// "tok":" or alone in a heap string), computes the right output itself, writes it into the
// shared arena (fd 4) where the worker would export it (outputs, the repeat's outputs and the
// inputs, at the offsets both sides derive from the call), and sends a complete 'ran' frame with
// the token and the next sequence number, claiming 1 ns per call. The controller accepts that
// frame; but the worker's own 'ran' follows with the same sequence number.
// Expected: hack, rule forged_message (the genuine reply arrives out of sequence). What a
// perfect forger could still fake is bounded in docs/threat-model.md.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kjudge/candidate.h"

static bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

static std::vector<std::string> find_tokens() {
  std::vector<std::string> found;
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return found;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long lo, hi;
    char perms[8];
    if (std::sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' || perms[1] != 'w') continue;
    if (std::strstr(line, "kjudge-arena") || hi - lo > (256ul << 20)) continue;
    const char* p = reinterpret_cast<const char*>(lo);
    const size_t n = hi - lo;
    for (size_t i = 0; i + 40 < n; ++i) {
      if (std::memcmp(p + i, "\"tok\":\"", 7) == 0) {
        std::string t(p + i + 7, 32);
        bool ok = true;
        for (char c : t) ok = ok && is_hex(c);
        if (ok) found.push_back(t);
      } else if ((i == 0 || !is_hex(p[i - 1])) && is_hex(p[i])) {
        size_t k = i;
        while (k < n && k - i < 33 && is_hex(p[k])) ++k;
        if (k - i == 32 && k < n && p[k] == '\0') found.push_back(std::string(p + i, 32));
        i = k;
      }
    }
  }
  std::fclose(maps);
  return found;
}

static size_t align64(size_t b) { return (b + 63) / 64 * 64; }
static bool g_done = false;

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += (y[i * n + j] = std::exp(x[i * n + j] - mx));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] /= s;
  }
  if (g_done) return 0;
  g_done = true;
  // The arena: outputs, the repeat's outputs, then the inputs (candidate_layout(call, 2)).
  struct stat st {};
  if (fstat(4, &st) == 0) {
    void* arena = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, 4, 0);
    if (arena != MAP_FAILED) {
      const size_t bytes = static_cast<size_t>(m * n) * sizeof(float);
      char* base = static_cast<char*>(arena);
      std::memcpy(base, y, bytes);
      std::memcpy(base + align64(bytes), y, bytes);
      std::memcpy(base + 2 * align64(bytes), x, bytes);
    }
  }
  for (const std::string& tok : find_tokens()) {
    const std::string body = "{\"type\":\"ran\",\"rc\":[0,0],\"guards\":[],\"deferred\":[],\"seconds\":[1e-9,1e-9],"
                             "\"exception\":\"\",\"extra\":[null,null],\"tok\":\"" + tok + "\",\"seq\":2}";
    const uint32_t len = static_cast<uint32_t>(body.size());
    std::string frame(4 + body.size(), '\0');
    std::memcpy(frame.data(), &len, 4);
    std::memcpy(frame.data() + 4, body.data(), body.size());
    ssize_t w = write(3, frame.data(), frame.size());
    (void)w;
    std::fprintf(stderr, "forge_token_scan: sent a frame with token %s\n", tok.c_str());
    break;
  }
  usleep(100000);
  return 0;
}
