// A worker's private view of the filesystem (a mount namespace, inside a user namespace where the
// controller is not root), set up between fork and exec, before any code of the worker runs:
//   - mounts stop propagating to and from the host (a private tree);
//   - /dev/shm is a fresh tmpfs of the worker's own: on cuda, where /dev stays open to the driver,
//     nothing left there reaches another worker or a later evaluation;
//   - the scratch directory is, with a quota, a fresh tmpfs of that size mounted over it (a
//     candidate that fills it meets ENOSPC in its own scratch, never the disk the baselines, the
//     cache and the store share), or else the directory bound onto itself;
//   - every mount is read-only except the scratch directory and the kernel's /proc, /sys and
//     /dev: a second layer under landlock, which forbids the same writes (and is the only layer
//     on a kernel that refuses the namespaces).
// The plan is made in the controller before fork (it allocates); apply() makes system calls only,
// as a child of a multi-threaded process must between fork and exec.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace kjudge::detail {

class private_mounts {
 public:
  // Reads the mount table; `scratch` stays writable. quota_bytes > 0: the worker sees `scratch`
  // as an empty tmpfs of that size (what the controller put there beforehand is hidden from it;
  // descriptors it inherits, such as its log, still reach the real directory).
  explicit private_mounts(const std::string& scratch, std::size_t quota_bytes = 0);

  // In the child, between fork and exec. Writes what it applied
  // ("user_ns,mount_ns,shm,scratch_quota=BYTES,readonly=N/M" or "none: why") into
  // report[0, capacity), NUL-terminated. Never fails the child: a layer the kernel refuses is
  // left out and reported (",scratch_quota_refused": the scratch is the real directory).
  void apply(char* report, std::size_t capacity) const;

 private:
  struct entry {
    std::string path;
    unsigned long flags = 0;  // MS_* flags to keep when remounting (locked ones in a user namespace)
  };
  std::string m_scratch;
  std::size_t m_quota_bytes = 0;
  std::string m_tmpfs_options;     // "size=BYTES,mode=0700", made before fork
  std::vector<entry> m_read_only;  // remounted read-only, in mount order
  bool m_user_ns = false;          // not root: a user namespace first
  std::string m_uid_map, m_gid_map;
  bool m_has_shm = false;
};

}  // namespace kjudge::detail
