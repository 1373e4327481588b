#include "judge/detail/probes.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "guards/rules.hpp"
#include "inputs/perturbation.hpp"
#include "pool/failure_verdict.hpp"
#include "pool/worker_client.hpp"

namespace kjudge::detail {

namespace {

// Rule stale_output: the probe's output failed against its own reference (now_wrong) and passes
// against the previous call's.
verdict stale_output_verdict(const call_spec& probe, const std::string& context, const verdict& now_wrong) {
  json changed = json::array();
  for (std::size_t i = 0; i < probe.inputs.size(); ++i)
    changed.push_back(json{{"input", probe.inputs[i].desc.name},
                           {"flat_indices", perturbed_indices(probe.perturb, static_cast<int>(i), probe.inputs[i].desc,
                                                              probe.inputs[i].structure)}});
  return rule_verdict(
      "stale_output",
      {context + ": the output is the previous call's result, not this call's: it passes against the previous "
                 "inputs' reference and fails against the new ones'",
       now_wrong.reasons.empty() ? std::string() : now_wrong.reasons[0]},
      json{{"case", now_wrong.evidence.value("case", json())}, {"changed_elements", changed}});
}

}  // namespace

std::optional<verdict> stale_output_probe(evaluation_context& cx, worker_process& cand, worker_process& ref,
                                          const call_spec& prev, const planned_case& pc, const tolerance& tol, double k,
                                          std::uint64_t secret, double timeout_s, json& cases) {
  call_spec probe = prev;
  probe.perturb = mix_seed(secret, 0x7374616c652dULL) | 1;
  // Views of the reference's arena where the oracle reads them (the problem's own check writes the
  // candidate's outputs there): nothing asks the reference anything until they are used.
  auto rd = run_reference(cx, ref, probe, cx.wants_full_envelope(probe), cx.borrow_reference());
  if (!rd.ok()) return rd.rejection();
  const std::string context = "case " + pc.id + " (stale-output probe: the previous call's inputs with " +
                              std::to_string(perturbed_elements) + " elements of each input changed)";
  auto ran = worker_client(cand).run(probe, 1, cx.trace, timeout_s, context);
  if (!ran.ok()) return ran.rejection();
  json base{{"id", pc.id + "-stale-probe"},
            {"kind", "probe"},
            {"shape", pc.shape_string()},
            {"symbols", pc.symbols},
            {"distribution", probe.distribution},
            {"seed", seed_hex(probe.seed)},
            {"perturbed", true}};
  for (const auto& rc : ran.value()["rc"])
    if (rc.get<int>() != 0)
      return rule_verdict("nonzero_return", {context + ": kj_run returned " + rc.dump()}, json{{"case", base}});
  if (auto v = check_evidence(cx, ran.value(), context)) return v;
  const auto layout = candidate_layout(probe, 1);
  if (auto v = check_inputs_unchanged(cand.arena(), probe, layout, rd.value(), context)) return v;
  auto now = check_outputs(cx, cand.arena(), probe, layout, slot_kind::output, rd.value(), tol, k,
                           call_check{context, &pc}, base, false);
  if (now.ok()) {
    cases.push_back(std::move(now.value()));
    return std::nullopt;
  }
  // The previous call's reference again (its worker's arena now holds the probe's): only on this
  // path, where a candidate already failed.
  auto prev_rd = run_reference(cx, ref, prev, cx.wants_full_envelope(prev), cx.borrow_reference());
  const bool matches_previous =
      prev_rd.ok() && check_outputs(cx, cand.arena(), prev, layout, slot_kind::output, prev_rd.value(), tol, k,
                                    call_check{context, &pc}, base, false)
                          .ok();
  if (!matches_previous) return now.rejection();
  return stale_output_verdict(probe, context, now.rejection());
}

namespace {

// The same call run again untimed, twice, in the fresh worker (classify_timed_failure).
struct untimed_rerun {
  evaluation_context& cx;
  worker_process& fresh;
  const call_spec& sc;
  reference_data& rd;
  const tolerance& tol;
  double k;
  const call_check& ctx;
  const json& base;
  double timeout_s;
  std::string context;
  std::vector<arena_slot> layout;
  json& rerun;

