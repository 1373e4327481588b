// A worker's private view of the filesystem (a mount namespace, inside a user namespace where the
// controller is not root), set up between fork and exec, before any code of the worker runs:
//   - mounts stop propagating to and from the host (a private tree);
//   - /dev/shm is a fresh tmpfs of the worker's own: on cuda, where /dev stays open to the driver,
//     nothing left there reaches another worker or a later evaluation;
//   - every mount is read-only except the scratch directory (bound onto itself first) and the
//     kernel's /proc, /sys and /dev: a second layer under landlock, which forbids the same writes
//     (and is the only layer on a kernel that refuses the namespaces).
// The plan is made in the controller before fork (it allocates); apply() makes system calls only,
// as a child of a multi-threaded process must between fork and exec.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace kjudge::detail {

class private_mounts {
 public:
  // Reads the mount table; `scratch` stays writable.
  explicit private_mounts(const std::string& scratch);

  // In the child, between fork and exec. Writes what it applied ("mount_ns,user_ns,shm,readonly=N"
  // or "none: why") into report[0, capacity), NUL-terminated. Never fails the child: a layer the
  // kernel refuses is left out and reported.
  void apply(char* report, std::size_t capacity) const;

 private:
  struct entry {
    std::string path;
    unsigned long flags = 0;  // MS_* flags to keep when remounting (locked ones in a user namespace)
  };
  std::string m_scratch;
  std::vector<entry> m_read_only;  // remounted read-only, in mount order
  bool m_user_ns = false;          // not root: a user namespace first
  std::string m_uid_map, m_gid_map;
  bool m_has_shm = false;
};

}  // namespace kjudge::detail
