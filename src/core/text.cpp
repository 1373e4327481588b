#include "core/text.hpp"

#include <mutex>
#include <vector>

namespace kjudge {

namespace {

std::mutex g_mutex;
std::vector<std::string>& secrets() {
  static std::vector<std::string> s;
  return s;
}

// Length of the valid UTF-8 sequence starting at s[i], or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  return n;
}

}  // namespace

void register_secret(const std::string& secret) {
  if (secret.size() < 4) return;  // too short to be told from ordinary text
  std::lock_guard<std::mutex> lock(g_mutex);
  secrets().push_back(secret);
}

std::string untrusted_text(std::string_view s, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(s.size(), max_bytes) + 3);
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t n = utf8_length(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t take = n == 0 ? 1 : n;
    if (out.size() + take > max_bytes) {
      out += "...";
      break;
    }
    if (n == 0 || (n == 1 && c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
      out.push_back('?');
    else
      out.append(s.substr(i, n));
    i += take;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const auto& secret : secrets())
    for (auto at = out.find(secret); at != std::string::npos; at = out.find(secret, at))
      out.replace(at, secret.size(), "[redacted]");
  return out;
}

}  // namespace kjudge
