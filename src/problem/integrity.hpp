// Imported problems are content-addressed: `kjudge import` writes kjudge-manifest.json beside the
// problem's files, holding the SHA-256 of each, and makes every file read-only; every load
// verifies the files against it. The problem's model.py (or reference.py) is the oracle of every
// later evaluation: one rewritten after import (by a candidate that ran before the sandbox did, by
// hand) would judge every later candidate against the wrong function. A problem that fails is
// refused (exit 2) with the file and both hashes; re-importing it writes it anew.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kjudge {

inline constexpr const char* problem_manifest_file = "kjudge-manifest.json";

// After an import wrote `dir`: records every regular file's SHA-256 and makes them read-only.
void seal_problem_dir(const std::filesystem::path& dir);

// Before an import writes `dir` again: its read-only files become writable (and are replaced).
void unseal_problem_dir(const std::filesystem::path& dir);

// Why `dir` fails its manifest (a file changed, missing or added; no manifest beside an import's
// sidecar), or nullopt when it passes or was never imported (a suite problem, a hand-written one).
std::optional<std::string> verify_problem_dir(const std::filesystem::path& dir);

// The SHA-256 of the manifest (the whole problem's content), or "" without one.
std::string problem_content_sha256(const std::filesystem::path& dir);

}  // namespace kjudge
