// Reading a JSON document from a file, and writing one so that a reader never sees half of it
// (results, reports, the loop's state).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

namespace kjudge {

// Writes `doc` (2-space indented, trailing newline) so that readers see either the old file or
// the complete new one: a temporary file in the same directory, fsync, rename, fsync of the
// directory. Creates missing parent directories. Throws usage_error naming the path on failure.
void write_json_file(const std::filesystem::path& file, const nlohmann::json& doc);

// The document in `file`. Throws usage_error naming the path when it cannot be read or is not
// valid JSON.
nlohmann::json read_json_file(const std::filesystem::path& file);

}  // namespace kjudge
