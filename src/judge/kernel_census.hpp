// The kernel census (docs/notebook/2026-12-03-kernel-census-and-discrete-floats.md): after each set of workers' timed
// rounds, every timed party makes one more call per timed case under the CUPTI trace, and the result records which
// kernels that call launched and how long each ran on the device. Diagnostic only: it is taken once no counted sample
// is left in the set's processes (tracing instruments kernel code and would perturb a timed call), and it never changes
// a verdict.
//
// What it answers: KernelBench level 1 #68 (conv_transpose3d) judged against itself ran 5.5%
// slower as the candidate than as torch:eager in every one of three sets of fresh processes,
// with identical code. Whether the processes launched different kernels (cuDNN choosing
// another algorithm), the same kernels running longer (where the data landed), or the same
// kernels for the same time inside a longer window (host gaps) is what a census of both parties
// tells apart.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pool/worker_process.hpp"
#include "protocol/messages.hpp"

namespace kjudge {

// One traced call of `call` in `w` (time_begin, a traced sample, discard, time_end), as a census
// entry: {"window_ns", "kernel_ns", "kernels", "by_name": [{"name", "count", "ns", "grid",
// "block"}] (longest first), "complete", "seconds"}; {"error": why} where the worker did not
// answer as expected or its backend has no trace ("unavailable"). Never throws for the worker.
nlohmann::json census_call(worker_process& w, const call_spec& call, std::uint64_t seed, const std::string& mode,
                           double timeout_s);

// A census entry from a trace summary (the cuda backend's end_trace(): "records" with "kind",
// "name", "start_ns", "end_ns", "judge", "grid", "block"; "window_ns", "records_total").
nlohmann::json census_entry(const nlohmann::json& trace, double seconds);

// Whether two entries launched the same kernels (the same names, each as many times).
bool same_kernels(const nlohmann::json& a, const nlohmann::json& b);

// The comparison of a candidate's entry with a baseline's running the same code (same file, same
// settings): {"set", "case", "baseline", "same_kernels", "candidate_kernel_ns",
// "baseline_kernel_ns", "candidate_window_ns", "baseline_window_ns", "only_candidate",
// "only_baseline"} (the names one ran more often than the other).
nlohmann::json compare_same_code(const nlohmann::json& candidate, const nlohmann::json& baseline, int set,
                                 const std::string& case_id, const std::string& baseline_name);

}  // namespace kjudge
