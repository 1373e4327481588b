// `kjudge batch`'s Slurm modes (docs/batch.md, "On a Slurm cluster"): --slurm submits the batch as
// a job array, --status shows its progress, --cancel stops it, --resubmit submits again the
// tasks that ended without finishing their shard. Registered and run from batch_command.cpp.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/discovery.hpp"
#include "batch/state.hpp"

namespace CLI {
class App;
}

namespace kjudge::cli {

struct slurm_flags {
  bool slurm = false;
  bool status = false;
  bool cancel = false;
  bool resubmit = false;
  std::string partition;
  unsigned time_limit_min = 0;
  unsigned tasks = 0;
  int gpus_per_task = -1;  // -1: 1 on cuda, 0 on the cpu
  unsigned max_requeues = 3;
};

void add_slurm_flags(CLI::App* batch, slurm_flags& f);

// --status, --cancel or --resubmit: they read the state directory only (no discovery, nothing
// rewritten).
bool slurm_query_selected(const slurm_flags& f);
int run_slurm_query(const slurm_flags& f, const std::filesystem::path& state_dir);

// --slurm: writes and submits the array for the batch `s` (its state directory made by the caller).
// argv is the whole command line; each task reruns it without the Slurm options, with --shard I/N.
int submit_slurm_batch(const slurm_flags& f, const batch::batch_state& s, const std::string& run_dir,
                       std::size_t n_candidates, const std::string& device, int argc, char** argv);

}  // namespace kjudge::cli
