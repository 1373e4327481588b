// The summaries (evaluation.hpp): per timed case every baseline's ratio to the candidate and the
// strongest, the headline over cases, and the result document's timing record.
#include <fmt/format.h>

#include <algorithm>

#include "judge/detail/evaluation.hpp"
#include "pool/failure_verdict.hpp"

namespace kjudge::detail {

namespace {

// The SM clocks (MHz) of a party's counted samples: median, min, max and count; null without
// readings (cpu, or a backend that gives none).
json clock_summary(std::vector<double> mhz) {
  if (mhz.empty()) return nullptr;
  const auto [lo, hi] = std::minmax_element(mhz.begin(), mhz.end());
  return json{{"median", stats::median(mhz)}, {"min", *lo}, {"max", *hi}, {"n", mhz.size()}};
}

// A baseline whose rounds ran slower than its calibration beyond the calibration's own spread (and
// by at least 10%) is flagged: something slowed it while the candidate ran. A flag, not a verdict:
// the rule background_work judges the candidate's CPU time; this also sees what takes no CPU time
// of the candidate's (work it queued on a device, say) and what the machine did meanwhile.
json baseline_drift(const std::vector<baseline_calibration>& calibration,
                    const std::vector<std::vector<std::vector<double>>>& per_round,
                    const std::vector<timed_party>& parties, const std::vector<const planned_case*>& bench) {
  json out = json::array();
  for (const auto& cal : calibration) {
    const auto& rounds = per_round[cal.c][cal.q];
    if (cal.samples.empty() || rounds.empty()) continue;
    const double calib = stats::median(cal.samples);
    const auto [lo, hi] = std::minmax_element(cal.samples.begin(), cal.samples.end());
    const double spread = calib > 0 ? (*hi - *lo) / calib : 0.0;
    const double timed = stats::median(rounds);
    const double ratio = calib > 0 ? timed / calib : 1.0;
    const double allowed = 1.0 + std::max(0.10, 2.0 * spread);
    out.push_back(json{{"case", bench[cal.c]->id},
                       {"party", parties[cal.q].name},
                       {"calibration_median_s", calib},
                       {"calibration_spread", spread},
                       {"calibration_samples", cal.samples.size()},
                       {"rounds_median_s", timed},
                       {"ratio", ratio},
                       {"allowed_ratio", allowed},
                       {"drift", ratio > allowed}});
  }
  return out;
}

}  // namespace

phase_outcome evaluation::summaries() {
  m_drift = baseline_drift(m_calibration, m_figures.per_round, m_parties, m_bench);
  load_ceiling();
  // Below min_rounds_for_ci95 rounds there is no 95% CI to report (stats.hpp): the figures are
  // estimates, and the verdict is never ok_faster.
  m_with_ci = m_rounds >= stats::min_rounds_for_ci95;
  json tcases = json::array();
  // Per case, each round's ratio of the case's strongest baseline (and of each baseline) to the
  // candidate: the headline is one statistic of these (stats::epoch_geomean_of_medians).
  case_ratios ratios;
  for (std::size_t c = 0; c < m_bench.size(); ++c) {
    auto cj = summarize_case(c, ratios);
    if (!cj.ok()) return cj.rejection();
    tcases.push_back(std::move(cj.value()));
  }
  m_head = stats::epoch_geomean_of_medians(ratios.strongest, m_figures.epoch_of_round);
  json per_baseline = json::object();
  for (const auto& [name, r] : ratios.per_baseline) {
    const auto es = stats::epoch_geomean_of_medians(r, m_figures.epoch_of_round);
    per_baseline[name] = json{{"median", es.all.median}, {"ci95", ci_json(es.all.ci)}};
    if (m_epochs > 1) per_baseline[name]["epoch_medians"] = es.epoch_medians;
  }
  m_result["ceilings"] = m_ceil ? m_ceil->to_json() : json(nullptr);
  if (!m_figures.device_state_after.is_null() && m_result["env"].is_object())
    m_result["env"]["state_after"] = m_figures.device_state_after;
  summarize_memory();
  summarize_timing(tcases);
  summarize_epochs();
  summarize_speedup(tcases, per_baseline);
  return std::nullopt;
}

// Speed of light: the device's measured copy ceiling (cached per machine; `kjudge doctor`).
void evaluation::load_ceiling() {
  if (m_c.device != device_kind::cpu) {
    m_ceil = load_ceilings(device_name(m_c.device), "");
    return;
  }
  m_ceil = load_ceilings("cpu", cpu_identity());
  if (!m_ceil) {
    progress("timing", m_rounds, m_rounds, "measuring the memory ceiling once for this machine");
    m_ceil = measure_cpu_ceilings();
    save_ceilings(*m_ceil);
  } else if (m_ceil->measured_under_load()) {
    // Measured while other work ran: measured again now, the higher kept (and cached).
    progress("timing", m_rounds, m_rounds,
             "measuring the memory ceiling again (the cached one was measured under load)");
    const auto fresh = measure_cpu_ceilings();
    if (fresh.copy_gbps > m_ceil->copy_gbps || !fresh.measured_under_load()) {
      m_ceil = fresh;
      save_ceilings(fresh);
    }
  }
}

json evaluation::ci_json(const stats::interval& ci) const {
  return m_with_ci ? json{ci.lo, ci.hi} : json(nullptr);
}

// The CI of a baseline's ratio to the candidate: over rounds, and over the worker epochs where
// there are several (stats::epoch_median).
stats::ratio_summary evaluation::paired_ci(const std::vector<double>& num, const std::vector<double>& den) const {
  std::vector<double> ratios(num.size());
  for (std::size_t k = 0; k < num.size(); ++k) ratios[k] = num[k] / den[k];
  return stats::epoch_median(ratios, m_figures.epoch_of_round).all;
}

// Each round's ratio of party q to the candidate on case c.
std::vector<double> evaluation::ratios_of(std::size_t c, std::size_t q) const {
  const auto& per_round = m_figures.per_round;
  std::vector<double> r(static_cast<std::size_t>(m_rounds));
  for (std::size_t k = 0; k < r.size(); ++k) r[k] = per_round[c][q][k] / per_round[c][0][k];
  return r;
}

or_verdict<json> evaluation::summarize_case(std::size_t c, case_ratios& ratios) {
  const auto& per_round = m_figures.per_round;
  const planned_case& bench = *m_bench[c];
  const auto cs = stats::summarize(m_figures.all_samples[c][0]);
  const cost_estimate cost = evaluate_cost(m_p, bench.symbols, m_c.variant);
  json cj{{"id", bench.id},
          {"shape", bench.shape_string()},
          {"symbols", bench.symbols},
          {"candidate",
           {{"median_s", stats::median(per_round[c][0])},
            {"q25_s", cs.q25},
            {"q75_s", cs.q75},
            {"min_s", cs.min},
            {"max_s", cs.max},
            {"n", cs.n},
            {"rounds", m_rounds},
            {"round_medians_s", per_round[c][0]},
            {"sm_mhz", clock_summary(m_figures.all_mhz[c][0])}}},
          {"baselines", json::array()}};
  std::size_t strongest = 1;
  for (std::size_t q = 1; q < m_parties.size(); ++q)
    if (stats::median(per_round[c][q]) < stats::median(per_round[c][strongest])) strongest = q;
  for (std::size_t q = 1; q < m_parties.size(); ++q) {
    const auto bs = stats::summarize(m_figures.all_samples[c][q]);
    const auto r = paired_ci(per_round[c][q], per_round[c][0]);
    cj["baselines"].push_back(json{{"name", m_parties[q].name},
                                   {"median_s", stats::median(per_round[c][q])},
                                   {"q25_s", bs.q25},
                                   {"q75_s", bs.q75},
                                   {"min_s", bs.min},
                                   {"max_s", bs.max},
                                   {"n", bs.n},
                                   {"speedup", {{"median", r.median}, {"ci95", ci_json(r.ci)}}},
                                   {"round_medians_s", per_round[c][q]},
                                   {"sm_mhz", clock_summary(m_figures.all_mhz[c][q])}});
    ratios.per_baseline[m_parties[q].name].push_back(ratios_of(c, q));
  }
  const auto sr = paired_ci(per_round[c][strongest], per_round[c][0]);
  ratios.strongest.push_back(ratios_of(c, strongest));
  cj["strongest"] = m_parties[strongest].name;
  cj["speedup"] = json{{"median", sr.median}, {"ci95", ci_json(sr.ci)}};
  if (auto v = achieved(bench, cost, stats::median(per_round[c][0]), cj)) return *v;
  return cj;
}

// The compute ceiling that applies to this evaluation's dtype, GFLOP/s, where `kjudge doctor`
// measured one (cuda): bf16 and f16 against the bf16 tensor-core rate; f32 against TF32 where the
// problem permits it (an honest kernel may use it) and plain FP32 where it does not.
std::optional<double> evaluation::compute_ceiling_gflops() const {
  if (!m_ceil) return std::nullopt;
  std::optional<double> c;
  switch (m_c.variant) {
    case dtype::bf16:
    case dtype::f16:
      c = m_ceil->bf16_gflops;
      break;
    case dtype::f32:
      c = m_c.tf32 ? m_ceil->tf32_gflops : m_ceil->fp32_gflops;
      break;
    default:
      break;
  }
  return c && *c > 0 ? c : std::nullopt;
}

// The case's achieved traffic and flops against the device's copy ceiling ("achieved"); rule
// faster_than_light where cold samples moved the problem's minimum bytes faster than possible.
phase_outcome evaluation::achieved(const planned_case& bench, const cost_estimate& cost, double med, json& cj) {
  const bool cold = m_c.mode == timing_mode::cold;
  const double gbps = cost.bytes / med / 1e9;
  // Above the ceiling at all: the ceiling may be stale (an honest ReLU read 109% of one measured
  // under load): measured again now, under the same conditions as the candidate, the higher kept,
  // before any fraction is reported or anyone accused.
  if (cold && m_c.device == device_kind::cpu && m_ceil && gbps > m_ceil->copy_gbps) {
    auto fresh = measure_cpu_ceilings();
    if (fresh.copy_gbps > m_ceil->copy_gbps) {
      m_ceil = fresh;
      save_ceilings(fresh);
    }
  }
  json fraction = nullptr;
  if (m_ceil && m_ceil->copy_gbps > 0) fraction = gbps / m_ceil->copy_gbps;
  const double gflops = cost.flops / med / 1e9;
  const auto compute = compute_ceiling_gflops();
  cj["achieved"] =
      json{{"gbps", gbps},
           {"gflops", gflops},
           {"bytes", cost.bytes},
           {"flops", cost.flops},
           {"fraction_of_ceiling", fraction},
           {"ceiling_gbps", m_ceil ? json(m_ceil->copy_gbps) : json(nullptr)},
           {"ceiling_gflops", compute && cost.flops > 0 ? json(*compute) : json(nullptr)},
           {"fraction_of_compute_ceiling", compute && cost.flops > 0 ? json(gflops / *compute) : json(nullptr)}};
  // Cold samples read their data from DRAM (caches flushed), so moving the problem's minimum bytes
  // faster than the measured copy ceiling is impossible. The margin (1.5x) covers the ceiling's own
  // error (a read-mostly stream beats a copy) without hiding a real violation, which is typically
  // orders of magnitude (work skipped, cached results).
  constexpr double light_margin = 1.5;
  if (cold && m_ceil && m_ceil->copy_gbps > 0 && gbps > light_margin * m_ceil->copy_gbps)
    return rule_verdict("faster_than_light",
                        {bench.id + " (" + bench.shape_string() + "): " + std::to_string(gbps) +
                         " GB/s for the problem's minimum traffic, above " + std::to_string(light_margin) +
                         " x the device's measured copy ceiling of " + std::to_string(m_ceil->copy_gbps) + " GB/s"},
                        json{{"case", json{{"id", bench.id},
                                           {"kind", "bench"},
                                           {"shape", bench.shape_string()},
                                           {"symbols", bench.symbols},
                                           {"distribution", bench.distribution}}},
                             {"achieved_gbps", gbps},
                             {"ceiling_gbps", m_ceil->copy_gbps},
                             {"median_s", med},
                             {"bytes", cost.bytes}});
  return std::nullopt;
}

void evaluation::summarize_memory() {
  if (m_peak_memory.empty()) return;
  json mem{
      {"method", "CUPTI memory activity of a traced warm-up call: device bytes the party allocated during the call"}};
  double strongest_baseline = -1;
  for (const auto& [name, bytes] : m_peak_memory) {
    if (name == "candidate") {
      mem["candidate_peak_bytes"] = bytes;
    } else {
      mem["baseline_peak_bytes"][name] = bytes;
      strongest_baseline = std::max(strongest_baseline, bytes);
    }
  }
  mem["flagged_higher"] = strongest_baseline >= 0 && mem.value("candidate_peak_bytes", 0.0) > strongest_baseline;
  m_result["memory"] = mem;
}

void evaluation::summarize_timing(const json& tcases) {
  const timing::round_figures& f = m_figures;
  const double overhead = f.wall_overhead.empty() ? 0.0 : stats::median(f.wall_overhead);
  m_result["timing"] =
      json{{"mode", mode_name(m_c.mode)},
           {"clock", m_c.device == device_kind::cpu ? "steady_clock" : "cuda events"},
           {"rounds", m_rounds},
           {"cases", tcases},
           {"cache_flush_bytes", nullptr},
           {"rechecks",
            {{"count", f.rechecks},
             {"failed", 0},
             {"seconds", f.recheck_s},
             {"reference_s", m_recheck_reference_seconds},
             {"phases_s", m_recheck_phase},
             {"reference_phases_s", m_recheck_reference_phase}}},
           {"sample_requests_s", f.sample_s},
           {"controller_overhead_median_s", overhead},
           {"discarded_throttled",
            {{"count", f.throttled_samples}, {"criterion", "SM clock under 0.9 x the round's median (cuda)"}}},
           {"unblocked_samples",
            {{"per_party", f.unblocked_samples},
             {"meaning",
              "cuda: the stream hold timed out because the call synchronised inside kj_run; "
              "the sample then includes host time between its launches"}}},
           {"disturbed_samples",
            {{"set_aside", f.disturbed_samples - static_cast<long>(f.used_disturbed)},
             {"used", f.used_disturbed},
             {"criterion",
              "CPU time of processes outside the evaluation during a sample index, at least 0.2 of its "
              "wall time (/proc/stat against the evaluation's own processes); set aside for every party"}}},
           {"seconds", since(m_timing_start)}};
  json& t = m_result["timing"];
  t["clock_check"] = m_clock_evidence;
  if (!m_start_latency_evidence.is_null()) t["start_latency"] = m_start_latency_evidence;
  t["background"] = m_background_evidence;
  t["baseline_calibration"] = m_drift;
  if (!m_census_sets.empty())
    t["kernel_census"] =
        json{{"method",
              "one call per party and timed case under the CUPTI trace, after each set of workers' last timed round "
              "(not counted; diagnostic only); ns are device times of the call's own kernels"},
             {"sets", m_census_sets},
             {"same_code", m_census_same_code}};
}

void evaluation::summarize_epochs() {
  json& t = m_result["timing"];
  const auto& epoch_of_round = m_figures.epoch_of_round;
  json ej = json::array();
  for (int e = 0; e < m_epochs; ++e) {
    int first = -1, count = 0;
    for (int k = 0; k < m_rounds; ++k)
      if (epoch_of_round[static_cast<std::size_t>(k)] == e) {
        if (first < 0) first = k;
        ++count;
      }
    ej.push_back(json{{"first_round", first},
                      {"rounds", count},
                      {"speedup_median", static_cast<std::size_t>(e) < m_head.epoch_medians.size()
                                             ? json(m_head.epoch_medians[static_cast<std::size_t>(e)])
                                             : json(nullptr)}});
  }
  t["worker_epochs"] = m_epochs;
  t["epochs"] = ej;
  t["ci_method"] = m_epochs > 1 ? "hull of the percentile bootstrap over rounds and a Student t "
                                  "interval over the worker epochs' medians (log scale)"
                                : "percentile bootstrap over rounds (one set of workers: what a "
                                  "process fixes for its lifetime is not in it)";
  t["epoch_of_round"] = epoch_of_round;
  if (m_epochs > 1) t["restart_s"] = m_figures.restart_s;
  // Whether the sets differ by more than their rounds' own spread explains (the headline's
  // per-round ratios, log scale): the measurement behind --worker-epochs' default.
  if (m_head.sd_log_between >= 0)
    t["process_spread"] = json{
        {"sd_log_between_sets", m_head.sd_log_between},
        {"sd_log_expected_from_rounds", m_head.sd_log_expected >= 0 ? json(m_head.sd_log_expected) : json(nullptr)},
        {"method",
         "standard deviation of the sets' median ratios (log), against sqrt(pi/2) x the pooled within-set "
         "standard deviation of the rounds' log ratios / sqrt(rounds per set): what round noise alone would give"}};
}

void evaluation::summarize_speedup(const json& tcases, const json& per_baseline) {
  json& t = m_result["timing"];
  t["experiment_switches"] = m_c.switches.experiment_switches(m_c.device);
  t["candidate_worker"] =
      !m_c.switches.fresh_timing_worker
          ? "shared: the worker that ran the correctness checks (KJUDGE_TIMING_WORKER=shared)"
      : m_memory.beside
          ? "fresh: started with the baselines' workers, the correctness checks' worker stopped before timing"
          : "fresh: started after the correctness checks' worker stopped (host memory would not hold both)";
  t["host_memory"] = json{{"available_bytes", m_memory.available},
                          {"needed_bytes", m_memory.needed},
                          {"needed_with_timing_worker_beside_bytes", m_memory.needed_beside},
                          {"limit", "90% of available"}};
  const auto& head = m_head.all;
  const std::size_t nc = m_bench.size();
  m_result["speedup"] =
      json{{"baseline", nc == 1 ? tcases[0]["strongest"].get<std::string>() : std::string("per-case strongest")},
           {"median", head.median},
           {"ci95", ci_json(head.ci)},
           {"geomean_over_cases", nc > 1},
           {"per_baseline", per_baseline},
           {"rounds", m_rounds}};
  if (!m_with_ci)
    m_result["speedup"]["estimate_only"] = fmt::format(
        "{} round(s): a 95% CI needs at least {}; the range of {} rounds covers their median with "
        "probability {:.0f}%",
        m_rounds, stats::min_rounds_for_ci95, m_rounds, 100.0 * stats::range_coverage(m_rounds));
}

}  // namespace kjudge::detail
