#include "judge/detail/reference.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "pool/worker_client.hpp"

namespace kjudge::detail {

bool reference_data::finite() const {
  for (const auto& t : ref64) {
    const auto* p = static_cast<const double*>(t.data());
    std::vector<char> ok(oracle_threads(t.numel()), 1);
    parallel_chunks(t.numel(), 1, [&](std::size_t c, std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i)
        if (!std::isfinite(p[i])) {
          ok[c] = 0;
          return;
        }
    });
    if (std::find(ok.begin(), ok.end(), 0) != ok.end()) return false;
  }
  return true;
}

or_verdict<reference_data> run_reference(const evaluation_context& cx, worker_process& ref, const call_spec& c,
                                         bool full, bool borrow) {
  auto r = worker_client(ref).reference(c, full, cx.tf32_envelope, 600, "the reference's run");
  if (!r.ok()) return r.rejection();
  return reference_from_reply(cx, ref, c, full, r.value(), borrow);
}

namespace {

// The envelope of output i from the reference's same-dtype run and, with full, its perturbed runs
// (their tensors appended to d.runs where borrowed).
void add_envelope(const evaluation_context& cx, worker_process& ref, const std::vector<arena_slot>& layout,
                  const call_spec& c, int n_runs, bool borrow, int i, reference_data& d) {
  const int n_out = static_cast<int>(c.outputs.size());
  const auto io = static_cast<std::size_t>(i);
  std::vector<host_tensor> runs;
  if (d.full)
    for (int p = 0; p < n_runs; ++p)
      runs.push_back(tensor_from_arena(ref.arena(), find_slot(layout, slot_kind::ref_perturbed, p * n_out + i),
                                       c.outputs[io], borrow));
  std::vector<const host_tensor*> ptrs{&d.ref_same[io]};
  for (const auto& r : runs) ptrs.push_back(&r);
  const std::size_t group = io < cx.envelope_groups.size() ? cx.envelope_groups[io] : 0;
  d.envelope.push_back(error_envelope(d.ref64[io], ptrs, group));
  // Views cost nothing to keep; copies (not borrowed) would hold every run's output meanwhile.
  d.runs.push_back(borrow ? std::move(runs) : std::vector<host_tensor>{});
}

}  // namespace

reference_data reference_from_reply(const evaluation_context& cx, worker_process& ref, const call_spec& c, bool full,
                                    const json& r, bool borrow) {
  if (r.value("rc", 0) != 0 || r.value("rc64", 0) != 0)
    throw internal_error("the reference returned an error status on its own inputs");
  const auto layout = reference_layout(c, cx.tf32_envelope);
  reference_data d;
  d.full = full;
  d.tf32 = cx.tf32_envelope;
  d.source = &ref;
  d.call = c;
  for (std::size_t i = 0; i < c.outputs.size(); ++i) {
    tensor_desc d64 = c.outputs[i];
    d64.type = dtype::f64;
    d.ref64.push_back(tensor_from_arena(ref.arena(), find_slot(layout, slot_kind::ref64, int(i)), d64, borrow));
    d.ref_same.push_back(
        tensor_from_arena(ref.arena(), find_slot(layout, slot_kind::ref_same, int(i)), c.outputs[i], borrow));
  }
  for (std::size_t i = 0; i < c.inputs.size(); ++i)
    d.inputs.push_back(tensor_from_arena(ref.arena(), find_slot(layout, slot_kind::input_generated, int(i)),
                                         c.inputs[i].desc, borrow));
  // How many envelope runs the worker made (with TF32, six draws and the native run where the
  // reference has a TF32 mode); the arena has slots for envelope_runs(tf32).
  const int n_runs = full ? r.value("envelope_runs", envelope_runs(d.tf32)) : 0;
  if (n_runs < 0 || n_runs > envelope_runs(d.tf32))
    throw internal_error("the reference reported " + std::to_string(n_runs) + " envelope runs; the arena holds " +
                         std::to_string(envelope_runs(d.tf32)));
  for (int i = 0; i < static_cast<int>(c.outputs.size()); ++i) add_envelope(cx, ref, layout, c, n_runs, borrow, i, d);
  return d;
}

or_verdict<compare_result> compare_with_reference(evaluation_context& cx, const host_tensor& out, reference_data& ref,
                                                  std::size_t i, const tolerance& tol, double k) {
  compare_result cr = compare_output_envelope(out, ref.ref64[i], ref.ref_same[i], ref.envelope[i], tol, k);
  if (cr.pass || ref.full || ref.source == nullptr) return cr;
  cx.widened.insert(envelope_key(ref.call));
  // Views again (no copies: the controller then holds no second copy of the reference's arena),
  // replacing the narrower envelope's, which the rerun has overwritten with the same call's data.
  auto wide = run_reference(cx, *ref.source, ref.call, true, cx.borrow_reference());
  if (!wide.ok()) return wide.rejection();
  ref = std::move(wide.value());
  return compare_output_envelope(out, ref.ref64[i], ref.ref_same[i], ref.envelope[i], tol, k);
}

json envelope_evidence(const reference_data& ref, std::size_t i, std::size_t index) {
  if (i >= ref.envelope.size() || index >= ref.envelope[i].size()) return nullptr;
  const envelope_values& e = ref.envelope[i];
  json runs = json::array();
  const auto value = [](const host_tensor& t, std::size_t at) {
    const double v = t.get(at);
    return std::isfinite(v) ? json(v) : json(std::to_string(v));
  };
  if (i < ref.runs.size())
    for (const auto& r : ref.runs[i]) runs.push_back(value(r, index));
  const bool kinked = std::binary_search(e.kinked().begin(), e.kinked().end(), index);
  json out{{"same_run", value(ref.ref_same[i], index)},
           {"runs", runs},
           {"full", ref.full},
           {"tf32", ref.tf32},
           {"row_envelope", e.row(index / e.row_length())},
           {"row_length", e.row_length()},
           {"kinked", kinked}};
  if (kinked) out["kink_floor"] = e.kink_floor();
  return out;
}

}  // namespace kjudge::detail
