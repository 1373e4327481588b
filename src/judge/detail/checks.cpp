#include "judge/detail/checks.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "guards/rules.hpp"
#include "oracle/qr_check.hpp"
#include "pool/failure_verdict.hpp"
#include "pool/worker_client.hpp"

namespace kjudge::detail {

namespace {

json guard_evidence(const json& guards, const std::string& case_id) {
  json ev = guards;
  for (auto& g : ev) g["case"] = case_id;
  return ev;
}

std::string describe_guard(const json& g) {
  return std::to_string(g.value("bytes_changed", 0)) + " byte(s) changed in the guard zone " + g.value("side", "?") +
         " " + g.value("buffer", "?") + ", the nearest " + std::to_string(g.value("offset", 0)) +
         " byte(s) from its edge";
}

json worst_json(const compare_result& c) {
  if (!c.worst) return nullptr;
  return json{{"index", c.worst->coords},    {"flat_index", c.worst->index},  {"out", c.worst->out},
              {"ref", c.worst->ref},         {"ref_same", c.worst->ref_same}, {"abs_err", c.worst->abs_err},
              {"rel_err", c.worst->rel_err}, {"allowed", c.worst->allowed}};
}

verdict rejection_of(const std::string& rule_name, std::vector<std::string> reasons, json evidence) {
  return verdict{rule(rule_name).status, rule_name, std::move(reasons), std::move(evidence)};
}

// The rule of a failed comparison.
std::string failure_rule(const compare_result& cr, bool is_timed) {
  if (is_timed) return "timed_output_mismatch";
  return cr.n_unwritten > 0 ? "unwritten_output" : cr.n_nan_mismatch > 0 ? "nan_mismatch" : "tolerance";
}

// The problem's own check decides (GPU MODE check_implementation, rule problem_check): the
// candidate's outputs go into the reference worker's arena and that worker, which drew the same
// inputs from the call, runs the check. The elementwise comparison with ref_kernel is recorded for
// information only; unwritten (poisoned) outputs still fail.
or_verdict<json> check_by_problem(const evaluation_context& cx, shared_arena& arena, const call_spec& c,
                                  const std::vector<arena_slot>& layout, slot_kind out_kind, reference_data& ref,
                                  const tolerance& tol, double k, const call_check& ctx, const json& base_entry,
                                  bool is_timed) {
  json entry = base_entry;
  const auto ref_layout = reference_layout(c, cx.tf32_envelope);
  double max_abs = 0, max_rel = 0;
  const std::string where = ctx.context + " (" + case_circumstances(*ctx.pc, c) + ")";
  for (std::size_t i = 0; i < c.outputs.size(); ++i) {
    const auto& s = find_slot(layout, out_kind, int(i));
    const host_tensor out = tensor_from_arena(arena, s, c.outputs[i]);
    const compare_result cr = compare_output_envelope(out, ref.ref64[i], ref.ref_same[i], ref.envelope[i], tol, k);
    max_abs = std::max(max_abs, cr.max_abs_err);
    max_rel = std::max(max_rel, cr.max_rel_err);
    if (cr.n_unwritten > 0) {
      entry.update(json{{"status", "fail"}, {"n_unwritten", cr.n_unwritten}, {"output", c.outputs[i].name}});
      return rejection_of(is_timed ? "timed_output_mismatch" : "unwritten_output",
                          {where + ": output " + c.outputs[i].name + ": " + cr.reason}, json{{"case", entry}});
    }
    const auto& d = find_slot(ref_layout, slot_kind::ref_same, int(i));
    std::memcpy(ref.source->arena().at(d.offset, d.bytes), arena.at(s.offset, s.bytes), std::min(s.bytes, d.bytes));
  }
  auto checked = worker_client(*ref.source).check(c, 600, "the problem's check");
  if (!checked.ok()) return checked.rejection();
  const json& r = checked.value();
  if (r.contains("error")) throw internal_error("check_implementation could not run: " + r["error"].get<std::string>());
  const std::string msg = r.value("message", "");
  entry["rule"] = "check_implementation";
  entry["vs_ref_kernel"] = json{{"max_abs_err", max_abs}, {"max_rel_err", max_rel}, {"informational", true}};
  if (!r.value("ok", false)) {
    entry.update(json{{"status", "fail"}, {"message", "check_implementation: " + (msg.empty() ? "rejected" : msg)}});
    return rejection_of(
        is_timed ? "timed_output_mismatch" : "problem_check",
        {where + ": the problem's check_implementation rejected the output: " + (msg.empty() ? "(no message)" : msg)},
        json{{"case", entry}, {"check_message", msg}});
  }
  entry["status"] = "pass";
  if (!msg.empty()) entry["message"] = msg;
  return entry;
}

or_verdict<json> check_outputs_qr(shared_arena& arena, const call_spec& c, const std::vector<arena_slot>& layout,
                                  slot_kind out_kind, const reference_data& ref, const call_check& ctx,
                                  const json& base_entry, bool is_timed) {
  if (c.inputs.size() != 1 || c.outputs.size() != 2 || ref.inputs.size() != 1)
    throw internal_error("check = \"qr\" needs one input A[B,n,n] and two outputs H[B,n,n], tau[B,n]");
  const host_tensor h = tensor_from_arena(arena, find_slot(layout, out_kind, 0), c.outputs[0], true);
  const host_tensor tau = tensor_from_arena(arena, find_slot(layout, out_kind, 1), c.outputs[1], true);
  const qr_check_result q = check_qr(ref.inputs[0], h, tau, c.outputs[0].type);
  const compare_result& cr = q.cmp;
  json entry = base_entry;
  entry.update(json{{"max_abs_err", cr.max_abs_err},
                    {"max_rel_err", cr.max_rel_err},
                    {"norm_rel_err", cr.norm_rel_err},
                    {"n_bad", cr.n_bad},
                    {"n_unwritten", cr.n_unwritten},
                    {"worst", worst_json(cr)},
                    {"qr",
                     {{"backward_error", q.max_backward},
                      {"orthogonality_error", q.max_orthogonality},
                      {"bound", q.bound},
                      {"factor_l1_error", q.max_factor_l1},
                      {"orthogonality_l1_error", q.max_orth_l1},
                      {"factor_l1_bound", q.factor_l1_bound},
                      {"orthogonality_l1_bound", q.orth_l1_bound},
                      {"c", qr_check_c},
                      {"worst_matrix", q.worst_matrix},
                      {"matrices", q.n_matrices}}}});
  if (cr.pass) {
    entry["status"] = "pass";
    return entry;
  }
  entry.update(
      json{{"status", "fail"}, {"output", cr.output_name}, {"message", "output " + cr.output_name + ": " + cr.reason}});
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "QR backward error ||A - QR||_F/||A||_F %.3g, orthogonality ||Q^T Q - I||_F %.3g "
                "(allowed %.3g each, per matrix); ||R - Q^T A||_1/||A||_1 %.3g (allowed %.3g), "
                "||Q^T Q - I||_1 %.3g (allowed %.3g)",
                q.max_backward, q.max_orthogonality, q.bound, q.max_factor_l1, q.factor_l1_bound, q.max_orth_l1,
                q.orth_l1_bound);
  return rejection_of(
      failure_rule(cr, is_timed),
      {ctx.context + " (" + case_circumstances(*ctx.pc, c) + "): output " + cr.output_name + ": " + cr.reason, buf},
      json{{"case", entry}});
}

// The elementwise oracle's verdict on output i, which failed.
verdict output_failure(const reference_data& ref, const call_spec& c, std::size_t i, const compare_result& cr,
                       const call_check& ctx, json entry, bool is_timed) {
  entry.update(json{{"status", "fail"},
                    {"max_abs_err", cr.max_abs_err},
                    {"max_rel_err", cr.max_rel_err},
                    {"norm_rel_err", cr.norm_rel_err},
                    {"n_bad", cr.n_bad},
                    {"n_unwritten", cr.n_unwritten},
                    {"worst", worst_json(cr)},
                    {"output", c.outputs[i].name},
                    {"message", "output " + c.outputs[i].name + ": " + cr.reason}});
  if (cr.worst && entry["worst"].is_object()) entry["worst"]["envelope"] = envelope_evidence(ref, i, cr.worst->index);
  std::vector<std::string> reasons{
      ctx.context + " (" + case_circumstances(*ctx.pc, c) + "): output " + c.outputs[i].name + ": " + cr.reason,
      "max abs err " + std::to_string(cr.max_abs_err) + ", max rel err " + std::to_string(cr.max_rel_err) +
          ", norm rel err " + std::to_string(cr.norm_rel_err) + " (allowed " + std::to_string(cr.norm_allowed) + ")"};
  return rejection_of(failure_rule(cr, is_timed), std::move(reasons), json{{"case", entry}});
}

}  // namespace

