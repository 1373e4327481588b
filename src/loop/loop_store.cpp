#include "loop/loop_store.hpp"

#include <map>

#include "core/error.hpp"
#include "core/json_path.hpp"

namespace kjudge::loop {

namespace detail {
namespace {

std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The value of `key` in `j` if it has the expected type, else NULL.
loop_value str(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) return {};
  return j[key].get<std::string>();
}
loop_value num(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return {};
  return j[key].get<double>();
}
loop_value boolean(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_boolean()) return {};
  return std::int64_t{j[key].get<bool>() ? 1 : 0};
}
loop_value integer(const nlohmann::json& j, const char* key) {
  return std::int64_t{j.value(key, std::int64_t{0})};
}
// The document at `key`, as JSON text; NULL if absent (or null, with `null_is_absent`).
loop_value document(const nlohmann::json& j, const char* key, bool null_is_absent = false) {
  if (!j.contains(key) || (null_is_absent && j[key].is_null())) return {};
  return dump(j[key]);
}

}  // namespace
}  // namespace detail

loop_store::loop_store(const std::filesystem::path& db) : m_store(db) {}

void loop_store::upsert_run(const nlohmann::json& c) {
  nlohmann::json shown = c;
  // The row is for everyone who reads the store; the URL's password stays in the run's loop.json.
  if (shown.contains("db") && shown["db"].is_string())
    shown["db"] = store::display_name(shown["db"].get<std::string>());
  m_store.upsert_loop_row(loop_table::runs, {{"id", detail::str(c, "id")},
                                             {"created_at", detail::str(c, "created_at")},
                                             {"problem", detail::str(c, "problem_name")},
                                             {"device", detail::str(c, "device")},
                                             {"proposer", detail::str(c, "proposer")},
                                             {"workdir", detail::str(c, "workdir")},
                                             {"config_json", detail::dump(shown)}});
}

void loop_store::upsert_iteration(const std::string& run_id, const nlohmann::json& r) {
  const nlohmann::json best = r.value("best", nlohmann::json());
  const bool has_best = best.is_object();
  loop_row row{
      {"run_id", run_id},
      {"iteration", detail::integer(r, "iteration")},
      {"request_json", detail::document(r, "request")},
      {"proposer_status", detail::str(r, "proposer_status")},
      {"proposer_seconds", detail::num(r, "proposer_seconds")},
      {"n_proposals", r.contains("n_proposals") ? loop_value(r["n_proposals"].get<std::int64_t>()) : loop_value()},
      {"best_proposal", has_best ? detail::str(best, "id") : loop_value()},
      {"best_speedup", has_best ? detail::num(best, "median") : loop_value()},
      {"best_lo", has_best ? loop_value(best["ci95"][0].get<double>()) : loop_value()},
      {"best_hi", has_best ? loop_value(best["ci95"][1].get<double>()) : loop_value()},
      {"best_time_s", has_best ? detail::num(best, "time_s") : loop_value()},
      {"improved", detail::boolean(r, "improved")},
      {"beam_json", detail::document(r, "beam")},
      {"elapsed_s", detail::num(r, "elapsed_s")}};
  m_store.upsert_loop_row(loop_table::iterations, row);
}

void loop_store::upsert_proposal(const std::string& run_id, const nlohmann::json& r,
                                 std::optional<std::int64_t> evaluation_id) {
  m_store.upsert_loop_row(loop_table::proposals,
                          {{"run_id", run_id},
                           {"proposal_id", detail::str(r, "id")},
                           {"iteration", detail::integer(r, "iteration")},
                           {"file", detail::str(r, "file")},
                           {"sha256", detail::str(r, "sha256")},
                           {"family", detail::str(r, "family")},
                           {"state", detail::str(r, "state")},
                           {"status", detail::str(r, "status")},
                           {"rule", detail::str(r, "rule")},
                           {"speedup_median", detail::num(r, "median")},
                           {"speedup_lo", detail::num(r, "lo")},
                           {"speedup_hi", detail::num(r, "hi")},
                           {"time_s", detail::num(r, "time_s")},
                           {"evaluation_id", evaluation_id ? loop_value(*evaluation_id) : loop_value()},
                           {"meta_json", detail::document(r, "meta", true)}});
}

void loop_store::upsert_family(const std::string& run_id, const nlohmann::json& r) {
  const nlohmann::json best = r.value("best", nlohmann::json());
  m_store.upsert_loop_row(loop_table::families,
                          {{"run_id", run_id},
                           {"family", detail::str(r, "name")},
                           {"attempts", detail::integer(r, "attempts")},
                           {"correct", detail::integer(r, "correct")},
                           {"rejected", detail::integer(r, "rejected")},
                           {"best_proposal", best.is_object() ? detail::str(best, "id") : loop_value()},
                           {"best_speedup", best.is_object() ? detail::num(best, "median") : loop_value()},
                           {"in_beam", detail::boolean(r, "in_beam")},
                           {"retired", detail::boolean(r, "retired")},
                           {"retired_reason", detail::str(r, "retired_reason")},
                           {"retired_at", detail::integer(r, "retired_at")}});
}

std::int64_t loop_store::ensure_evaluation(const nlohmann::json& result, const std::string& source,
                                           const std::string& run_id, const std::string& proposal_id) {
  if (const auto id = m_store.find_loop_evaluation(string_at(result, {"candidate", "sha256"}), run_id, proposal_id))
    return *id;
  return m_store.add_evaluation(result, source);
}

std::int64_t loop_store::count_rows(const std::string& table, const std::string& run_id) const {
  static const std::map<std::string, loop_table> known{{"loop_runs", loop_table::runs},
                                                       {"loop_iterations", loop_table::iterations},
                                                       {"loop_proposals", loop_table::proposals},
                                                       {"loop_families", loop_table::families}};
  const auto it = known.find(table);
  if (it == known.end()) throw internal_error("count_rows: unknown table " + table);
  return m_store.count_loop_rows(it->second, run_id);
}

}  // namespace kjudge::loop
