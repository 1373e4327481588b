// What the checks of an evaluation need to know about it (the problem's oracle, the run's
// settings, the envelopes already widened): one record, owned by the evaluation and passed to
// each check that reads it.
#pragma once

#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "guards/verdict.hpp"
#include "judge/python_parties.hpp"
#include "planner/planner.hpp"
#include "pool/worker_process.hpp"
#include "protocol/messages.hpp"

namespace kjudge::detail {

using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t0);

// Rule library_call: where the problem sets library_kernels = false, the entry functions ptxas
// compiled from the candidate's source (its build's resources); a traced kernel outside them came
// from a library or a prebuilt binary.
struct library_policy {
  bool forbid = false;
  std::vector<std::string> own_kernels;
};

struct evaluation_context {
  // GPU MODE problems judged by their own check (docs/python.md), for a Python candidate: every
  // party draws a call's inputs with the problem's generate_input.
  const python_problem* generate_input = nullptr;
  // The problem permits TF32 and the run did not switch it off: the reference's last envelope run
  // rounds f32 inputs to TF32.
  bool tf32_envelope = false;
  // check = "qr" (src/oracle/qr_check.hpp): H and tau judged together by backward error against the
  // call's generated inputs, not elementwise against the references.
  bool qr_oracle = false;
  library_policy library;
  bool trace = true;  // eval_options::trace
  // Per output: the envelope's group length (oracle.hpp error_envelope: 0 rows, 1 element-wise).
  std::vector<std::size_t> envelope_groups;
  // The calls (shape, dtypes, scalars and distribution; not the seed) whose output needed the full
  // envelope once (envelope_key): their later reference runs ask for it at once, rather than
  // running the exact reference, failing the narrow envelope and running it again with the
  // perturbed runs (on KernelBench's conv and matmul problems with TF32, every recheck did).
  std::set<std::string> widened;

  // Whether a reference run for this call asks for the full envelope at once. The verdict is the
  // same either way: the bound is monotone in the envelope, and an output failing the narrow one
  // is judged against the full one before anything counts (compare_with_reference).
  [[nodiscard]] bool wants_full_envelope(const call_spec& c) const;
  // The reference's outputs may be read in place (views of its arena): not where the problem's own
  // check writes the candidate's outputs into that arena.
  [[nodiscard]] bool borrow_reference() const { return generate_input == nullptr; }
  [[nodiscard]] call_spec to_call(const planned_case& c) const;
};

std::string envelope_key(const call_spec& c);

// A copy of an arena slot, or with borrow a view of it (no copy; valid while the slot is not
// rewritten, i.e. until the worker owning the arena gets its next request).
host_tensor tensor_from_arena(shared_arena& a, const arena_slot& s, tensor_desc d, bool borrow = false);

}  // namespace kjudge::detail
