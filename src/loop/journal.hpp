// The loop's journal: an append-only file of JSON lines in the workdir, the single source of
// truth for resuming. Every event is one write(2) of a whole line followed by fsync, so kill -9
// leaves at most one torn last line, which reading drops (and repair truncates).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kjudge::loop {

class journal {
 public:
  // Opens (creating) the file for appending. Throws usage_error naming the path on failure.
  explicit journal(std::filesystem::path file);
  ~journal();
  journal(const journal&) = delete;
  journal& operator=(const journal&) = delete;

  // Appends one event (a JSON object) and makes it durable before returning.
  void append(const nlohmann::json& event);

  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
  int m_fd = -1;
};

// The events of a journal file in order. A last line without its newline or that does not parse
// is a write cut short by a kill: it is dropped, and with `repair` cut off the file so that the
// next append starts on a clean line. A malformed line before the last throws usage_error with
// file:line. A missing file reads as no events.
std::vector<nlohmann::json> read_journal(const std::filesystem::path& file, bool repair);

// Writes `text` so that readers see the old file or the whole new one (temporary file in the same
// directory, fsync, rename, fsync of the directory). Throws usage_error naming the path.
void write_file_atomic(const std::filesystem::path& file, const std::string& text);

}  // namespace kjudge::loop
