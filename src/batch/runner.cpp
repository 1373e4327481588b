#include "batch/runner.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/json_file.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "judge/result.hpp"
#include "report/progress.hpp"
#include "store/store.hpp"

namespace kjudge::batch {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

json batch_section(const batch_state& s, const candidate_entry& c, const run_options& o, const std::string& outcome) {
  json b{{"key", candidate_key(s, c)}, {"batch_id", s.batch_id}, {"problem", c.problem},
         {"candidate", c.rel_path},    {"outcome", outcome},     {"tolerance", o.tolerance}};
  if (c.kb_level)
    b["kernelbench"] = {{"level", *c.kb_level}, {"problem_id", *c.kb_problem}, {"sample_id", *c.kb_sample}};
  return b;
}

// A candidate the judge refused as input (unreadable, no kj_run, a dtype the problem lacks): a
// bad_input verdict, as `kjudge eval` reports it.
json bad_input_document(const candidate_entry& c, const std::string& why) {
  result_document r;
  r.problem.name = c.problem;
  r.candidate = result_candidate{};
  r.candidate->path = c.path.string();
  r.verdict.status = verdict_status::bad_input;
  r.verdict.reasons = {why};
  return r.to_json();
}

// Whether a verdict could change with the tolerance: a build failure, a crash or a hack is the
// same under any.
bool tolerance_decides(const std::string& status) {
  return is_ok_status(status) || status == "wrong_result";
}

// --tolerance kernelbench: the verdict under the problem's own tolerance, correctness only.
json own_tolerance_check(const candidate_entry& c, const run_options& o) {
  eval_options e = o.base;
  e.problem = c.problem_arg;
  e.candidate = c.path;
  e.timing = false;
  const auto t0 = clock_type::now();
  const result_document r = evaluate(e);
  json out{{"status", verdict_status_name(r.verdict.status)},
           {"rule", r.verdict.rule ? json(*r.verdict.rule) : json()},
           {"seconds", std::chrono::duration<double>(clock_type::now() - t0).count()}};
  if (r.tolerance)
    out["tolerance"] = {{"rtol", r.tolerance->rtol.value_or(0)}, {"atol", r.tolerance->atol.value_or(0)}};
  return out;
}

// The candidate's key is the store's dedup key: a rerun after a kill between this write and the
// result file's stores nothing twice.
void store_document(const run_options& o, const json& doc, const candidate_entry& c, const std::string& key) {
  if (!o.store) return;
  std::string source;
  try {
    source = read_file(c.path);
  } catch (const std::exception&) {  // stored without its source
  }
  store db(o.db);
  db.add_evaluation(doc, source, key);
}

}  // namespace

json judge_one(const batch_state& s, const candidate_entry& c, const run_options& o, const progress_fn& progress) {
  eval_options e = o.base;
  e.problem = c.problem_arg;
  e.candidate = c.path;
  e.progress = progress;
  if (o.tolerance == "kernelbench") {
    e.rtol_override = kernelbench_rtol;
    e.atol_override = kernelbench_atol;
  }
  json doc;
  std::string outcome = "judged";
  try {
    doc = evaluate(e).to_json();
  } catch (const usage_error& ex) {
    doc = bad_input_document(c, ex.what());
    outcome = "bad_input";
  } catch (const std::exception& ex) {
    doc = bad_input_document(c, ex.what());
    doc["verdict"]["reasons"] = json::array({std::string("judge fault: ") + ex.what()});
    outcome = "judge_fault";
  }
  json b = batch_section(s, c, o, outcome);
  if (o.tolerance == "kernelbench" && outcome == "judged" && tolerance_decides(doc["verdict"]["status"])) {
    try {
      b["own_tolerance"] = own_tolerance_check(c, o);
    } catch (const std::exception& ex) {
      b["own_tolerance"] = {{"error", ex.what()}};
    }
  }
  doc["batch"] = b;
  // The store before the result file: a kill between the two judges the candidate again.
  // As `kjudge eval`: a bad input is no evaluation of the candidate, and is not stored.
  if (outcome == "judged" && doc["verdict"].value("status", "") != "bad_input") store_document(o, doc, c, b["key"]);
  write_json_file(result_path(s, b["key"]), doc);
  return doc;
}

namespace {

// The batch's progress on stderr: a line per candidate judged (done/total, its verdict, the counts
// so far, the time left at this run's pace over the devices at work).
class batch_progress {
 public:
  batch_progress(run_tally& t, std::size_t width) : m_t(t), m_width(std::max<std::size_t>(1, width)) {}

  void record(const std::string& id, const json& doc, double seconds) {
    const std::lock_guard<std::mutex> lock(m_mu);
    ++m_t.judged;
    m_seconds += seconds;
    const std::string outcome = doc["batch"].value("outcome", "judged");
    const std::string status = outcome == "judge_fault" ? "judge_fault" : doc["verdict"].value("status", "?");
    if (outcome == "judge_fault") ++m_t.faults;
    ++m_t.by_status[status];
    const int done = m_t.already + m_t.judged;
    const double eta = m_seconds / m_t.judged * (m_t.total - done) / static_cast<double>(m_width);
    std::string counts;
    for (const auto& [k, v] : m_t.by_status) counts += (counts.empty() ? "" : ", ") + k + " " + std::to_string(v);
    std::fprintf(stderr, "kjudge batch: [%d/%d] %s: %s (%.1f s); %s; ETA %.0f s\n", done, m_t.total, id.c_str(),
                 status.c_str(), seconds, counts.c_str(), eta);
    std::fflush(stderr);
  }

