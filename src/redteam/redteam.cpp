#include "redteam/redteam.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "judge/evaluate.hpp"

namespace kjudge {

namespace {

using json = nlohmann::json;

std::string where(const std::filesystem::path& file, const toml::node& n) {
  return file.string() + ":" + std::to_string(n.source().begin.line);
}

std::string str_or(const toml::table& t, const char* key, const std::string& fallback) {
  if (const auto* v = t.get(key)) {
    if (const auto s = v->value<std::string>()) return *s;
  }
  return fallback;
}

std::vector<std::string> str_list(const toml::table& t, const char* key, const std::filesystem::path& file) {
  std::vector<std::string> out;
  const auto* v = t.get(key);
  if (v == nullptr) return out;
  const auto* arr = v->as_array();
  if (arr == nullptr) throw usage_error(where(file, *v) + ": " + key + " must be an array of strings");
  for (const auto& e : *arr) {
    const auto s = e.value<std::string>();
    if (!s) throw usage_error(where(file, e) + ": " + key + " must hold strings");
    out.push_back(*s);
  }
  return out;
}

double candidate_min_median(const result_document& result) {
  double m = -1;
  if (!result.timing) return m;
  for (const auto& c : result.timing->cases) {
    const double v = c.candidate ? c.candidate->median_s.value_or(-1.0) : -1.0;
    if (v >= 0 && (m < 0 || v < m)) m = v;
  }
  return m;
}

std::string pad(std::string s, std::size_t w) {
  // Widths count bytes; the corpus names are ASCII.
  if (s.size() + 1 > w) s = s.substr(0, w - 2) + "~";
  return s + std::string(w - s.size(), ' ');
}

std::string verdict_text(const redteam_row& r) {
  return r.rule.empty() ? r.status : r.status + " (" + r.rule + ")";
}

std::string expected_text(const corpus_entry& e) {
  if (e.kind == "honest") return "ok";
  std::string s;
  for (const auto& x : e.expect) s += (s.empty() ? "" : " | ") + x.text();
  return s;
}

}  // namespace

std::vector<corpus_entry> load_corpus_manifest(const std::filesystem::path& manifest, const std::string& kind) {
  toml::table root;
  try {
    root = toml::parse_file(manifest.string());
  } catch (const toml::parse_error& e) {
    throw usage_error(manifest.string() + ":" + std::to_string(e.source().begin.line) + ": " +
                      std::string(e.description()));
  }
  std::vector<corpus_entry> out;
  const auto* arr = root.get_as<toml::array>(kind);
  if (arr == nullptr) throw usage_error(manifest.string() + ": no [[" + kind + "]] entries");
  const auto dir = manifest.parent_path();
  for (const auto& node : *arr) {
    const auto* t = node.as_table();
    if (t == nullptr) throw usage_error(where(manifest, node) + ": [[" + kind + "]] must be a table");
    corpus_entry e;
    e.kind = kind;
    e.name = str_or(*t, "file", "");
    e.problem = str_or(*t, "problem", "");
    if (e.name.empty() || e.problem.empty())
      throw usage_error(where(manifest, node) + ": file and problem are required");
    // A problem given as a path ("problems/x", a variant of a suite problem kept with the corpus)
    // is relative to the manifest, like the file.
    if (e.problem.find('/') != std::string::npos && !std::filesystem::path(e.problem).is_absolute()) {
      if (!std::filesystem::is_regular_file(dir / e.problem / "problem.toml"))
        throw usage_error(where(manifest, node) + ": problem " + (dir / e.problem).string() + " has no problem.toml");
      e.problem = (dir / e.problem).lexically_normal().string();
    }
    e.file = dir / e.name;
    if (!std::filesystem::exists(e.file))
      throw usage_error(where(manifest, node) + ": " + e.file.string() + " does not exist");
    e.device = str_or(*t, "device", "cpu");
    e.dtype = str_or(*t, "dtype", "");
    e.pattern = str_or(*t, kind == "attack" ? "pattern" : "what", "");
    e.timing = t->get("timing") != nullptr && t->get("timing")->value_or(false);
    e.harmless = t->get("harmless") != nullptr && t->get("harmless")->value_or(false);
    if (const auto* m = t->get("min_candidate_median_s")) e.min_candidate_median_s = m->value_or(0.0);
    e.args = str_list(*t, "args", manifest);
    for (const auto& x : str_list(*t, "expect", manifest)) {
      const auto colon = x.find(':');
      e.expect.push_back(colon == std::string::npos ? expected_outcome{x, ""}
                                                    : expected_outcome{x.substr(0, colon), x.substr(colon + 1)});
    }
    if (kind == "attack" && e.expect.empty()) throw usage_error(where(manifest, node) + ": an attack needs `expect`");
    out.push_back(std::move(e));
  }
  return out;
}

bool outcome_matches(const corpus_entry& e, const result_document& result, std::string* why) {
  auto fail = [&](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  const std::string status(verdict_status_name(result.verdict.status));
  const std::string rule = result.verdict.rule.value_or("");
  if (e.kind == "honest") {
    if (!result.verdict.ok())
      return fail("an honest candidate was rejected: " + status + (rule.empty() ? "" : " (" + rule + ")"));
    return true;
  }
  bool any = false;
  for (const auto& x : e.expect)
    if (x.status == status && (x.rule.empty() || x.rule == rule)) any = true;
  if (!any) return fail("expected " + expected_text(e) + ", got " + status + (rule.empty() ? "" : ":" + rule));
  if (e.harmless && e.min_candidate_median_s > 0) {
    const double m = candidate_min_median(result);
    if (m < e.min_candidate_median_s)
      return fail("harmless only if the candidate's median is at least " + std::to_string(e.min_candidate_median_s) +
                  " s; it was " + std::to_string(m) + " s");
  }
  return true;
}

json redteam_report::to_json() const {
  json rows_j = json::array();
  for (const auto& r : rows)
    rows_j.push_back(json{{"kind", r.entry.kind},
                          {"file", r.entry.name},
                          {"problem", r.entry.problem},
                          {"dtype", r.entry.dtype},
                          {"pattern", r.entry.pattern},
                          {"expected", expected_text(r.entry)},
                          {"harmless", r.entry.harmless},
                          {"timing", r.entry.timing},
                          {"status", r.status},
                          {"rule", r.rule},
                          {"reason", r.reason},
                          {"success", r.success},
                          {"seconds", r.seconds}});
  return json{{"schema", "kjudge.redteam/1"},
              {"device", device},
              {"rows", rows_j},
              {"totals",
               {{"attacks", attacks},
                {"caught", caught},
                {"harmless", harmless},
                {"missed", missed},
                {"honest", honest},
                {"passed", passed},
                {"false_positives", false_positives}}}};
}

std::string redteam_report::table() const {
  std::ostringstream os;
  bool header_a = false, header_h = false;
  for (const auto& r : rows) {
    if (r.entry.kind != "attack") continue;
    if (!header_a) {
      os << pad("attack", 56) << pad("expected", 44) << pad("verdict", 40) << "result\n";
      header_a = true;
    }
    const std::string result = r.success ? (r.entry.harmless ? "harmless" : "caught") : "MISSED";
    os << pad(r.entry.name + " (" + r.entry.problem + ")", 56) << pad(expected_text(r.entry), 44)
       << pad(verdict_text(r), 40) << result << "\n";
    if (!r.success) os << "    " << r.reason << "\n";
  }
  for (const auto& r : rows) {
    if (r.entry.kind != "honest") continue;
    if (!header_h) {
      os << (header_a ? "\n" : "") << pad("honest candidate", 60) << pad("verdict", 40) << "result\n";
      header_h = true;
    }
    const std::string label =
        r.entry.name + " (" + r.entry.problem + (r.entry.dtype.empty() ? "" : " " + r.entry.dtype) + ")";
    os << pad(label, 60) << pad(verdict_text(r), 40) << (r.success ? "passed" : "FALSE POSITIVE") << "\n";
    if (!r.success) os << "    " << r.reason << "\n";
  }
  os << "\ntotals (" << device << "): attacks " << attacks << ": caught " << caught << ", harmless as expected "
     << harmless << ", missed " << missed << "; honest " << honest << ": passed " << passed << ", false positives "
     << false_positives << "\n";
  return os.str();
}

redteam_report run_redteam(const redteam_options& o, const std::function<void(const redteam_row&)>& on_row) {
  const std::filesystem::path tests =
      o.tests_dir.empty() ? std::filesystem::path(KJUDGE_SOURCE_DIR) / "tests" : o.tests_dir;
  std::vector<corpus_entry> entries;
  auto select = [&](std::vector<corpus_entry> v) {
    for (auto& e : v) {
      if (e.device != o.device) continue;
      bool keep = o.only.empty();
      for (const auto& s : o.only) keep = keep || e.name.find(s) != std::string::npos;
      if (keep) entries.push_back(std::move(e));
    }
  };
  if (o.attacks) select(load_corpus_manifest(tests / "redteam" / "manifest.toml", "attack"));
  if (o.honest) select(load_corpus_manifest(tests / "honest" / "manifest.toml", "honest"));

  const auto work = std::filesystem::temp_directory_path() / ("kjudge-redteam-" + std::to_string(::getpid()));
  std::filesystem::create_directories(work);
  redteam_report rep;
  rep.device = o.device;
  rep.rows.resize(entries.size());

  struct running {
    std::size_t index;
    std::chrono::steady_clock::time_point start;
  };
  std::map<pid_t, running> live;
  constexpr double entry_timeout_s = 900;  // far above any evaluation's own watchdogs

  auto launch = [&](std::size_t i) {
    const corpus_entry& e = entries[i];
    const auto out = work / (std::to_string(i) + ".json");
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw internal_error("fork failed");
    if (pid == 0) {
      // The child is a controller of its own (non-dumpable like its parent): it judges one entry
      // and writes the result document.
      int code = 0;
      json doc;
      try {
        eval_options eo;
        eo.problem = e.problem;
        eo.candidate = e.file;
        eo.device = e.device;
        if (!e.dtype.empty()) eo.dtype = e.dtype;
        eo.timing = e.timing || (e.kind == "honest" && o.honest_timing);
        eo.timing_budget_seconds = o.timing_budget_seconds;
        eo.hidden_count = o.hidden_count;
        // One set of workers: the rules under test, not the CI across processes, are what the
        // corpus checks (phase_fresh_process_gelu is caught in the candidate's first timing worker).
        eo.worker_epochs = 1;
        eo.torch_baselines = {"none"};  // the rules under test do not need PyTorch baselines
        for (std::size_t k = 0; k + 1 < e.args.size(); ++k) {
          if (e.args[k] == "--seed") eo.secret_seed = std::stoull(e.args[k + 1], nullptr, 16);
          if (e.args[k] == "--sanitize") eo.sanitize = e.args[k + 1];
        }
        doc = evaluate(eo).to_json();
      } catch (const std::exception& ex) {
        doc = json{{"error", ex.what()}};
        code = 3;
      }
      std::ofstream(out) << doc.dump();
      ::_exit(code);
    }
    live[pid] = running{i, std::chrono::steady_clock::now()};
  };

  auto finish = [&](pid_t pid, int wstatus) {
    const running r = live[pid];
    live.erase(pid);
    const corpus_entry& e = entries[r.index];
    redteam_row row;
    row.entry = e;
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count();
    const auto out = work / (std::to_string(r.index) + ".json");
    json doc;
    if (std::ifstream in(out); in) {
      try {
        in >> doc;
      } catch (const std::exception&) {
        doc = json();
      }
    }
    if (WIFSIGNALED(wstatus)) {
      row.status = "no verdict";
      row.reason = "the controller died of signal " + std::to_string(WTERMSIG(wstatus));
    } else if (doc.is_object() && doc.contains("verdict")) {
      try {
        const result_document result = result_document::from_json(doc);
        row.status = verdict_status_name(result.verdict.status);
        row.rule = result.verdict.rule.value_or("");
        row.reason = result.verdict.reasons.empty() ? "" : result.verdict.reasons[0];
        std::string why;
        row.success = outcome_matches(e, result, &why);
        if (!row.success) row.reason = why + (row.reason.empty() ? "" : " — " + row.reason);
      } catch (const result_format_error& bad) {
        row.status = "no verdict";
        row.reason = bad.what();
      }
    } else {
      row.status = "no verdict";
      row.reason = doc.is_object() ? doc.value("error", "no result document") : "no result document";
    }
    std::error_code ec;
    std::filesystem::remove(out, ec);
    rep.rows[r.index] = row;
    if (on_row) on_row(row);
  };

  std::size_t next = 0;
  const int jobs = std::max(1, o.jobs);
  while (next < entries.size() || !live.empty()) {
    while (next < entries.size() && static_cast<int>(live.size()) < jobs) launch(next++);
    int wstatus = 0;
    const pid_t pid = ::waitpid(-1, &wstatus, WNOHANG);
    if (pid > 0 && live.count(pid)) {
      finish(pid, wstatus);
      continue;
    }
    for (auto& [p, r] : live)
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count() > entry_timeout_s)
        ::kill(p, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::error_code ec;
  std::filesystem::remove_all(work, ec);

  for (const auto& r : rep.rows) {
    if (r.entry.kind == "attack") {
      ++rep.attacks;
      if (!r.success)
        ++rep.missed;
      else if (r.entry.harmless)
        ++rep.harmless;
      else
        ++rep.caught;
    } else {
      ++rep.honest;
      if (r.success)
        ++rep.passed;
      else
        ++rep.false_positives;
    }
  }
  return rep;
}

}  // namespace kjudge
