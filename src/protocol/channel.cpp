#include "protocol/channel.hpp"

#include <poll.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/error.hpp"

namespace kjudge {

channel::channel(channel&& o) noexcept
    : m_fd(std::exchange(o.m_fd, -1)),
      m_token(std::move(o.m_token)),
      m_send_seq(o.m_send_seq),
      m_recv_seq(o.m_recv_seq) {}

channel& channel::operator=(channel&& o) noexcept {
  if (this != &o) {
    close();
    m_fd = std::exchange(o.m_fd, -1);
    m_token = std::move(o.m_token);
    m_send_seq = o.m_send_seq;
    m_recv_seq = o.m_recv_seq;
  }
  return *this;
}

channel::~channel() {
  close();
}

void channel::close() {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
}

bool channel::send(json message) {
  if (m_fd < 0) return false;
  if (!m_token.empty()) message["tok"] = m_token;
  message["seq"] = ++m_send_seq;
  const std::string body = message.dump();
  const auto len = static_cast<std::uint32_t>(body.size());
  std::string frame(4 + body.size(), '\0');
  std::memcpy(frame.data(), &len, 4);
  std::memcpy(frame.data() + 4, body.data(), body.size());
  std::size_t sent = 0;
  while (sent < frame.size()) {
    const ssize_t n = ::send(m_fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

bool channel::read_exact(void* dst, std::size_t n, steady_time deadline, recv_status& st) {
  auto* p = static_cast<char*>(dst);
  std::size_t got = 0;
  while (got < n) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      st = recv_status::timeout;
      return false;
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    pollfd pfd{m_fd, POLLIN, 0};
    const int pr = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(ms + 1, 1000)));
    if (pr < 0) {
      if (errno == EINTR) continue;
      st = recv_status::closed;
      return false;
    }
    if (pr == 0) continue;
    const ssize_t r = ::recv(m_fd, p + got, n - got, 0);
    if (r == 0) {
      st = recv_status::closed;
      return false;
    }
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      st = recv_status::closed;
      return false;
    }
    got += static_cast<std::size_t>(r);
  }
  return true;
}

recv_status channel::receive(json& out, steady_time deadline, std::string* error) {
  if (m_fd < 0) return recv_status::closed;
  recv_status st = recv_status::ok;
  std::uint32_t len = 0;
  if (!read_exact(&len, 4, deadline, st)) return st;
  if (len > max_message_bytes) {
    if (error) *error = "message length " + std::to_string(len) + " exceeds the limit";
    return recv_status::malformed;
  }
  std::string body(len, '\0');
  if (!read_exact(body.data(), len, deadline, st)) return st;
  try {
    out = json::parse(body);
  } catch (const json::exception& e) {
    if (error) *error = std::string("unparseable message: ") + e.what();
    return recv_status::malformed;
  }
  if (!out.is_object()) {
    if (error) *error = "message is not an object";
    return recv_status::malformed;
  }
  if (!m_token.empty()) {
    if (!out.contains("tok") || out["tok"] != m_token) {
      if (error) *error = "message without the channel token";
      return recv_status::malformed;
    }
  }
  if (!out.contains("seq") || !out["seq"].is_number_unsigned() || out["seq"].get<std::uint64_t>() != m_recv_seq + 1) {
    if (error) *error = "message out of sequence";
    return recv_status::malformed;
  }
  m_recv_seq = out["seq"].get<std::uint64_t>();
  return recv_status::ok;
}

shared_arena::shared_arena(shared_arena&& o) noexcept
    : m_fd(std::exchange(o.m_fd, -1)), m_size(std::exchange(o.m_size, 0)), m_base(std::exchange(o.m_base, nullptr)) {}

shared_arena& shared_arena::operator=(shared_arena&& o) noexcept {
  if (this != &o) {
    reset();
    m_fd = std::exchange(o.m_fd, -1);
    m_size = std::exchange(o.m_size, 0);
    m_base = std::exchange(o.m_base, nullptr);
  }
  return *this;
}

shared_arena::~shared_arena() {
  reset();
}

void shared_arena::reset() {
  if (m_base != nullptr) ::munmap(m_base, m_size);
  if (m_fd >= 0) ::close(m_fd);
  m_base = nullptr;
  m_fd = -1;
  m_size = 0;
}

shared_arena shared_arena::create(std::size_t bytes) {
  shared_arena a;
  a.m_size = bytes < 4096 ? 4096 : bytes;
  a.m_fd = ::memfd_create("kjudge-arena", 0);  // no MFD_CLOEXEC: the worker inherits it
  if (a.m_fd < 0) throw internal_error(std::string("memfd_create: ") + std::strerror(errno));
  if (::ftruncate(a.m_fd, static_cast<off_t>(a.m_size)) != 0)
    throw internal_error(std::string("ftruncate(arena): ") + std::strerror(errno));
  void* p = ::mmap(nullptr, a.m_size, PROT_READ | PROT_WRITE, MAP_SHARED, a.m_fd, 0);
  if (p == MAP_FAILED) throw internal_error(std::string("mmap(arena): ") + std::strerror(errno));
  a.m_base = static_cast<std::byte*>(p);
  return a;
}

shared_arena shared_arena::attach(int fd, std::size_t bytes) {
  shared_arena a;
  a.m_fd = fd;
  a.m_size = bytes;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) throw internal_error(std::string("mmap(arena): ") + std::strerror(errno));
  a.m_base = static_cast<std::byte*>(p);
  return a;
}

std::byte* shared_arena::at(std::size_t offset, std::size_t bytes) {
  if (offset > m_size || bytes > m_size - offset)
    throw internal_error("arena access out of range: offset " + std::to_string(offset) + " + " + std::to_string(bytes) +
                         " > " + std::to_string(m_size));
  return m_base + offset;
}

std::string random_token() {
  unsigned char b[16];
  if (::getrandom(b, sizeof b, 0) != static_cast<ssize_t>(sizeof b)) throw internal_error("getrandom failed");
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) {
    s += hex[c >> 4];
    s += hex[c & 15];
  }
  return s;
}

}  // namespace kjudge