std::string case_circumstances(const planned_case& pc, const call_spec& c) {
  const std::string shape = pc.shape_string();
  return (shape.empty() ? "" : shape + ", ") + "distribution " + c.distribution + ", seed " + seed_hex(c.seed);
}

or_verdict<json> check_outputs(evaluation_context& cx, shared_arena& arena, const call_spec& c,
                               const std::vector<arena_slot>& layout, slot_kind out_kind, reference_data& ref,
                               const tolerance& tol, double k, const call_check& ctx, const json& base_entry,
                               bool is_timed) {
  if (cx.generate_input != nullptr && ref.source != nullptr)
    return check_by_problem(cx, arena, c, layout, out_kind, ref, tol, k, ctx, base_entry, is_timed);
  if (cx.qr_oracle) return check_outputs_qr(arena, c, layout, out_kind, ref, ctx, base_entry, is_timed);
  json entry = base_entry;
  double max_abs = 0, max_rel = 0, norm_rel = 0;
  std::size_t n_bad = 0, n_unwritten = 0;
  json worst = nullptr;
  for (std::size_t i = 0; i < c.outputs.size(); ++i) {
    // A view of the candidate's arena: its worker waits for the next request meanwhile.
    const host_tensor out = tensor_from_arena(arena, find_slot(layout, out_kind, int(i)), c.outputs[i], true);
    auto compared = compare_with_reference(cx, out, ref, i, tol, k);
    if (!compared.ok()) return compared.rejection();
    const compare_result& cr = compared.value();
    max_abs = std::max(max_abs, cr.max_abs_err);
    max_rel = std::max(max_rel, cr.max_rel_err);
    norm_rel = std::max(norm_rel, cr.norm_rel_err);
    n_bad += cr.n_bad;
    n_unwritten += cr.n_unwritten;
    if (worst.is_null()) worst = worst_json(cr);
    if (!cr.pass) return output_failure(ref, c, i, cr, ctx, entry, is_timed);
  }
  entry.update(json{{"status", "pass"},
                    {"max_abs_err", max_abs},
                    {"max_rel_err", max_rel},
                    {"norm_rel_err", norm_rel},
                    {"n_bad", n_bad},
                    {"n_unwritten", n_unwritten},
                    {"worst", worst}});
  return entry;
}

