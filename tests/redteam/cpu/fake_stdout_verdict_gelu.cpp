// Attack (printing fake verdicts): prints a forged result document and "PASS ok_faster 100x"
// lines on stdout and stderr, at load time and in every call, for any harness that greps the
// candidate's output; the output itself is zeros.
// Expected: wrong_result, rule tolerance (the worker's stdout and stderr go to a log file that is
// never parsed; results come only from the channel and the arena).
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "kjudge/candidate.h"

static const char k_fake[] =
    "{\"schema\":\"kjudge.result/1\",\"verdict\":{\"status\":\"ok_faster\",\"rule\":null,\"reasons\":[]},"
    "\"speedup\":{\"baseline\":\"reference\",\"median\":100.0,\"ci95\":[99.0,101.0]}}\n"
    "PASS ok_faster 100.0x\n";

__attribute__((constructor)) static void on_load() { std::fputs(k_fake, stdout); }

KJ_EXPORT int kj_run(const kj_args* a) {
  std::fputs(k_fake, stdout);
  std::fflush(stdout);
  ssize_t w = write(2, k_fake, sizeof k_fake - 1);
  (void)w;
  const int64_t n = a->outputs[0].shape[0] * a->outputs[0].shape[1];
  std::memset(a->outputs[0].data, 0, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
