// What a batch's results add up to (docs/batch.md): eval_results.json in KernelBench's shape
// (per problem, per sample: compiled, correctness, runtime, runtime_stats, ref_runtime, metadata;
// kjudge's verdict, rule, speedup and CI under "kjudge"), and fast_p: the fraction of all
// candidates that are correct and faster than p times a baseline.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kjudge::batch {

// The thresholds p of fast_p.
inline const std::vector<double> fast_p_thresholds{0.0, 1.0, 1.5, 2.0};

// eval_results.json from the result files (runner.hpp). Keyed by KernelBench problem id for the
// kernelbench layout ("<level>/<id>" when several levels are present), by problem name
// otherwise; samples by KernelBench sample id, or their order within the problem. Times in ms,
// -1 where not measured (KernelBench's convention).
nlohmann::json kernelbench_eval_results(const std::vector<nlohmann::json>& results);

// fast_p at every threshold against torch eager ("torch:eager"), against the strongest
// torch.compile mode of each candidate's result, and against the baseline kjudge's verdict used.
// The denominator is every candidate; a correct candidate without that baseline counts as not
// fast, and how many there were is said ("correct_without_baseline").
nlohmann::json fast_p(const std::vector<nlohmann::json>& results);

// The table printed at the end of a batch: verdict counts and fast_p.
std::string summary_table(const std::vector<nlohmann::json>& results, const nlohmann::json& fast);

}  // namespace kjudge::batch
