// One file descriptor over a Unix socket (SCM_RIGHTS) with one byte of data: how a worker hands
// its seccomp listener to the controller (sandbox/confine.hpp hand_over_listener,
// pool/syscall_monitor.cpp). Both sides need the same control-message layout; it lives here once.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <cstring>

namespace kjudge {

// Sends `fd` with one byte; true when the byte (and so the descriptor) went.
inline bool send_descriptor(int socket, int fd) {
  char byte = 0;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))]{};
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return ::sendmsg(socket, &msg, MSG_NOSIGNAL) == 1;
}

struct received_descriptor {
  ssize_t bytes = -1;  // recvmsg's result: 0 when the peer closed without sending, < 0 an error (errno)
  int fd = -1;         // the descriptor that came with the byte, close-on-exec; -1 if none
};

// Receives what send_descriptor sent (`flags`: MSG_DONTWAIT, say).
inline received_descriptor receive_descriptor(int socket, int flags) {
  char byte = 0;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))]{};
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  received_descriptor out;
  out.bytes = ::recvmsg(socket, &msg, flags | MSG_CMSG_CLOEXEC);
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); out.bytes > 0 && c != nullptr; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(&out.fd, CMSG_DATA(c), sizeof out.fd);
  return out;
}

}  // namespace kjudge
