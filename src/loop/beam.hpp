// The search loop's beam (issue 6): the K best correct candidates with family diversity,
// near-misses kept so a family is not dropped after one weaker attempt, family retirement with
// reasons, plateau detection, and the request sent to the proposer. Pure functions of their
// inputs: the driver (loop.hpp) rebuilds every decision from the journal on resume.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kjudge::loop {

// One judged, correct candidate as the beam sees it. Scores are speedups over the strongest
// baseline (baseline time / candidate time; above 1 is faster), as in the result document.
struct scored_candidate {
  std::string id;      // proposal id, e.g. "i0003-p01"
  std::string sha256;  // of the source file
  std::string family;  // from kj_info "family=..."
  double median = 0.0;
  double lo = 0.0;  // 95% CI of the speedup (the median itself where the judgement had none)
  double hi = 0.0;
  bool with_ci = true;  // false: judged with too few rounds for a CI (an estimate: lo = hi = median)
  double time_s = 0.0;  // geometric mean over bench cases of the candidate's median time, seconds
  int iteration = 0;
};

struct beam_params {
  int k = 4;
  // A correct candidate of a family that has no member in the beam is kept as a near-miss when
  // its median is at least (1 - margin) times the best's. 0.15: CPU medians of one candidate
  // judged twice differ by a few percent, so 15% separates "as good within noise" from "worse".
  double near_miss_margin = 0.15;
  // A family with no member in the beam is retired only after this many judged attempts, so
  // one failed or slow attempt does not end it.
  int retire_after = 2;
};

struct beam_member {
  scored_candidate c;
  bool near_miss = false;  // kept beyond the K because its family would otherwise be dropped
  int rank = 0;            // 1 = best
};

// No family holds more than max(1, k/2) of the K slots while candidates of other families are
// left out; when other families are exhausted the capped ones fill the remaining slots. Then each
// family without a member gets its best candidate as a near-miss if it is within the margin.
// Ties in the median go to the higher CI lower bound, then to the earlier candidate.
std::vector<beam_member> select_beam(std::vector<scored_candidate> pool, const beam_params& p);

// What the loop knows about one family.
struct family_record {
  std::string name;
  int attempts = 0;  // judged proposals of this family, correct or not
  int correct = 0;
  int rejected = 0;
  std::map<std::string, int> rejections;  // verdict status -> count
  std::optional<scored_candidate> best;   // best correct candidate
  std::string latest_id;                  // latest judged proposal of the family
  bool in_beam = false;
  bool retired = false;
  std::string retired_reason;  // why, in words, with the figures that decided it
  int retired_at = 0;          // iteration of retirement
};

// One judged attempt as the family bookkeeping sees it: status is the verdict status.
struct attempt {
  std::string id;
  std::string family;
  std::string status;
  int iteration = 0;
};

// Updates `families` after an iteration: counts the new attempts, marks members, retires
// families that have no member in the beam after `retire_after` attempts (with the reason), and
// revives a retired family whose new candidate entered the beam. Returns the names of families
// whose state changed ("retired:NAME" / "revived:NAME"), for the journal and progress display.
std::vector<std::string> update_families(std::map<std::string, family_record>& families,
                                         const std::vector<attempt>& new_attempts,
                                         const std::vector<scored_candidate>& pool,
                                         const std::vector<beam_member>& beam, const beam_params& p, int iteration);

// Improvement "beyond the CI's noise": a different candidate whose median is above the previous
// best's 95% CI upper bound (or any correct candidate when there was no best). Where the previous
// best is an estimate without a CI (a judgement of fewer than six rounds,
// stats::min_rounds_for_ci95), the new one's own CI must lie above its median; two estimates show
// no improvement beyond noise.
bool improves_beyond_noise(const std::optional<scored_candidate>& previous_best, const scored_candidate& now);

// The request sent to the proposer for one iteration.
struct request {
  std::string kind;                         // "initial" | "improve" | "fix" | "new_family"
  std::string target_id;                    // improve/fix: the proposal to start from
  std::string family;                       // improve/fix: its family
  std::vector<std::string> avoid_families;  // new_family: families already tried
  std::string reason;

  [[nodiscard]] nlohmann::json to_json() const;
  static request from_json(const nlohmann::json& j);
};

// Plateau bookkeeping: iterations since the last improvement beyond noise and since the last
// "new family" request. A plateau is `plateau` iterations with neither.
struct plateau_state {
  int last_improvement = 0;         // iteration
  int last_new_family_request = 0;  // iteration
};

// Chooses the request of `iteration` (1-based): a new family on a plateau; otherwise improve a
// member, alternating between the best (even iterations) and the others in rank order (odd), the
// others including the best correct candidate of every active family outside the beam; "fix"
// the latest rejected attempt when nothing is correct yet; "initial" when nothing was judged.
request choose_request(int iteration, const std::vector<beam_member>& beam,
                       const std::map<std::string, family_record>& families, const plateau_state& plateau,
                       int plateau_iterations, const std::string& latest_rejected_id,
                       const std::string& latest_rejected_family);

// "family=online;notes=one pass" -> {"online", "one pass"}; missing family -> "unknown".
struct info_fields {
  std::string family;
  std::string notes;
};
info_fields parse_info(const std::string& info);

// The family a source declares in its kj_info string literal ("family=NAME"), for candidates the
// judge rejected before kj_info could be read (compile errors); "unknown" if none.
std::string family_from_source(const std::string& source);

nlohmann::json to_json(const scored_candidate& c);
scored_candidate scored_from_json(const nlohmann::json& j);

}  // namespace kjudge::loop
