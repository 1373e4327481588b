// What the kernel says about a worker and the processes it started, read by the controller from
// /proc: CPU time, involuntary context switches, threads, and who is still alive in its process
// group. The worker cannot forge any of it (its own reports of the same things could be), so the
// judge takes decisions on these figures: samples set aside for preemption, background work
// between a candidate's calls (rule background_work), processes left running.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kjudge {

struct process_usage {
  double cpu_seconds = 0;         // user + system, every thread, reaped children and live descendants
  long involuntary_switches = 0;  // every thread of the process (not of descendants)
  int threads = 0;                // of the process itself
  int descendants = 0;            // live processes below it
  bool readable = false;          // false: the process is gone (or /proc is unreadable)
};

// The process's figures now; with_descendants: also the live processes below it (through
// /proc/<pid>/task/*/children), whose CPU time counts as the process's.
process_usage read_process_usage(pid_t pid, bool with_descendants);

struct group_member {
  pid_t pid = 0;
  std::string command;  // comm, at most 15 characters
  char state = '?';
  double cpu_seconds = 0;
};

// Every live process of process group `pgid` except `except` (a /proc scan).
std::vector<group_member> group_members(pid_t pgid, pid_t except);
nlohmann::json to_json(const std::vector<group_member>& members);

// The machine's busy CPU time (every CPU: user, nice, system, irq, softirq, steal) and, for a set
// of processes, theirs, in clock ticks as the kernel samples both (/proc/stat, /proc/<pid>/stat):
// the difference over a window is the CPU time of every process outside the set (and of the
// hypervisor), which the set cannot forge or hide.
long long machine_busy_ticks();
long long process_ticks(pid_t pid, bool with_descendants);
double ticks_to_seconds(long long ticks);

// Makes the calling process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER): a
// process a worker left behind becomes the controller's child instead of init's, so it can be
// found, killed and reaped. Returns whether the kernel agreed.
bool become_subreaper();

// Reaps every exited child of the calling process in process group `pgid` (no waiting).
int reap_group(pid_t pgid);

}  // namespace kjudge