std::optional<verdict> check_inputs_unchanged(shared_arena& arena, const call_spec& c,
                                              const std::vector<arena_slot>& layout, const reference_data& ref,
                                              const std::string& context) {
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const auto& s = find_slot(layout, slot_kind::input_after, int(i));
    const std::byte* after = arena.at(s.offset, s.bytes);
    const auto* before = static_cast<const std::byte*>(ref.inputs[i].data());
    if (parallel_equal(after, before, s.bytes)) continue;
    std::size_t first = 0, changed = 0;
    const std::size_t es = dtype_size(c.inputs[i].desc.type);
    for (std::size_t e = 0; e < ref.inputs[i].numel(); ++e)
      if (std::memcmp(after + e * es, before + e * es, es) != 0) {
        if (changed++ == 0) first = e;
      }
    const double was = ref.inputs[i].get(first);
    const double now = load_as_double(after, c.inputs[i].desc.type, first);
    return rule_verdict("input_modified",
                        {context + ": input " + c.inputs[i].desc.name +
                         " changed by the call: " + std::to_string(changed) + " element(s), first at flat index " +
                         std::to_string(first) + " (" + std::to_string(was) + " -> " + std::to_string(now) + ")"},
                        json{{"input", c.inputs[i].desc.name},
                             {"elements_changed", changed},
                             {"first_index", first},
                             {"before", was},
                             {"after", now}});
  }
  return std::nullopt;
}