 private:
  run_tally& m_t;
  std::size_t m_width;
  std::mutex m_mu;
  double m_seconds = 0;
};

void run_in_process(const batch_state& s, const std::vector<const candidate_entry*>& todo, const run_options& o,
                    batch_progress& bp, int first_index, int total) {
  int i = first_index;
  for (const candidate_entry* c : todo) {
    ++i;
    progress_line pl(!o.quiet);
    const std::string label = "[" + std::to_string(i) + "/" + std::to_string(total) + "] " + c->id();
    const auto t0 = clock_type::now();
    const json doc = judge_one(s, *c, o, [&](const std::string& phase, int done, int n, const std::string& note) {
      pl.update(label, phase, done, n, note);
    });
    pl.clear();
    bp.record(c->id(), doc, std::chrono::duration<double>(clock_type::now() - t0).count());
  }
}

// A child that left no result file (killed, crashed itself): the fault recorded for its candidate.
json child_fault(const batch_state& s, const candidate_entry& c, const run_options& o, const command_result& r) {
  json doc = bad_input_document(c, "judge fault: the child kjudge exited with status " + std::to_string(r.exit_status) +
                                       (r.signal ? " (signal " + std::to_string(r.signal) + ")" : "") + "; output:\n" +
                                       r.output.substr(r.output.size() > 4000 ? r.output.size() - 4000 : 0));
  doc["batch"] = batch_section(s, c, o, "judge_fault");
  write_json_file(result_path(s, doc["batch"]["key"]), doc);
  return doc;
}

// One thread per device; each runs one child `kjudge batch ... --one KEY` at a time with
// CUDA_VISIBLE_DEVICES set to its device, so no two evaluations share a device.
void run_on_devices(const batch_state& s, const std::vector<const candidate_entry*>& todo, const run_options& o,
                    batch_progress& bp) {
  std::atomic<std::size_t> next{0};
  auto work = [&](const std::string& device) {
    for (std::size_t k = next++; k < todo.size(); k = next++) {
      const candidate_entry& c = *todo[k];
      const std::string key = candidate_key(s, c);
      std::vector<std::string> argv = o.child_argv;
      argv.push_back(key);
      command_options co;
      co.timeout_seconds = 24 * 3600;  // the judge's own watchdogs bound a candidate; this bounds the child
      co.extra_env["CUDA_VISIBLE_DEVICES"] = device;
      co.max_output = std::size_t{64} << 10;  // bytes of the child's output kept
      const auto t0 = clock_type::now();
      const command_result r = run_command(argv, co);
      json doc;
      try {
        doc = has_result(s, key) ? read_json_file(result_path(s, key)) : child_fault(s, c, o, r);
      } catch (const std::exception&) {
        doc = child_fault(s, c, o, r);
      }
      bp.record(c.id() + " (device " + device + ")", doc,
                std::chrono::duration<double>(clock_type::now() - t0).count());
    }
  };
  std::vector<std::thread> threads;
  for (const auto& d : o.devices) threads.emplace_back(work, d);
  for (auto& t : threads) t.join();
}

// Whether the candidate of `key` is done: it has a result, and with --retry a judgement (a result
// file that cannot be read is not one). A result to judge again is removed first, so that a kill
// before the new one leaves the candidate to judge, as any candidate without a result.
bool done_before(const batch_state& s, const std::string& key, bool retry) {
  if (!has_result(s, key)) return false;
  if (!retry) return true;
  try {
    if (read_json_file(result_path(s, key))["batch"].value("outcome", "") == "judged") return true;
  } catch (const std::exception&) {  // unreadable: judged again
  }
  std::error_code ec;
  std::filesystem::remove(result_path(s, key), ec);
  return false;
}

}  // namespace

run_tally run_batch(const batch_state& s, const std::vector<candidate_entry>& shard, const run_options& o) {
  run_tally t;
  t.total = static_cast<int>(shard.size());
  std::vector<const candidate_entry*> todo;
  for (const auto& c : shard) {
    if (done_before(s, candidate_key(s, c), o.retry))
      ++t.already;
    else
      todo.push_back(&c);
  }
  std::fprintf(stderr, "kjudge batch %s: %d candidate(s), %d judged before, %zu to judge%s\n", s.batch_id.c_str(),
               t.total, t.already, todo.size(),
               o.devices.empty() ? "" : (" on " + std::to_string(o.devices.size()) + " device(s)").c_str());
  std::fflush(stderr);
  batch_progress bp(t, o.devices.empty() ? 1 : o.devices.size());
  if (o.devices.empty())
    run_in_process(s, todo, o, bp, t.already, t.total);
  else
    run_on_devices(s, todo, o, bp);
  return t;
}

}  // namespace kjudge::batch
