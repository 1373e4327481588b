// The reference's view of a call, read from its worker's arena, and the comparison of a
// candidate's output with it (the oracle's error envelope, widened before a failure counts).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

#include "judge/detail/context.hpp"
#include "oracle/oracle.hpp"

namespace kjudge::detail {

// The reference's view of one call: float64 outputs, same-dtype outputs, generated inputs.
struct reference_data {
  std::vector<host_tensor> ref64, ref_same, inputs;
  std::vector<envelope_values> envelope;  // per output: the oracle's per-element error envelope
  // Per output, the envelope's runs (views of the reference's arena; only when borrowed and full):
  // a failing element's evidence says what each gave there (envelope_evidence).
  std::vector<std::vector<host_tensor>> runs;
  // Whether the envelope includes the one-ulp-perturbed runs. The first request asks only for the
  // exact run: the bound is monotone in the envelope, so an output within the narrower envelope is
  // within the full one, and the perturbed runs (three more reference calls and their transfer,
  // the bulk of a large case's check) are requested only for an output that fails it.
  bool full = false;
  bool tf32 = false;  // the last envelope run rounds f32 inputs to TF32 (problem permits TF32)
  worker_process* source = nullptr;
  call_spec call;
  [[nodiscard]] bool finite() const;
};

// Reads the reference's outputs of a "referenced" reply from its arena. borrow: the tensors are
// views of the arena (no copy: a recheck of an 8192 x 8192 case copied and page-faulted ~1 GiB),
// valid until the reference worker's next request; the caller uses them before that.
reference_data reference_from_reply(const evaluation_context& cx, worker_process& ref, const call_spec& c, bool full,
                                    const nlohmann::json& r, bool borrow);

// borrow: views of the reference's arena (see reference_from_reply), valid until its next request.
or_verdict<reference_data> run_reference(const evaluation_context& cx, worker_process& ref, const call_spec& c,
                                         bool full = false, bool borrow = false);

// Compares one output with the envelope at hand; widens to the full envelope (the perturbed runs)
// before any failure counts.
or_verdict<compare_result> compare_with_reference(evaluation_context& cx, const host_tensor& out, reference_data& ref,
                                                  std::size_t i, const tolerance& tol, double k);

// Why a failing output's worst element was allowed what it was: the value each of the reference's
// runs gave there (the same-dtype run, then the envelope's runs: one-ulp moves, or TF32 draws with
// the reference's own TF32 run last where it has one), the element's row envelope, and whether it
// is kinked (then at least the kink floor). KernelBench level 2 #46's failure on the H100 had to
// be worked back from out, ref and allowed alone (docs/design.md, 2026-12-05, H100).
nlohmann::json envelope_evidence(const reference_data& ref, std::size_t i, std::size_t index);

}  // namespace kjudge::detail
