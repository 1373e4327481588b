// Test candidate (softmax). Exhausts memory: allocates 64 MiB blocks without bound, writing
// every byte so the pages are really committed, and keeps them all reachable so nothing can be
// elided. The worker's memory limit must stop it: under an address-space rlimit malloc
// eventually returns NULL and the candidate (like most careless code) writes through it, so
// the worker dies of SIGSEGV at the cap; under a cgroup/RSS limit it is killed. Either way the
// judge must attribute the end to the memory limit (peak memory at the cap), not call it a
// plain crash, and must itself stay alive.
// Expected verdict: resource_limit (eval exit status 1).
#include <stdlib.h>
#include <string.h>

#include "kjudge/candidate.h"

static void* volatile g_head;  // keeps every block reachable

KJ_EXPORT int kj_run(const kj_args* a) {
  (void)a;
  const size_t block = (size_t)64 << 20;
  for (;;) {
    void** p = (void**)malloc(block);
    memset(p, 0x5a, block);
    p[0] = g_head;
    g_head = p;
  }
  return 0;
}
