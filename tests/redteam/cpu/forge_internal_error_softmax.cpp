// Attack (the judge's own fault forged with the stolen channel token): as
// forge_token_scan_softmax.cpp, this candidate finds the worker's 128-bit channel token in its
// memory, but the frame it sends on its first call is the worker's answer to a request it cannot
// serve: {"type":"error","kind":"internal"} with the token and the next sequence number. The
// controller takes an "internal" error of the candidate's worker as the judge's (failure_verdict
// throws internal_error) and stops before the genuine reply, which would have shown the forgery,
// arrives: no verdict, exit 3, a batch's judge_fault that --retry judges again with a fresh seed.
// A cheat can send it only when a case is one it fails (workspace_throw_layernorm.cpp does the
// same without the token).
// Expected: hack, rule forged_message (or the candidate's own verdict): never an internal error.
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

static bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

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

static size_t align64(size_t b) {
  return (b + 63) / 64 * 64;
}
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
  for (const std::string& tok : find_tokens()) {
    const std::string body =
        "{\"type\":\"error\",\"kind\":\"internal\",\"message\":\"arena too small for this call\","
        "\"tok\":\"" +
        tok + "\",\"seq\":2}";
    const uint32_t len = static_cast<uint32_t>(body.size());
    std::string frame(4 + body.size(), '\0');
    std::memcpy(frame.data(), &len, 4);
    std::memcpy(frame.data() + 4, body.data(), body.size());
    ssize_t w = write(3, frame.data(), frame.size());
    (void)w;
    std::fprintf(stderr, "forge_internal_error: sent a frame with token %s\n", tok.c_str());
    break;
  }
  usleep(100000);
  return 0;
}
