#include "core/json_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

#include "core/error.hpp"

namespace kjudge {

nlohmann::json read_json_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw usage_error(file.string() + ": cannot be read");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw usage_error(file.string() + ": not valid JSON: " + e.what());
  }
}

void write_json_file(const std::filesystem::path& file, const nlohmann::json& doc) {
  namespace fs = std::filesystem;
  auto fail = [&](const std::string& what, int err) {
    throw usage_error(file.string() + ": cannot write: " + what + ": " + std::strerror(err));
  };
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw usage_error(file.string() + ": cannot create directory: " + ec.message());

  const std::string text = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";

  // The temporary lives next to the target: rename() is atomic only within one file system.
  // O_EXCL with a random suffix instead of mkstemp so that the file gets 0666 & ~umask, as a
  // file written with open(2) would.
  std::random_device rd;
  fs::path tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    tmp = dir / fmt::format(".{}.{:08x}.tmp", file.filename().string(), rd());
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) fail("create " + tmp.string(), errno);
  }
  if (fd < 0) fail("create a temporary file in " + dir.string(), EEXIST);

  auto abandon = [&](const std::string& what) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(what, err);
  };
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      abandon("write");
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  // fsync before rename: otherwise a power loss can leave the new name on an empty file.
  if (::fsync(fd) != 0) abandon("fsync");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("close", err);
  }
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("rename " + tmp.string(), err);
  }
  // Persist the directory entry; failure here is not worth failing a finished evaluation.
  if (int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace kjudge
