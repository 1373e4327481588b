// The result document, kjudge.result/1 (docs/result-schema.md, docs/result-schema.json), typed:
// result_document::to_json is its one writer and result_document::from_json its one reader.
//
// Every field but schema, problem.name and verdict.status may be null or absent (the schema's
// Conventions): such fields are std::optional, and both null and absence read as nullopt. The
// genuinely open-ended parts (a verdict's evidence, a case's worst element, the environment's
// backend figures, ...) stay JSON. Each section keeps the keys it does not type in `extra`,
// together with the typed keys that were null, so that a document reads back as it was written
// and readers ignore fields they do not know (adding a field does not change the schema).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/verdict_status.hpp"

namespace kjudge {

// A document that does not have the form of kjudge.result/1; the message names the field
// ("verdict.status: missing", "cases[2].n_bad: expected an integer, got string").
class result_format_error : public usage_error {
 public:
  using usage_error::usage_error;
};

// [lo, hi] of a 95% CI. A bound that is not finite is written as null (JSON has no NaN) and reads
// back as NaN.
using result_ci95 = std::pair<double, double>;

struct result_problem {
  std::string name;
  std::optional<std::string> dtype, device, spec, spec_sha256, content_sha256;
  nlohmann::json extra = nlohmann::json::object();
};

struct result_candidate {
  std::optional<std::string> path, sha256;
  std::optional<std::string> info;  // what kj_info() returned; "" or null without one
  nlohmann::json load;              // the controller's load report (seconds, cpu_s, threads, ...)
  nlohmann::json extra = nlohmann::json::object();
};

struct result_tolerance {
  std::optional<double> rtol, atol, k;
  std::optional<bool> tf32;
  nlohmann::json qr;  // check = "qr" problems: what bounds the per-matrix errors
  nlohmann::json extra = nlohmann::json::object();
};

struct result_verdict {
  verdict_status status = verdict_status::ok_not_faster;
  std::optional<std::string> rule;  // the guard rule that fired; null for none
  std::vector<std::string> reasons;
  std::optional<bool> timed;  // false: correct, not timed (--no-timing)
  nlohmann::json evidence;    // per rule (docs/result-schema.md, verdict)
  nlohmann::json extra = nlohmann::json::object();

  [[nodiscard]] bool ok() const { return is_ok(status); }
};

struct result_case {
  std::optional<std::string> id, kind, shape, distribution, seed;
  std::optional<std::string> status;  // pass | fail | error | skipped
  nlohmann::json symbols;
  std::optional<double> max_abs_err, max_rel_err, norm_rel_err;
  std::optional<std::int64_t> n_bad, n_unwritten;
  nlohmann::json worst;  // the element with the largest error relative to its bound
  std::optional<std::string> message, output, deterministic;
  nlohmann::json extra = nlohmann::json::object();
};

// A party's sample summary on one bench case (timing.cases[].candidate, .baselines[]).
struct result_samples {
  std::optional<std::string> name;  // a baseline's
  std::optional<double> median_s, q25_s, q75_s, min_s, max_s;
  std::optional<std::int64_t> n, rounds;
  std::optional<std::vector<double>> round_medians_s;
  nlohmann::json sm_mhz;
  nlohmann::json speedup;  // a baseline's: the candidate's paired speedup over it
  nlohmann::json extra = nlohmann::json::object();
};

struct result_speedup_figure {
  std::optional<double> median;
  std::optional<result_ci95> ci95;
  std::optional<std::vector<double>> epoch_medians;  // per_baseline with several sets of workers
  nlohmann::json extra = nlohmann::json::object();
};

struct result_timing_case {
  std::optional<std::string> id, shape;
  nlohmann::json symbols;
  std::optional<result_samples> candidate;
  std::vector<result_samples> baselines;
  std::optional<std::string> strongest;
  std::optional<result_speedup_figure> speedup;
  nlohmann::json achieved;  // gbps, gflops, bytes, flops, fraction_of_ceiling
  nlohmann::json extra = nlohmann::json::object();
};

struct result_timing {
  std::optional<std::string> mode, clock;
  std::optional<std::int64_t> rounds;
  std::vector<result_timing_case> cases;
  std::optional<std::int64_t> cache_flush_bytes;
  std::optional<double> controller_overhead_median_s, seconds;
  nlohmann::json rechecks;
  // The rest (host_memory, epochs, background, kernel_census, ...) is per measurement method.
  nlohmann::json extra = nlohmann::json::object();
};

struct result_speedup {
  std::optional<std::string> baseline;
  std::optional<double> median;
  std::optional<result_ci95> ci95;
  std::optional<std::int64_t> rounds;
  std::optional<std::string> estimate_only;
  std::optional<bool> geomean_over_cases;
  std::optional<std::map<std::string, result_speedup_figure>> per_baseline;
  nlohmann::json extra = nlohmann::json::object();
};

struct result_baseline {
  std::optional<std::string> name, source, sha256;
  nlohmann::json extra = nlohmann::json::object();
};

struct result_memory {
  std::optional<std::int64_t> candidate_peak_bytes;
  nlohmann::json baseline_peak_bytes;  // the strongest baseline's bytes, or bytes per baseline name
  nlohmann::json extra = nlohmann::json::object();
};

struct result_build {
  std::optional<std::string> compiler, flags;
  std::optional<std::vector<std::string>> command;
  std::optional<double> seconds;
  std::optional<bool> cached;
  nlohmann::json resources;  // cuda: ptxas figures per kernel
  std::optional<std::vector<std::string>> cache_notes;
  nlohmann::json extra = nlohmann::json::object();
};

// Where the figures were measured: the fields every backend gives; the backend's own (governor,
// gpu, clocks, sandbox, ...) are in extra.
struct result_environment {
  std::optional<std::string> host, cpu, os, compiler, kjudge_version;
  std::optional<std::int64_t> cores;
  nlohmann::json extra = nlohmann::json::object();
};

struct result_document {
  std::string schema{result_schema_id};
  std::optional<std::string> kjudge_version, created_at;
  result_problem problem;
  std::optional<result_candidate> candidate;
  std::optional<std::string> device, mode;
  std::optional<result_tolerance> tolerance;
  result_verdict verdict;
  // Written always: an empty array, or null for a section that does not apply (not timed, ...).
  std::vector<result_case> cases;
  std::optional<result_timing> timing;
  std::optional<result_speedup> speedup;
  std::vector<result_baseline> baselines;
  std::optional<result_memory> memory;
  std::optional<result_build> build;
  std::optional<result_environment> env;
  std::optional<double> time_to_verdict_s;
  std::optional<std::map<std::string, double>> phases_s;
  std::optional<std::string> reference_device;
  nlohmann::json sanitizer, processes_left_behind, sandbox_denied;
  nlohmann::json extra = nlohmann::json::object();

  // Throws result_format_error naming the first field that is missing or of the wrong type.
  static result_document from_json(const nlohmann::json& j);
  [[nodiscard]] nlohmann::json to_json() const;

  // Exit status of `kjudge eval` for this document's verdict (exit_status_for).
  [[nodiscard]] int exit_status() const { return exit_status_for(verdict.status); }
};

}  // namespace kjudge
