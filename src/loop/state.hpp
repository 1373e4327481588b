// The loop's state, rebuilt by replaying the journal's events in order (the running loop applies
// each event it appends through the same function, so a resumed loop and one that never stopped
// hold the same state). Journal format: docs/proposer.md, "Workdir".
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "loop/beam.hpp"

namespace kjudge::loop {

// How hard one proposal is judged: the timing budget and minimum A/B rounds of evaluate().
struct judge_profile {
  double timing_budget_s = 2.0;
  int min_rounds = 10;
  // Identifies the profile in the dedup key "sha256|profile": the same source judged again with
  // the same profile is a duplicate; with a larger one (autotune rungs) a new judgement.
  [[nodiscard]] std::string key() const;
  [[nodiscard]] nlohmann::json to_json() const;
  static judge_profile from_json(const nlohmann::json& j);
};

struct proposal {
  std::string id;  // "i0003-p01"
  int iteration = 0;
  int index = 0;
  std::string name;  // file name as the proposer wrote it
  std::string file;  // the judged copy, relative to the workdir ("proposals/i0003-p01.cpp"); empty if none
  std::string sha256;
  // "pending" (recorded, not judged yet), "judged", "garbage" (not a candidate source),
  // "duplicate" (same source and profile judged before), "discarded" (the proposer failed),
  // "skipped" (over the per-iteration limit)
  std::string state;
  std::string reason;        // garbage/discarded/skipped: why
  std::string duplicate_of;  // duplicate: the proposal whose judgement stands for this one
  nlohmann::json meta;       // proposer's data, e.g. {"autotune": {...}} or {"dropped": path}
  judge_profile profile;
  nlohmann::json summary;  // judged: summary of the result document (see summarize_result)
};

struct iteration_record {
  int iteration = 0;
  request req;
  std::string context;      // relative path of context.json
  nlohmann::json proposer;  // status, exit_status, signal, seconds, log, message
  std::vector<std::string> proposal_ids;
  bool proposed = false;
  bool finished = false;  // the "beam" event was written
  nlohmann::json beam_event;
};

// What the beam and the reports need from one result document: verdict, family, speedup with
// CI, time, per-case figures, speed-of-light fraction, peak memory, ptxas resources, and the
// failing case of a rejected candidate.
nlohmann::json summarize_result(const nlohmann::json& result);

nlohmann::json family_to_json(const family_record& f);
family_record family_from_json(const nlohmann::json& j);
nlohmann::json member_to_json(const beam_member& m);
beam_member member_from_json(const nlohmann::json& j);

struct loop_state {
  nlohmann::json config;  // loop.json
  std::vector<proposal> proposals;
  std::map<std::string, std::size_t> by_id;
  std::map<std::string, std::string> judged_key;  // "sha|profile" -> id of the judged proposal
  std::map<int, iteration_record> iterations;
  std::map<std::string, family_record> families;
  std::vector<beam_member> beam;
  plateau_state plateau;
  std::optional<scored_candidate> best;        // the beam's best after the last finished iteration
  std::vector<nlohmann::json> accepts;         // accepted improvements: {"id", "iteration", ...}
  std::map<std::string, std::string> commits;  // proposal id -> git commit
  double elapsed_s = 0.0;                      // active time up to the last finished iteration, seconds
  int finished_iterations = 0;
  std::string stop_reason;  // of the last "stopped" event; cleared by a "resumed" event
  std::string latest_rejected_id, latest_rejected_family;

  // Applies one journal event. Throws usage_error for an event that contradicts the state
  // (unknown proposal id, judged twice), which only a hand-edited journal can produce.
  void apply(const nlohmann::json& event);

  // Correct candidates by source, each with its latest judgement; a source with any rejected
  // judgement is left out (a rejected candidate never enters the beam, whatever it claimed).
  std::vector<scored_candidate> pool() const;

  // The judgement standing for a proposal: its own, or that of the proposal it duplicates.
  const nlohmann::json* effective_summary(const proposal& p) const;

  const proposal* find(const std::string& id) const;
  proposal* find(const std::string& id);
  int last_iteration() const { return iterations.empty() ? 0 : iterations.rbegin()->first; }
};

}  // namespace kjudge::loop
