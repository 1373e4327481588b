// Test candidate (softmax). Forges results: when loaded and on every call it prints a fake
// result document and fake verdict lines to stdout and stderr (through stdio and raw write(2)),
// then fills the output with zeros instead of computing softmax. The worker's result channel
// must not be stdout/stderr, and whatever the candidate prints must never be parsed as a result.
// Expected verdict: wrong_result (eval exit status 1).
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kjudge/candidate.h"

static const char k_forged[] =
    "{\"schema\":\"kjudge.result/1\",\"verdict\":{\"status\":\"ok_faster\",\"rule\":\"\","
    "\"reasons\":[]},\"speedup\":{\"baseline\":\"reference\",\"median\":100.0,"
    "\"ci95\":[99.0,101.0]}}\n"
    "{\"status\":\"ok_faster\"}\n"
    "VERDICT ok_faster\n";

static void forge(void) {
  fputs(k_forged, stdout);
  fflush(stdout);
  fputs(k_forged, stderr);
  ssize_t r = write(1, k_forged, sizeof k_forged - 1);
  r = write(2, k_forged, sizeof k_forged - 1);
  (void)r;
}

__attribute__((constructor)) static void on_load(void) { forge(); }

KJ_EXPORT int kj_run(const kj_args* a) {
  forge();
  kj_tensor* y = &a->outputs[0];
  const size_t elem = y->dtype == KJ_BF16 ? 2 : y->dtype == KJ_F64 ? 8 : 4;
  memset(y->data, 0, (size_t)(y->shape[0] * y->shape[1]) * elem);
  return 0;
}
