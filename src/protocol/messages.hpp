// Messages between the controller and kjudge-worker, and the arena layout both sides compute
// independently (the controller never takes buffer offsets from the worker).
//
// controller -> worker                         worker -> controller
//   hello {library, role, backend, arena}        ready {info, abi, has_workspace, env} | error
//   run {call, repeats}                          ran {rc[], guards[], deferred[], seconds[]}
//   reference {call, envelope, tf32}             referenced {rc, rc64, envelope_runs, phases_s}
//                                                (reference role only; envelope: also the
//                                                perturbed runs, TF32 draws with tf32)
//   time_begin {call, mode, flush_bytes}         time_ready
//   sample {seed}                                sampled {rc, seconds}
//   keep | discard  (after every sampled)        kept {guards[], deferred[]} | discarded
//   time_end                                     time_done
//   warm_batch {call, count, sets}               warm_done {seconds_total}
//   bye                                          (exit 0)
// Any request may also be answered by  error {kind, message}  (kind: bad_input, runtime_error,
// resource_limit, internal).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inputs/distributions.hpp"

namespace kjudge {

using json = nlohmann::json;

inline constexpr int protocol_version = 1;

// Whose code a worker runs, named in `hello` (role): the candidate's (its failures are its
// verdicts), a baseline's or the reference's (the problem's own code: their failures are usage
// errors, never the candidate's), or the doctor's (the device's ceilings, no party).
enum class worker_role { candidate, baseline, reference, doctor };
std::string worker_role_name(worker_role r);
// nullopt for a name that is none of the four.
std::optional<worker_role> parse_worker_role(const std::string& name);

// Everything a worker needs to generate a call's inputs and allocate its outputs.
struct call_spec {
  std::vector<input_plan> inputs;
  std::vector<tensor_desc> outputs;
  std::vector<double> scalars;
  std::string distribution;
  std::uint64_t seed = 0;
  // Nonzero: after generation, a few elements of every input are changed (inputs/perturbation.hpp), on
  // the candidate's and the reference's side alike. The stale-output probe's calls only.
  std::uint64_t perturb = 0;
};

json to_json(const call_spec& c);
call_spec call_from_json(const json& j);  // throws internal_error on malformed content

// What a slot of the arena holds.
enum class slot_kind { output, output_repeat, input_after, ref64, ref_same, input_generated, ref_perturbed };

// Runs of the same-dtype reference on inputs perturbed by one ulp per element (random signs),
// which with the unperturbed run give the oracle's per-element error envelope.
inline constexpr int reference_perturbations = 3;
// With TF32 permitted: runs on inputs (and a Python reference's parameters) rounded to TF32 in a
// random direction. Six, not three: where one element's sensitivity stands alone in its row (a
// value just above a clamp, a softmax near a tie) the chance that every draw falls below 1/k of
// another honest draw is about (0.05|z|)^runs per element, and with three honest torch with TF32
// on still failed 1-2 elements in 10^7-10^8 on the H200 (KernelBench level 2 #2, #13; 2026-12-04, H200).
inline constexpr int reference_tf32_draws = 6;
// After the draws, where the reference has a TF32 mode of its own (torch's allow_tf32: the
// computation the candidate is compared against), one run of it computed that way: rounding the
// operands is not how every TF32 algorithm errs, and honest torch failed level 2 #46 on `wide`
// inputs at 14x what the draws allowed (2026-12-05, H100). The arena has its slot either way; the
// reply's "envelope_runs" says how many runs were made.
inline constexpr int reference_perturbations_tf32 = reference_tf32_draws + 1;
// The arena slots for the envelope's perturbed runs of a reference request.
constexpr int envelope_runs(bool tf32) {
  return tf32 ? reference_perturbations_tf32 : reference_perturbations;
}

struct arena_slot {
  slot_kind kind;
  int index = 0;  // input or output index
  std::size_t offset = 0;
  std::size_t bytes = 0;
};

// Candidate/baseline calls: outputs of the first run, outputs of the repeat (if repeats == 2),
// then the inputs as they were after the call.
std::vector<arena_slot> candidate_layout(const call_spec& c, int repeats);
// Reference calls: float64 outputs, outputs in the problem's dtype, the generated inputs, then
// the perturbed runs (index p * n_outputs + output; envelope_runs(tf32) of them, last, so that the
// other slots' offsets do not depend on tf32).
std::vector<arena_slot> reference_layout(const call_spec& c, bool tf32);
std::size_t layout_bytes(const std::vector<arena_slot>& slots);
const arena_slot& find_slot(const std::vector<arena_slot>& slots, slot_kind k, int index);

std::string seed_hex(std::uint64_t seed);

}  // namespace kjudge
