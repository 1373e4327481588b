#include "loop/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "core/error.hpp"

namespace kjudge::loop {

namespace {

[[noreturn]] void fail(const std::filesystem::path& p, const std::string& what, int err) {
  throw usage_error(p.string() + ": " + what + ": " + std::strerror(err));
}

void write_all(int fd, const std::string& s, const std::filesystem::path& p) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(p, "cannot write", errno);
    }
    done += static_cast<std::size_t>(n);
  }
}

void fsync_dir(const std::filesystem::path& dir) {
  const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    ::fsync(d);
    ::close(d);
  }
}

}  // namespace

journal::journal(std::filesystem::path file) : m_path(std::move(file)) {
  std::error_code ec;
  if (m_path.has_parent_path()) std::filesystem::create_directories(m_path.parent_path(), ec);
  m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (m_fd < 0) fail(m_path, "cannot open the journal", errno);
}

journal::~journal() {
  if (m_fd >= 0) ::close(m_fd);
}

void journal::append(const nlohmann::json& event) {
  // One write of the whole line: O_APPEND makes it land at the end in one piece.
  const std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  write_all(m_fd, line, m_path);
  if (::fsync(m_fd) != 0) fail(m_path, "cannot fsync the journal", errno);
}

std::vector<nlohmann::json> read_journal(const std::filesystem::path& file, bool repair) {
  std::vector<nlohmann::json> events;
  std::ifstream in(file, std::ios::binary);
  if (!in) return events;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::size_t pos = 0, good_end = 0;
  long line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    const auto nl = text.find('\n', pos);
    const bool complete = nl != std::string::npos;
    const std::string line = text.substr(pos, (complete ? nl : text.size()) - pos);
    const std::size_t next = complete ? nl + 1 : text.size();
    const bool last = next >= text.size();
    nlohmann::json ev;
    bool ok = complete;
    if (ok) {
      try {
        ev = nlohmann::json::parse(line);
        ok = ev.is_object();
      } catch (const nlohmann::json::exception&) {
        ok = false;
      }
    }
    if (!ok) {
      if (last) break;  // a torn tail: the kill came in the middle of this write
      throw usage_error(located(file.string(), line_no, "malformed journal event (not a JSON object)"));
    }
    events.push_back(std::move(ev));
    pos = next;
    good_end = next;
  }
  if (repair && good_end < text.size()) {
    if (::truncate(file.c_str(), static_cast<off_t>(good_end)) != 0) fail(file, "cannot cut the torn last line", errno);
  }
  return events;
}

void write_file_atomic(const std::filesystem::path& file, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw usage_error(file.string() + ": cannot create directory: " + ec.message());
  std::random_device rd;
  fs::path tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    tmp = dir / ("." + file.filename().string() + "." + std::to_string(rd()) + ".tmp");
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) fail(tmp, "cannot create", errno);
  }
  if (fd < 0) fail(file, "cannot create a temporary file", EEXIST);
  try {
    write_all(fd, text, tmp);
    if (::fsync(fd) != 0) fail(tmp, "cannot fsync", errno);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(file, "cannot rename the temporary file into place", err);
  }
  fsync_dir(dir);
}

}  // namespace kjudge::loop
