// What a file opened for writing names, for the syscall monitor (pool/syscall_monitor.hpp): the
// monitor reads the path from the caller's memory and asks whether it reaches into another
// process through /proc. Pure functions over strings, apart from the reads of /proc itself.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace kjudge::detail {

// The path the caller meant: a relative `path` joined to `base` (its working directory or the
// directory its dirfd names), then normalised lexically ("a/../b" -> "b"). Symbolic links are not
// followed: the caller's links resolve in its own mount namespace, not the controller's.
std::string joined_path(const std::string& base, const std::string& path);

// Whether `path` (absolute, normalised) names an entry of a process other than the caller's:
// /proc/<n>/... where n is neither the caller's process `tgid` nor one of its threads
// (`is_own_thread`). /proc/self and /proc/thread-self are the caller's own; /proc/sys and the like
// name no process.
bool names_other_process(const std::string& path, pid_t tgid, const std::function<bool(pid_t)>& is_own_thread);

// The process (thread group) that thread `tid` belongs to, from /proc/<tid>/status.
std::optional<pid_t> thread_group_of(pid_t tid);

// A NUL-terminated string of at most `max` bytes at `address` in process `pid`
// (process_vm_readv, page by page so that a string ending just before an unmapped page is read).
std::optional<std::string> read_remote_string(pid_t pid, std::uint64_t address, std::size_t max = 4096);

// Where a relative path of thread `tid` starts: its working directory (dirfd AT_FDCWD) or the
// directory its descriptor `dirfd` names.
std::optional<std::string> base_directory(pid_t tid, int dirfd);

}  // namespace kjudge::detail
