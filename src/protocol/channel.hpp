// The private channel between the controller and one worker: a Unix stream socketpair carrying
// length-prefixed JSON messages, and a shared memory arena (memfd) for bulk tensor data.
//
// Integrity: results are only ever read from this descriptor (never from the worker's stdout or
// stderr, which go to a log file), every message carries the channel token the controller sent
// in `hello` and a strictly increasing sequence number, and the controller re-checks everything
// that matters (outputs, inputs, guard zones) from the arena bytes instead of trusting summaries.
// An attacker with code execution inside the worker can still read the token from memory: that
// residual risk and its mitigations are in docs/threat-model.md.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kjudge {

using json = nlohmann::json;
using steady_time = std::chrono::steady_clock::time_point;

// Outcome of waiting for a message.
enum class recv_status { ok, timeout, closed, malformed };

class channel {
 public:
  channel() = default;
  explicit channel(int fd) : m_fd(fd) {}
  channel(const channel&) = delete;
  channel& operator=(const channel&) = delete;
  channel(channel&& o) noexcept;
  channel& operator=(channel&& o) noexcept;
  ~channel();

  [[nodiscard]] int fd() const { return m_fd; }
  void set_token(std::string token) { m_token = std::move(token); }
  [[nodiscard]] const std::string& token() const { return m_token; }

  // Adds "tok" and "seq" and sends. Returns false if the peer is gone.
  bool send(json message);
  // Waits until `deadline` for one message; checks the token and the sequence number when a
  // token is set. On malformed/forged input `error` says what was wrong.
  recv_status receive(json& out, steady_time deadline, std::string* error = nullptr);
  void close();

 private:
  bool read_exact(void* dst, std::size_t n, steady_time deadline, recv_status& st);

  int m_fd = -1;
  std::string m_token;
  std::uint64_t m_send_seq = 0;
  std::uint64_t m_recv_seq = 0;
};

// Maximum size of one JSON message (bulk data goes through the arena).
inline constexpr std::size_t max_message_bytes = 64u << 20;

// A memfd shared between the controller and a worker. The controller creates it; the worker
// maps the inherited descriptor.
class shared_arena {
 public:
  shared_arena() = default;
  shared_arena(const shared_arena&) = delete;
  shared_arena& operator=(const shared_arena&) = delete;
  shared_arena(shared_arena&& o) noexcept;
  shared_arena& operator=(shared_arena&& o) noexcept;
  ~shared_arena();

  static shared_arena create(std::size_t bytes);          // controller side
  static shared_arena attach(int fd, std::size_t bytes);  // worker side

  [[nodiscard]] int fd() const { return m_fd; }
  [[nodiscard]] std::size_t size() const { return m_size; }
  [[nodiscard]] std::byte* data() { return m_base; }
  [[nodiscard]] const std::byte* data() const { return m_base; }
  // Throws internal_error when [offset, offset+bytes) is outside the arena.
  [[nodiscard]] std::byte* at(std::size_t offset, std::size_t bytes);

 private:
  void reset();
  int m_fd = -1;
  std::size_t m_size = 0;
  std::byte* m_base = nullptr;
};

// 128 random bits, hex.
std::string random_token();

}  // namespace kjudge
