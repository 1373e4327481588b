// torch.compile's on-disk caches of the problem's own Python baselines (inductor's FX graph,
// AOT and autotuning caches, Triton's kernels), kept between evaluations so that the second
// candidate of a problem, and every later set of workers of one evaluation, does not pay the
// baselines' compile again (65 s of a 125 s KernelBench level-1 verdict on the H100,
// bench/results/h200/2026-12-07-h100-batch-kb-level1.txt).
//
// Processes are not reused: every timed party, baseline or candidate, runs in a fresh worker with
// the same history (docs/design.md). Only files are carried over, and only the trusted parties':
//   - a baseline's worker finds the stored entry copied into its own scratch directory before it
//     starts (kjudge_host.py points torch's cache variables there) and writes only that copy;
//   - the controller publishes a worker's caches once its warm-up succeeded, as a new entry,
//     atomically (a rename), and never over an entry that exists: readers see all or nothing;
//   - a candidate's worker is never seeded and never published: what it compiles stays in its
//     scratch, which no other party reads.
// An entry is keyed by everything the party's compile depends on that kjudge chooses (the party
// description: file, entry, compile mode, TF32, device, dtype, arguments, interpreter) and the
// bytes of the party's file; torch's own keys decide hits within an entry.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace kjudge {

class torch_compile_cache {
 public:
  // The scratch subdirectory a Python worker's torch caches live in (kjudge_host.py).
  static constexpr const char* k_scratch_subdir = "torch-compile-cache";
  // An entry larger than this is not kept (bytes): copying it into every worker would cost more
  // than max-autotune's kernels are worth keeping.
  static constexpr std::uintmax_t k_max_entry_bytes = 2ull << 30;

  // The cache of one party: `party` is its description (python_party), `file_sha256` its file's.
  torch_compile_cache(const nlohmann::json& party, const std::string& file_sha256);

  [[nodiscard]] const std::string& key() const { return m_key; }
  [[nodiscard]] std::filesystem::path entry() const;  // cache_root()/torch-compile/<key>

  // Copies the stored entry, if any, into scratch/k_scratch_subdir, every file and directory of
  // the copy writable by its owner (the worker rewrites some: Triton's metadata); returns the
  // files copied. Never throws: a cache that cannot be read is a cold compile, reported by the
  // count.
  std::size_t seed(const std::filesystem::path& scratch) const;

  // A seeded worker that failed its warm-up: its copy is removed from `scratch` and the stored
  // entry dropped (the next worker compiles cold and publishes anew). Never throws.
  void discard(const std::filesystem::path& scratch) const;

  // Stores scratch/k_scratch_subdir as the entry unless one exists. Returns what happened:
  // "published", "kept" (an entry exists), "empty", "too large" or "failed: why".
  [[nodiscard]] std::string publish(const std::filesystem::path& scratch) const;

 private:
  std::string m_key;
};

}  // namespace kjudge
