// Attack (slowing the baselines): lowers the scheduling priority of every other kjudge process
// of the user (setpriority to nice 19, SCHED_IDLE) so that the baselines, timed while the
// candidate's own threads keep the CPUs busy, look slow.
// Expected: hack, rule sandbox_violation (seccomp: setpriority/sched_setscheduler only on the
// worker itself).
#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      const int pid = std::atoi(e->d_name);
      if (pid <= 1 || pid == getpid()) continue;
      setpriority(PRIO_PROCESS, static_cast<id_t>(pid), 19);
      sched_param sp{};
      sched_setscheduler(pid, SCHED_IDLE, &sp);
    }
    closedir(d);
  }
  (void)a;
  return 0;
}
