// The probes an evaluation runs beyond its checked calls: the stale-output probe after the first
// checked case, the untimed rerun that labels a failed recheck, and the cross-check of a worker's
// clock against the controller's. Each returns its outcome; none ends the evaluation itself.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "judge/detail/checks.hpp"

namespace kjudge::detail {

// The stale-output probe (rule stale_output): the call just checked is run again with a few
// elements of every input changed (inputs/perturbation.hpp). A candidate that hands back an earlier
// result, cached by pointer, by shape or by a hash of part of the input, returns the previous
// call's output; an honest one the new one. The output is judged against this call's reference
// first; only if it fails there and matches the previous call's reference is the rule
// stale_output, otherwise the ordinary rule of the failure. The probe's case entry goes to cases.
std::optional<verdict> stale_output_probe(evaluation_context& cx, worker_process& cand, worker_process& ref,
                                          const call_spec& prev, const planned_case& pc, const tolerance& tol, double k,
                                          std::uint64_t secret, double timeout_s, nlohmann::json& cases);

// A rechecked timed call failed (rule timed_output_mismatch: a hack). Whether the output changed
// under timing is then asked of the behaviour: the same call (its seed, so the same inputs) runs
// again, untimed, twice, in a fresh worker of the candidate's, a process with no history (a
// candidate that cheats after its 60th call or on long runs of calls computes honestly there; two
// calls are what every checked case already ran, so a candidate that got this far passes them).
// - An untimed call fails too: the failure is the kernel's answer on these inputs and the verdict
//   is the untimed rule's (wrong_result): honest torch's TF32 rounding tail, one element of 10^8,
//   was labelled a hack on KernelBench level 2 (#1, 2026-12-04, H200).
// - Both pass, but the kernel is nondeterministic (the two untimed outputs differ bitwise, or a
//   checked case's repeat did): a call-to-call variation that crossed the tolerance once cannot be
//   told from a change under timing, so the label is rule nondeterministic (wrong_result), which
//   says what was seen: the same inputs gave a passing and a failing output (atomics whose
//   summation order moves the rounding tail; 2026-12-06, H100).
// - Both pass with bitwise-equal outputs and no checked case varied: the kernel is deterministic
//   untimed and its timed output differs, so the output changed under timing; the hack stands.
// - The rerun cannot run: the hack stands, with why. In every case the candidate is rejected:
//   only the label is decided, and returned.
verdict classify_timed_failure(evaluation_context& cx, verdict timed, worker_options wo, const call_spec& sc,
                               reference_data& rd, const tolerance& tol, double k, const call_check& ctx,
                               const nlohmann::json& base, bool checked_varied, double timeout_s);

// The controller's check of the worker's clock (rule timer_tamper). Two back-to-back batches of n1
// and n2 calls (warm_batch, `sets` distinct input sets each) are timed by the worker (reported) and
// by the controller around each request (wall). Their difference cancels the fixed costs (drawing
// the inputs, the round trip), so reported_diff / wall_diff is close to 1 for an honest clock,
// whatever the machine's load does to both alike. Returns the ratio, or nullopt when the wall
// difference is too small to say anything.
struct clock_check {
  double ratio = 1.0;
  double reported_s = 0.0, wall_s = 0.0;
};
or_verdict<std::optional<clock_check>> batch_clock_ratio(worker_process& w, const call_spec& call, int n1, int n2,
                                                         int sets, std::uint64_t seed, double timeout_s);

}  // namespace kjudge::detail