  // One request of one call (the worker's arena is the timing worker's size, one call's buffers):
  // why its call failed ("kj_run returned ..."), empty when it returned 0.
  or_verdict<std::string> run_once() {
    auto ran = worker_client(fresh).run(sc, 1, true, timeout_s, context);
    if (!ran.ok()) return ran.rejection();
    for (const auto& rc : ran.value().value("rc", json::array()))
      if (rc.get<int>() != 0) return "kj_run returned " + ran.value()["rc"].dump();
    return std::string();
  }

  // A check's rejection is the untimed answer.
  std::optional<verdict> check(const std::string& which) {
    auto r = check_outputs(cx, fresh.arena(), sc, layout, slot_kind::output, rd, tol, k,
                           call_check{context + which, ctx.pc}, base, false);
    if (!r.ok()) return std::move(r.rejection());
    rerun["case"] = std::move(r.value());
    return std::nullopt;
  }

  // The two calls; untimed: a check's rejection. Returns the verdict of the worker's own failure
  // (a crash, a hang, a forged reply), which leaves the rerun not run.
  std::optional<verdict> run(std::optional<verdict>& untimed) {
    auto first_run = run_once();
    if (!first_run.ok()) return first_run.rejection();
    if (!first_run.value().empty()) {
      rerun.update(json{{"status", "not run"}, {"why", first_run.value()}});
      return std::nullopt;
    }
    if ((untimed = check(""))) return std::nullopt;
    // The first call's outputs are copied out before the second overwrites them.
    std::vector<host_tensor> first;
    for (std::size_t i = 0; i < sc.outputs.size(); ++i)
      first.push_back(tensor_from_arena(fresh.arena(), find_slot(layout, slot_kind::output, int(i)), sc.outputs[i]));
    auto second_run = run_once();
    if (!second_run.ok()) return second_run.rejection();
    if (!second_run.value().empty()) {
      rerun.update(json{{"status", "not run"}, {"why", "its second call: " + second_run.value()}});
      return std::nullopt;
    }
    bool bitwise = true;
    double max_diff = 0.0;
    for (std::size_t i = 0; i < sc.outputs.size(); ++i) {
      const host_tensor second =
          tensor_from_arena(fresh.arena(), find_slot(layout, slot_kind::output, int(i)), sc.outputs[i], true);
      const determinism_result dr = compare_runs(first[i], second);
      bitwise = bitwise && dr.bitwise_equal;
      max_diff = std::max(max_diff, dr.max_abs_diff);
    }
    // A second output bitwise equal to the first has its verdict; a different one is checked.
    if (bitwise || !(untimed = check(" (second call)"))) {
      rerun["status"] = "pass";
      rerun["bitwise_equal"] = bitwise;
      if (!bitwise) rerun["max_abs_diff"] = max_diff;
    }
    return std::nullopt;
  }
};

// Rule nondeterministic: the rerun passed twice, but the kernel varies from call to call.
verdict nondeterministic_verdict(const verdict& timed, const json& rerun, bool checked_varied) {
  verdict varied = timed;
  varied.rule = "nondeterministic";
  varied.status = rule("nondeterministic").status;
  varied.reasons.push_back(
      std::string("the same call run again untimed in a fresh worker passes twice, but the kernel is "
                  "nondeterministic (") +
      (rerun.value("bitwise_equal", true) ? std::string("a checked case's repeat differed bitwise")
                                          : "the two untimed outputs differ bitwise, by up to " +
                                                fmt::format("{:.3g}", rerun.value("max_abs_diff", 0.0))) +
      "): the same inputs gave a failing and a passing output, which a variation from call to call explains as "
      "well as a change under timing");
  varied.evidence["timed_failure"] = timed.evidence.value("case", json());
  varied.evidence["untimed_rerun"] = rerun;
  varied.evidence["checked_repeats_varied"] = checked_varied;
  return varied;
}

}  // namespace

verdict classify_timed_failure(evaluation_context& cx, verdict timed, worker_options wo, const call_spec& sc,
                               reference_data& rd, const tolerance& tol, double k, const call_check& ctx,
                               const json& base, bool checked_varied, double timeout_s) {
  if (timed.rule != "timed_output_mismatch") return timed;
  json rerun{{"fresh_worker", true}};
  std::optional<verdict> untimed;
  try {
    wo.scratch_dir += "-rerun";
    auto started = worker_process::start(wo);
    if (std::holds_alternative<worker_failure>(started)) {
      rerun.update(json{{"status", "not run"},
                        {"why", "the worker did not start: " + std::get<worker_failure>(started).message}});
    } else {
      untimed_rerun u{cx,
                      std::get<worker_process>(started),
                      sc,
                      rd,
                      tol,
                      k,
                      ctx,
                      base,
                      timeout_s,
                      ctx.context + ", run again untimed in a fresh worker",
                      candidate_layout(sc, 1),
                      rerun};
      if (auto fault = u.run(untimed))  // the rerun's worker crashed, hung or forged a reply
        rerun.update(json{{"status", "not run"},
                          {"why", std::string(verdict_status_name(fault->status)) +
                                      (fault->reasons.empty() ? "" : ": " + fault->reasons[0])}});
    }
  } catch (const std::exception& e) {
    rerun.update(json{{"status", "not run"}, {"why", e.what()}});
  }
  if (untimed) {
    untimed->reasons.insert(untimed->reasons.begin(),
                            ctx.context +
                                " failed; the same call run again untimed in a fresh worker fails too: the "
                                "kernel's result on these inputs, not a change under timing");
    untimed->evidence["timed_failure"] = timed.evidence.value("case", json());
    untimed->evidence["untimed_rerun"] = json{{"fresh_worker", true}, {"status", "fail"}};
    return *untimed;
  }
  const bool passed = rerun.value("status", "") == "pass";
  if (passed && (!rerun.value("bitwise_equal", true) || checked_varied))
    return nondeterministic_verdict(timed, rerun, checked_varied);
  if (passed)
    timed.reasons.push_back(
        "the same call run again untimed in a fresh worker passes twice with bitwise-equal outputs, and every "
        "checked case's repeat was bitwise equal: the output changed under timing");
  else
    timed.reasons.push_back("the same call could not be run again untimed (" + rerun.value("why", std::string()) +
                            "): the timed failure stands");
  timed.evidence["untimed_rerun"] = rerun;
  return timed;
}

or_verdict<std::optional<clock_check>> batch_clock_ratio(worker_process& w, const call_spec& call, int n1, int n2,
                                                         int sets, std::uint64_t seed, double timeout_s) {
  const auto batch = [&](int count) -> or_verdict<std::pair<double, double>> {
    call_spec c = call;
    c.seed = seed;
    const auto t0 = clock_type::now();
    auto r = worker_client(w).warm_batch(c, count, sets, timeout_s, "the clock cross-check");
    const double wall = since(t0);
    if (!r.ok()) return r.rejection();
    if (r.value().value("rc", 0) != 0)
      return rule_verdict("nonzero_return", {"the clock cross-check: kj_run returned " + r.value()["rc"].dump()});
    return std::pair<double, double>{r.value().value("seconds_total", -1.0), wall};
  };
  auto b1 = batch(n1);
  if (!b1.ok()) return b1.rejection();
  auto b2 = batch(n2);
  if (!b2.ok()) return b2.rejection();
  const auto [r1, w1] = b1.value();
  const auto [r2, w2] = b2.value();
  clock_check cc;
  cc.reported_s = r2 - r1;
  cc.wall_s = w2 - w1;
  if (r1 < 0 || r2 < 0) {
    cc.ratio = -1;
    return std::optional<clock_check>(cc);
  }
  if (cc.wall_s < 0.005) return std::optional<clock_check>();
  cc.ratio = cc.reported_s / cc.wall_s;
  return std::optional<clock_check>(cc);
}

}  // namespace kjudge::detail
