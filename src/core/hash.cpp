#include "core/hash.hpp"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace kjudge {

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1)
    throw internal_error("EVP_Digest(sha256) failed");
  static const char* hex = "0123456789abcdef";
  std::string s;
  s.reserve(2 * static_cast<std::size_t>(len));
  for (unsigned i = 0; i < len; ++i) {
    s += hex[md[i] >> 4];
    s += hex[md[i] & 15];
  }
  return s;
}

std::string read_file(const std::filesystem::path& p) {
  std::error_code ec;
  if (!std::filesystem::exists(p, ec)) throw usage_error(p.string() + ": no such file");
  if (std::filesystem::is_directory(p, ec)) throw usage_error(p.string() + ": is a directory, expected a file");
  std::ifstream in(p, std::ios::binary);
  if (!in) throw usage_error(p.string() + ": cannot be read (" + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace kjudge