namespace {

// Rule library_call on one traced call: a kernel neither the judge's nor compiled from the
// candidate's source, where the problem forbids library kernels.
std::optional<verdict> check_library_kernels(const library_policy& lib, const json& t, const std::string& context) {
  if (!lib.forbid || !t.contains("kernel_names") || !t["kernel_names"].is_array()) return std::nullopt;
  for (const auto& kn : t["kernel_names"]) {
    const std::string name = kn.is_string() ? kn.get<std::string>() : std::string();
    // The judge's own kernels (poison, guards, probes) carry the kj_ prefix or namespace.
    if (name.rfind("kj_", 0) == 0 || name.find("kjudge") != std::string::npos) continue;
    const auto& own = lib.own_kernels;
    if (std::find(own.begin(), own.end(), name) != own.end()) continue;
    return rule_verdict(
        "library_call",
        {context + ": kernel " + name + " is not among the " + std::to_string(own.size()) +
         " entry function(s) compiled from the candidate's source, and this problem forbids library kernels"},
        json{{"kernel", name}, {"own_kernels", own}, {"trace", t}, {"context", context}});
  }
  return std::nullopt;
}

// Rule unjoined_stream_work: work the stop event did not cover ran on another stream or was left
// behind when the call returned.
std::optional<verdict> check_stream_window(const json& t, const std::string& context) {
  if (t.value("ending_after_window", 0) <= 0) return std::nullopt;
  json first = nullptr;
  for (const auto& r : t.value("records", json::array()))
    if (r.value("end_ns", 0.0) > t.value("window_ns", 0.0) && !r.value("judge", false)) {
      first = r;
      break;
    }
  return rule_verdict("unjoined_stream_work",
                      {context + ": " + std::to_string(t.value("ending_after_window", 0)) +
                       " kernel(s) or copies ended after the stop event" +
                       (first.is_object() ? " (first: " + first.value("name", std::string("?")) + " on stream " +
                                                std::to_string(first.value("stream", 0)) + ")"
                                          : std::string())},
                      json{{"trace", t}, {"context", context}});
}

}  // namespace

std::optional<verdict> check_evidence(const evaluation_context& cx, const json& ev, const std::string& context) {
  if (ev.contains("guards") && !ev["guards"].empty())
    return rule_verdict("out_of_bounds_write", {context + ": " + describe_guard(ev["guards"][0])},
                        json{{"guards", guard_evidence(ev["guards"], context)}});
  if (ev.contains("deferred") && !ev["deferred"].empty()) {
    const auto& d = ev["deferred"][0];
    return rule_verdict(
        "deferred_work",
        {context + ": " + d.value("buffer", "?") + " changed " + std::to_string(d.value("after_us", 0)) +
         " us after the call returned (" + std::to_string(d.value("bytes_changed", 0)) + " bytes)"},
        json{{"deferred", ev["deferred"]}, {"context", context}});
  }
  // cuda: the CUPTI trace of a checked call (src/cuda).
  if (ev.contains("extra") && ev["extra"].is_array())
    for (const auto& x : ev["extra"]) {
      if (!x.is_object() || !x.contains("trace") || !x["trace"].is_object()) continue;
      const auto& t = x["trace"];
      if (auto v = check_library_kernels(cx.library, t, context)) return v;
      if (auto v = check_stream_window(t, context)) return v;
    }
  return std::nullopt;
}

}  // namespace kjudge::detail
