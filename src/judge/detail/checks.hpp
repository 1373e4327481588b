// The checks of one call (contract §2.3): its outputs against the reference (or the problem's own
// check), its inputs unchanged, and the worker's evidence (guard zones, deferred work, the kernel
// trace). Each returns its outcome: the case entry or nothing on a pass, the verdict that rejects
// the candidate otherwise; the phase that ran it decides what a rejection ends.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "judge/detail/reference.hpp"

namespace kjudge::detail {

// Where a checked call comes from, for a failure's reasons.
struct call_check {
  std::string context;  // "case hidden-3" / "timed call 17 of round 4"
  const planned_case* pc = nullptr;
};

// "M=64 N=256, distribution normal, seed 0x..." for a failure's reason; a problem without shape
// symbols (an imported KernelBench problem: fixed shapes) has no shape part.
std::string case_circumstances(const planned_case& pc, const call_spec& c);

// Checks a call's outputs (slots out_kind of `layout` in `arena`) against the reference. Returns
// the case entry (base_entry and the figures), or the verdict of the first violation; is_timed:
// a rechecked timed call (rule timed_output_mismatch).
or_verdict<nlohmann::json> check_outputs(evaluation_context& cx, shared_arena& arena, const call_spec& c,
                                         const std::vector<arena_slot>& layout, slot_kind out_kind, reference_data& ref,
                                         const tolerance& tol, double k, const call_check& ctx,
                                         const nlohmann::json& base_entry, bool is_timed);

// Rule input_modified: the call's inputs read back from the arena against the reference's draws.
std::optional<verdict> check_inputs_unchanged(shared_arena& arena, const call_spec& c,
                                              const std::vector<arena_slot>& layout, const reference_data& ref,
                                              const std::string& context);

// The worker's evidence of a call ("guards", "deferred", the trace in "extra"): rules
// out_of_bounds_write, deferred_work, library_call, unjoined_stream_work.
std::optional<verdict> check_evidence(const evaluation_context& cx, const nlohmann::json& ev,
                                      const std::string& context);

}  // namespace kjudge::detail
