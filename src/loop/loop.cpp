#include "loop/loop.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <random>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/interrupt.hpp"
#include "core/json_file.hpp"
#include "core/json_path.hpp"
#include "core/paths.hpp"
#include "core/utc.hpp"
#include "core/verdict_status.hpp"
#include "judge/evaluate.hpp"
#include "judge/python_parties.hpp"
#include "loop/context.hpp"
#include "loop/detail/git.hpp"
#include "loop/journal.hpp"
#include "loop/loop_report.hpp"
#include "loop/loop_store.hpp"
#include "loop/proposer.hpp"
#include "loop/state.hpp"
#include "problem/registry.hpp"
#include "report/progress.hpp"
#include "report/report.hpp"
#include "store/store.hpp"

namespace kjudge::loop {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* k_config_schema = "kjudge.loop/1";
constexpr std::size_t k_max_source_bytes = 1 << 20;  // a kernel source past 1 MiB is not a source

using clock_type = std::chrono::steady_clock;

std::string local_stamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

std::string random_hex64() {
  std::random_device rd;
  const std::uint64_t v = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  return fmt::format("{:016x}", v);
}

std::string fmt_duration(double s) {
  if (!(s >= 0)) return "?";
  const long t = std::lround(s);
  if (t >= 3600) return fmt::format("{}h{:02d}m", t / 3600, (t % 3600) / 60);
  if (t >= 60) return fmt::format("{}m{:02d}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

std::string fmt_ci(double m, double lo, double hi) {
  return fmt::format("{:.3g}x [{:.3g}, {:.3g}]", m, lo, hi);
}

bool valid_utf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0) return false;
    int n = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : -1;
    if (n < 0 || i + static_cast<std::size_t>(n) >= s.size() + (n == 0 ? 1 : 0)) return false;
    for (int k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) >> 6) != 0x2) return false;
    i += static_cast<std::size_t>(n) + 1;
  }
  return true;
}

struct classified {
  bool ok = false;
  std::string reason;
  std::string content;
};

// Whether a file the proposer wrote is a candidate source at all; what compiles is the judge's
// call (compile_error), not this one's.
classified classify(const fs::path& p, const std::string& device) {
  classified c;
  std::error_code ec;
  const auto st = fs::symlink_status(p, ec);
  if (ec || !fs::is_regular_file(st)) {
    c.reason = "not a regular file (a directory, link or device)";
    return c;
  }
  const std::string ext = p.extension().string();
  const bool source = device == "cuda" ? ext == ".cu" : (ext == ".cpp" || ext == ".cc" || ext == ".cxx");
  if (!source) {
    c.reason = fmt::format("not a candidate source: expected {} for --device {}, got '{}'",
                           device == "cuda" ? "*.cu" : "*.cpp", device, p.filename().string());
    return c;
  }
  const auto size = fs::file_size(p, ec);
  if (ec || size == 0) {
    c.reason = "empty file";
    return c;
  }
  if (size > k_max_source_bytes) {
    c.reason = fmt::format("{} bytes: larger than the 1 MiB limit of a candidate source", size);
    return c;
  }
  try {
    c.content = read_file(p);
  } catch (const std::exception& e) {
    c.reason = std::string("unreadable: ") + e.what();
    return c;
  }
  if (!valid_utf8(c.content)) {
    c.reason = "binary content (a NUL byte or invalid UTF-8): not source text";
    return c;
  }
  if (c.content.find_first_not_of(" \t\r\n") == std::string::npos) {
    c.reason = "empty file (whitespace only)";
    return c;
  }
  c.ok = true;
  return c;
}

std::optional<json> read_json_if_valid(const fs::path& p) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return std::nullopt;
  try {
    json j = read_json_file(p);
    if (j.is_object() && j.contains("verdict")) return j;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// The result of a file the loop could not judge (unreadable, say): bad_input, and the loop goes on.
result_document bad_input_result(const std::string& problem, const std::string& device, const fs::path& candidate,
                                 const std::string& sha256, const std::string& why) {
  result_document r;
  r.created_at = utc_now();
  r.problem.name = problem;
  r.problem.device = device;
  r.candidate.emplace();
  r.candidate->path = candidate.string();
  r.candidate->sha256 = sha256;
  r.device = device;
  r.verdict.status = verdict_status::bad_input;
  r.verdict.reasons = {why};
  return r;
}

// One process at a time per workdir: an exclusive flock on workdir/.lock for the run's lifetime
// (released by the kernel however the process ends), holding the owner's pid and start. A second
// `kjudge loop --resume` on a running loop is refused and told who holds it.
class workdir_lock {
 public:
  explicit workdir_lock(const fs::path& workdir) : m_path(workdir / ".lock") {
    m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0) throw usage_error(m_path.string() + ": cannot open: " + std::strerror(errno));
    if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      std::string holder;
      try {
        holder = read_file(m_path);
      } catch (const std::exception&) {
      }
      ::close(m_fd);
      m_fd = -1;
      if (err == EWOULDBLOCK)
        throw usage_error(workdir.string() + ": the loop is running in another kjudge" +
                          (holder.empty() ? std::string() : " (" + holder.substr(0, holder.find('\n')) + ")") +
                          "; wait for it to end, or stop it (Ctrl-C), then --resume");
      throw usage_error(m_path.string() + ": cannot lock: " + std::strerror(err));
    }
    const std::string me = fmt::format("pid {}, since {}\n", ::getpid(), utc_now());
    if (::ftruncate(m_fd, 0) == 0) (void)!::write(m_fd, me.data(), me.size());
  }
  workdir_lock(const workdir_lock&) = delete;
  workdir_lock& operator=(const workdir_lock&) = delete;
  ~workdir_lock() {
    if (m_fd >= 0) ::close(m_fd);
  }

 private:
  fs::path m_path;
  int m_fd = -1;
};

class driver {
 public:
  driver(fs::path workdir, const std::vector<json>& events, bool progress)
      : m_workdir(std::move(workdir)),
        m_journal(m_workdir / "journal.jsonl"),
        m_progress(progress),
        m_t0(clock_type::now()) {
    for (const auto& ev : events) m_state.apply(ev);
    const json& c = m_state.config;
    m_problem = load_problem(c.value("problem_dir", std::string()));
    m_proposer = make_proposer(c.value("proposer_resolved", std::string()), c);
    m_params.k = c.value("beam", 4);
    m_params.near_miss_margin = c.value("near_miss_margin", 0.15);
    m_params.retire_after = c.value("retire_after", 2);
    m_db = std::make_unique<loop_store>(fs::path(c.value("db", std::string())));
    m_elapsed_base = m_state.elapsed_s;
  }

  void append(const json& ev) {
    m_journal.append(ev);
    m_state.apply(ev);
  }

  // resumed: the "resumed" event of `kjudge loop --resume`, journaled once the run could be
  // taken up (a resume that fails before leaves the journal as it was).
  loop_outcome run(const std::optional<json>& resumed = std::nullopt) {
    m_db->upsert_run(m_state.config);
    sync_store();
    commit_pending();
    if (resumed) append(*resumed);
    // Interrupted (Ctrl-C, SIGTERM): the journal says so, the proposer and the workers are
    // terminated (core/interrupt.hpp), and --resume takes the run up where it was.
    const int hook = interrupt::add_hook([this](int sig) {
      m_journal.append(json{{"event", "stopped"},
                            {"reason", "interrupted"},
                            {"signal", sig},
                            {"iteration", m_state.last_iteration()},
                            {"elapsed_s", elapsed()},
                            {"at", utc_now()}});
    });
    struct unhook {  // NOLINT(cppcoreguidelines-special-member-functions): a scope guard, never copied
      int id;
      ~unhook() { interrupt::remove_hook(id); }
    } unhooked{hook};
    while (true) {
      const int i = m_state.last_iteration();
      if (i > 0 && !m_state.iterations[i].finished) {
        continue_iteration(i);
        continue;
      }
      const std::string stop = stop_condition();
      if (!stop.empty()) {
        append(json{
            {"event", "stopped"}, {"reason", stop}, {"iteration", i}, {"elapsed_s", elapsed()}, {"at", utc_now()}});
        say(fmt::format("stopped after {} iteration(s): {} · {}", m_state.finished_iterations, describe_stop(stop),
                        best_line()));
        break;
      }
      start_iteration(i + 1);
    }
    loop_outcome out;
    out.workdir = m_workdir;
    out.run_id = m_state.config.value("id", "");
    out.stop_reason = m_state.stop_reason;
    out.iterations = m_state.finished_iterations;
    out.best = m_state.best;
    return out;
  }

 private:
  const json& cfg() const { return m_state.config; }
  std::string run_id() const { return cfg().value("id", ""); }
  std::string device() const { return cfg().value("device", std::string("cpu")); }

  double elapsed() const { return m_elapsed_base + std::chrono::duration<double>(clock_type::now() - m_t0).count(); }

  judge_profile full_profile() const {
    judge_profile p;
    const json e = cfg().value("eval", json::object());
    p.timing_budget_s = e.value("timing_budget_s", 2.0);
    p.min_rounds = e.value("min_rounds", 10);
    return p;
  }

  std::string stop_condition() const {
    const json b = cfg().value("budget_iterations", json());
    if (b.is_number_integer() && m_state.finished_iterations >= b.get<int>()) return "budget";
    const json h = cfg().value("hours", json());
    if (h.is_number() && elapsed() >= h.get<double>() * 3600.0) return "hours";
    if (m_proposer->finished(m_state)) return "exhausted";
    return {};
  }

  static std::string describe_stop(const std::string& s) {
    if (s == "budget") return "iteration budget spent";
    if (s == "hours") return "time budget spent";
    if (s == "exhausted") return "the proposer has nothing left to propose";
    return s;
  }

  std::string left_line() const {
    std::string s = "elapsed " + fmt_duration(elapsed());
    const json b = cfg().value("budget_iterations", json());
    if (b.is_number_integer())
      s += fmt::format(", {} of {} iterations left", std::max(0, b.get<int>() - m_state.finished_iterations),
                       b.get<int>());
    const json h = cfg().value("hours", json());
    if (h.is_number()) s += ", " + fmt_duration(std::max(0.0, h.get<double>() * 3600.0 - elapsed())) + " left";
    return s;
  }

  std::string best_line() const {
    if (!m_state.best) return "no correct candidate yet";
    const auto& b = *m_state.best;
    return fmt::format("best {} {} ({}), {}", fmt_ci(b.median, b.lo, b.hi), b.id, b.family, format_seconds(b.time_s));
  }

  void say(const std::string& line) const {
    if (!m_progress) return;
    std::fprintf(stderr, "[loop] %s\n", line.c_str());
    std::fflush(stderr);
  }

  fs::path iteration_dir(int i) const { return m_workdir / "iterations" / fmt::format("{:04d}", i); }

  void start_iteration(int i) {
    const request req = choose_request(i, m_state.beam, m_state.families, m_state.plateau, cfg().value("plateau", 3),
                                       m_state.latest_rejected_id, m_state.latest_rejected_family);
    const fs::path dir = iteration_dir(i);
    context_paths paths{m_workdir, dir / "context.json", dir / "brief.md", dir / "out"};
    const json ctx = build_context(m_state, m_problem, i, req, paths);
    write_json_file(paths.context, ctx);
    write_file_atomic(paths.brief, render_brief(ctx));
    append(json{{"event", "iteration"},
                {"iteration", i},
                {"request", req.to_json()},
                {"context", fs::relative(paths.context, m_workdir).string()},
                {"brief", fs::relative(paths.brief, m_workdir).string()},
                {"at", utc_now()}});
    std::string what = req.kind;
    if (!req.target_id.empty()) what += " " + req.target_id + " (" + req.family + ")";
    say(fmt::format("iteration {} · request: {} · {} · {}", i, what, best_line(), left_line()));
  }

  void continue_iteration(int i) {
    if (!m_state.iterations[i].proposed) run_proposer(i);
    const std::vector<std::string> ids = m_state.iterations[i].proposal_ids;
    for (const auto& id : ids)
      if (m_state.find(id)->state == "pending") judge(id);
    finish_iteration(i);
  }

  void run_proposer(int i) {
    const fs::path dir = iteration_dir(i);
    const fs::path out = dir / "out";
    std::error_code ec;
    fs::remove_all(out, ec);  // a proposer killed with the loop may have left files: start clean
    fs::create_directories(out, ec);
    if (ec) throw usage_error(out.string() + ": cannot create: " + ec.message());
    proposer_input in;
    in.iteration = i;
    in.workdir = m_workdir;
    in.context = dir / "context.json";
    in.brief = dir / "brief.md";
    in.out_dir = out;
    in.log = dir / "proposer.log";
    in.state = &m_state;
    in.full_profile = full_profile();
    proposer_result r = m_proposer->propose(in);

    const int max_files = cfg().value("max_proposals", 16);
    const bool autotune = cfg().value("proposer_resolved", std::string()).rfind("autotune:", 0) == 0;
    json proposals = json::array();
    int index = 0, eligible = 0, garbage = 0;
    std::map<std::string, std::string> keys_this_iteration;
    const std::string ext = device() == "cuda" ? ".cu" : ".cpp";
    for (const auto& f : r.files) {
      const std::string id = fmt::format("i{:04d}-p{:02d}", i, index);
      json pj{{"id", id}, {"index", index}, {"name", f.path.filename().string()}, {"meta", f.meta}};
      ++index;
      const judge_profile prof = f.profile.value_or(full_profile());
      pj["profile"] = prof.to_json();
      if (r.status != "ok") {
        pj["state"] = "discarded";
        pj["reason"] = "the proposer failed (" + r.status + "): its files are not judged";
        proposals.push_back(pj);
        continue;
      }
      const classified c = classify(f.path, device());
      if (!c.ok) {
        pj["state"] = "garbage";
        pj["reason"] = c.reason;
        ++garbage;
        proposals.push_back(pj);
        continue;
      }
      if (!autotune && eligible >= max_files) {
        pj["state"] = "skipped";
        pj["reason"] = fmt::format("over the limit of {} files per iteration", max_files);
        proposals.push_back(pj);
        continue;
      }
      ++eligible;
      const std::string sha = sha256_hex(c.content);
      const std::string file = "proposals/" + id + ext;
      write_file_atomic(m_workdir / file, c.content);
      pj["file"] = file;
      pj["sha256"] = sha;
      const std::string key = sha + "|" + prof.key();
      if (auto it = m_state.judged_key.find(key); it != m_state.judged_key.end()) {
        pj["state"] = "duplicate";
        pj["duplicate_of"] = it->second;
        pj["reason"] = "the same source was judged with the same budget as " + it->second;
      } else if (auto jt = keys_this_iteration.find(key); jt != keys_this_iteration.end()) {
        pj["state"] = "duplicate";
        pj["duplicate_of"] = jt->second;
        pj["reason"] = "the same source as " + jt->second + " in this iteration";
      } else {
        pj["state"] = "pending";
        keys_this_iteration[key] = id;
      }
      proposals.push_back(pj);
    }
    std::string status = r.status;
    if (status == "ok") {
      if (r.files.empty())
        status = "nothing";
      else if (eligible == 0)
        status = "garbage";
    }
    json pr{{"status", status},     {"exit_status", r.exit_status}, {"signal", r.signal}, {"seconds", r.seconds},
            {"message", r.message}, {"files", r.files.size()},      {"garbage", garbage}};
    if (fs::exists(in.log)) pr["log"] = fs::relative(in.log, m_workdir).string();
    append(
        json{{"event", "proposed"}, {"iteration", i}, {"proposer", pr}, {"proposals", proposals}, {"at", utc_now()}});
    m_proposer->recorded(r.files, m_state);
    for (const auto& id : m_state.iterations[i].proposal_ids) store_proposal(*m_state.find(id));
    std::string line = fmt::format(
        "proposer {} in {:.1f} s: {} file(s), {} to judge", status, r.seconds, r.files.size(),
        std::count_if(proposals.begin(), proposals.end(), [](const json& p) { return p["state"] == "pending"; }));
    if (garbage > 0) line += fmt::format(", {} garbage", garbage);
    if (!r.message.empty()) line += " · " + r.message.substr(0, 300);
    say(line);
    for (const auto& p : proposals)
      if (p["state"] != "pending")
        say(fmt::format("  {} {}: {}", p["id"].get<std::string>(), p["state"].get<std::string>(),
                        p.value("reason", "")));
  }

  void judge(const std::string& id) {
    const proposal p = *m_state.find(id);  // a copy: appending events may move the vector
    const fs::path result_file = m_workdir / "results" / (id + ".json");
    json result;
    if (auto existing = read_json_if_valid(result_file)) {
      // Judged before a kill: the result document was written, the journal line was not.
      result = *existing;
    } else {
      eval_options eo;
      eo.problem = cfg().value("problem_dir", std::string());
      eo.candidate = m_workdir / p.file;
      eo.device = device();
      if (cfg().value("dtype", json()).is_string()) eo.dtype = cfg()["dtype"].get<std::string>();
      eo.timing_budget_seconds = p.profile.timing_budget_s;
      eo.min_rounds = p.profile.min_rounds;
      eo.max_rounds = std::max(eo.max_rounds, p.profile.min_rounds);
      eo.hidden_count = cfg().value("eval", json::object()).value("hidden", -1);
      // One set of workers: a rung's few rounds are not split between processes (the restarts
      // would cost more than the rung's timing); a claim is settled by `kjudge eval`, which splits
      // them on cuda (default_worker_epochs).
      eo.worker_epochs = 1;
      eo.sandbox = cfg().value("sandbox", true);
      eo.torch_baselines = cfg().value("eval", json::object()).value("torch_baselines", std::vector<std::string>{});
      progress_line pl(m_progress);
      std::string label = id;
      if (p.meta.is_object() && p.meta.contains("autotune")) label += " " + p.meta["autotune"].value("config", "");
      eo.progress = [&](const std::string& phase, int done, int total, const std::string& note) {
        pl.update(label, phase, done, total, note);
      };
      try {
        result = evaluate(eo).to_json();
      } catch (const usage_error& e) {
        // Bad input about this one file (e.g. unreadable): a verdict for it, and the loop goes on.
        result = bad_input_result(m_problem.name, device(), eo.candidate, p.sha256, e.what()).to_json();
      }
      pl.clear();
      result["loop"] =
          json{{"run", run_id()}, {"proposal", id}, {"iteration", p.iteration}, {"profile", p.profile.to_json()}};
      write_json_file(result_file, result);
    }
    json summary = summarize_result(result);
    if (summary.value("family", "unknown") == "unknown") {
      try {
        summary["family"] = family_from_source(read_file(m_workdir / p.file));
      } catch (const std::exception&) {
      }
    }
    append(json{{"event", "judged"},
                {"id", id},
                {"sha256", p.sha256},
                {"result", fs::relative(result_file, m_workdir).string()},
                {"summary", summary},
                {"at", utc_now()}});
    store_proposal(*m_state.find(id));
    std::string line = fmt::format("{} {}", id, summary.value("status", ""));
    if (summary["rule"].is_string()) line += " (" + summary["rule"].get<std::string>() + ")";
    if (summary["median"].is_number()) line += " " + ci_text(summary);
    if (summary["time_s"].is_number()) line += " " + format_seconds(summary["time_s"].get<double>());
    line += " family=" + summary.value("family", "unknown");
    if (p.meta.is_object() && p.meta.contains("autotune"))
      line += fmt::format(" [{}; rung {}]", p.meta["autotune"].value("config", ""),
                          p.meta["autotune"].value("rung", 0) + 1);
    if (!is_ok_status(summary.value("status", "")) && !summary["reasons"].empty())
      line += " · " + summary["reasons"][0].get<std::string>().substr(0, 200);
    say(line);
  }

  void finish_iteration(int i) {
    const auto pool = m_state.pool();
    const auto beam = select_beam(pool, m_params);
    std::vector<attempt> attempts;
    for (const auto& id : m_state.iterations[i].proposal_ids) {
      const proposal* p = m_state.find(id);
      if (p->state != "judged") continue;
      attempts.push_back(attempt{p->id, p->summary.value("family", "unknown"), p->summary.value("status", ""), i});
    }
    auto families = m_state.families;
    const auto changes = update_families(families, attempts, pool, beam, m_params, i);
    std::optional<scored_candidate> best;
    if (!beam.empty()) best = beam.front().c;
    const bool improved = best && improves_beyond_noise(m_state.best, *best);
    plateau_state plateau = m_state.plateau;
    if (improved) plateau.last_improvement = i;
    json accept;
    if (best) {
      const json* last = m_state.accepts.empty() ? nullptr : &m_state.accepts.back();
      if (last == nullptr ||
          ((*last).value("sha256", "") != best->sha256 && best->median > (*last).value("median", 0.0))) {
        accept = to_json(*best);
        accept["previous"] = last != nullptr ? json((*last).value("id", "")) : json();
        accept["beyond_noise"] = improved;
      }
    }
    json beam_j = json::array();
    for (const auto& m : beam) beam_j.push_back(member_to_json(m));
    json fam_j = json::array();
    for (const auto& [name, f] : families) fam_j.push_back(family_to_json(f));
    append(json{{"event", "beam"},
                {"iteration", i},
                {"beam", beam_j},
                {"families", fam_j},
                {"best", best ? to_json(*best) : json()},
                {"improved", improved},
                {"changes", changes},
                {"plateau",
                 {{"last_improvement", plateau.last_improvement},
                  {"last_new_family_request", plateau.last_new_family_request}}},
                {"accept", accept},
                {"elapsed_s", elapsed()},
                {"at", utc_now()}});
    store_iteration(i);
    for (const auto& [name, f] : m_state.families) m_db->upsert_family(run_id(), family_to_json(f));
    commit_pending();

    std::string members;
    for (const auto& m : beam)
      members += fmt::format("{}{} {} {:.3g}x{}", members.empty() ? "" : " | ", m.c.id, m.c.family, m.c.median,
                             m.near_miss ? " (near-miss)" : "");
    say(fmt::format("iteration {} done{} · {} · beam: {} · {}", i, improved ? " (improved)" : "", best_line(),
                    members.empty() ? "empty" : members, left_line()));
    for (const auto& ch : changes) {
      const auto colon = ch.find(':');
      const std::string fam = ch.substr(colon + 1);
      if (ch.rfind("retired:", 0) == 0)
        say(fmt::format("  family {} retired: {}", fam, m_state.families[fam].retired_reason));
      else
        say(fmt::format("  family {} revived", fam));
    }
  }

  // Commits every accepted improvement that has no commit yet (the last one, normally; after a
  // kill between the "beam" and "committed" events, the one that was cut off).
  void commit_pending() {
    for (const auto& a : m_state.accepts) {
      const std::string id = a.value("id", "");
      if (m_state.commits.count(id)) continue;
      const proposal* p = m_state.find(id);
      if (p == nullptr) continue;
      const json& s = p->summary;
      std::string source;
      try {
        source = read_file(m_workdir / p->file);
      } catch (const std::exception&) {
      }
      const std::string prev = a["previous"].is_string() ? a["previous"].get<std::string>() : "";
      std::string prev_line = "none: the first correct candidate";
      if (const proposal* pp = m_state.find(prev); pp != nullptr && pp->summary["median"].is_number())
        prev_line = fmt::format("{} {:.3g}x", prev, pp->summary["median"].get<double>());
      std::string msg =
          fmt::format("{}: {} {}, family {}\n\n", id, ci_text(s), s.value("status", ""), s.value("family", "unknown"));
      msg += fmt::format(
          "Accepted improvement of the kjudge loop on {} ({}), iteration {}{}.\n", m_problem.name, device(),
          p->iteration,
          a.value("beyond_noise", false) ? ", beyond the previous best's CI" : ", within the previous best's CI");
      msg += fmt::format("verdict: {}{}\n", s.value("status", ""),
                         s["reasons"].empty() ? std::string() : " — " + s["reasons"][0].get<std::string>());
      msg += fmt::format("speedup: {} (95% CI) against {}\n", ci_text(s),
                         s["baseline"].is_string() ? s["baseline"].get<std::string>() : "the strongest baseline");
      if (s["time_s"].is_number())
        msg += fmt::format("time: {} (geometric mean over the bench cases of the candidate's median)\n",
                           format_seconds(s["time_s"].get<double>()));
      msg += "previous best: " + prev_line + "\n";
      if (p->meta.is_object() && p->meta.contains("autotune"))
        msg += "autotune: " + p->meta["autotune"].value("config", "") + "\n";
      msg += fmt::format("\nkjudge-run: {}\nkjudge-sha256: {}\nkjudge-proposal: {}\n", run_id(), p->sha256, id);
      const std::string ext = device() == "cuda" ? ".cu" : ".cpp";
      json best_doc{{"id", id},     {"iteration", p->iteration}, {"sha256", p->sha256},
                    {"summary", s}, {"meta", p->meta},           {"run", run_id()}};
      const auto g = detail::commit_files(m_workdir / "git",
                                          {{"best" + ext, source}, {"best.json", best_doc.dump(2) + "\n"}}, msg, id);
      if (!g.ok) {
        say("git commit of " + id + " failed (the journal and store hold it): " + g.message.substr(0, 300));
        return;
      }
      append(json{{"event", "committed"}, {"id", id}, {"commit", g.commit}, {"at", utc_now()}});
      say(fmt::format("accepted {} → git commit {}", id, g.commit.substr(0, 12)));
    }
  }

  void store_proposal(const proposal& p) {
    json row{{"id", p.id},         {"iteration", p.iteration}, {"file", p.file},
             {"sha256", p.sha256}, {"state", p.state},         {"meta", p.meta}};
    std::optional<std::int64_t> eval_id;
    if (const json* s = m_state.effective_summary(p)) {
      row["family"] = s->value("family", "unknown");
      row["status"] = s->value("status", "");
      row["rule"] = s->value("rule", json());
      row["median"] = s->value("median", json());
      row["lo"] = s->value("lo", json());
      row["hi"] = s->value("hi", json());
      row["time_s"] = s->value("time_s", json());
    }
    if (p.state == "judged") {
      if (auto doc = read_json_if_valid(m_workdir / "results" / (p.id + ".json"));
          doc &&
          parse_verdict_status(string_at(*doc, {"verdict", "status"}).value_or("")) != verdict_status::bad_input) {
        std::string source;
        try {
          source = read_file(m_workdir / p.file);
        } catch (const std::exception&) {
        }
        eval_id = m_db->ensure_evaluation(*doc, source, run_id(), p.id);
      }
    }
    m_db->upsert_proposal(run_id(), row, eval_id);
  }

  void store_iteration(int i) {
    const auto& rec = m_state.iterations[i];
    // An iteration whose proposer never finished (kjudge killed meanwhile) has no proposer record.
    const json proposer = rec.proposer.is_object() ? rec.proposer : json::object();
    json row{{"iteration", i},
             {"request", rec.req.to_json()},
             {"proposer_status", proposer.value("status", "")},
             {"proposer_seconds", proposer.value("seconds", 0.0)},
             {"n_proposals", rec.proposal_ids.size()}};
    if (rec.finished) {
      row["best"] = rec.beam_event.value("best", json());
      row["improved"] = rec.beam_event.value("improved", false);
      row["beam"] = rec.beam_event.value("beam", json::array());
      row["elapsed_s"] = rec.beam_event.value("elapsed_s", 0.0);
    }
    m_db->upsert_iteration(run_id(), row);
  }

  // Rewrites every row from the journal: after kill -9 the store may lag the journal by a step.
  void sync_store() {
    for (const auto& p : m_state.proposals) store_proposal(p);
    for (const auto& [i, rec] : m_state.iterations) store_iteration(i);
    for (const auto& [name, f] : m_state.families) m_db->upsert_family(run_id(), family_to_json(f));
  }

  fs::path m_workdir;
  loop_state m_state;
  journal m_journal;
  problem_spec m_problem;
  std::unique_ptr<proposer> m_proposer;
  std::unique_ptr<loop_store> m_db;
  beam_params m_params;
  bool m_progress;
  clock_type::time_point m_t0;
  double m_elapsed_base = 0.0;
};

// The store as loop.json keeps it for --resume: a file made absolute (a resume may start in another
// directory), a PostgreSQL URL as given.
std::string store_location(const fs::path& db) {
  if (store::is_postgres_url(db.string())) return db.string();
  return fs::absolute(db).string();
}

void check_options(const loop_options& o) {
  if (o.problem.empty()) throw usage_error("loop: give a PROBLEM (or --resume DIR)");
  if (o.proposer.empty()) throw usage_error("loop: --proposer is required (a command, autotune:TEMPLATE or dir:PATH)");
  if (o.beam < 1) throw usage_error(fmt::format("--beam {}: expected at least 1", o.beam));
  if (o.budget_iterations && *o.budget_iterations < 1)
    throw usage_error(fmt::format("--budget {}: expected at least 1 iteration", *o.budget_iterations));
  if (o.hours && !(*o.hours > 0)) throw usage_error(fmt::format("--hours {}: expected a positive number", *o.hours));
  if (o.device != "cpu" && o.device != "cuda") throw usage_error("--device " + o.device + ": expected cpu or cuda");
  if (o.plateau < 0) throw usage_error(fmt::format("--plateau {}: expected 0 (never) or more iterations", o.plateau));
  if (!(o.eval_budget_s > 0))
    throw usage_error(fmt::format("--eval-budget {}: expected a positive number of seconds", o.eval_budget_s));
  if (o.min_rounds < 3) throw usage_error(fmt::format("--min-rounds {}: expected at least 3", o.min_rounds));
  if (!(o.near_miss_margin >= 0 && o.near_miss_margin < 1))
    throw usage_error(fmt::format("--near-miss {}: expected a fraction in [0, 1)", o.near_miss_margin));
  if (o.retire_after < 1) throw usage_error(fmt::format("--retire-after {}: expected at least 1", o.retire_after));
  if (!(o.proposer_timeout_s > 0))
    throw usage_error(
        fmt::format("--proposer-timeout {}: expected a positive number of seconds", o.proposer_timeout_s));
  if (o.max_proposals < 1) throw usage_error(fmt::format("--max-proposals {}: expected at least 1", o.max_proposals));
  for (const auto& t : o.torch_baselines) {
    const auto& kinds = torch_baseline_kinds();
    if (t != "none" && std::find(kinds.begin(), kinds.end(), t) == kinds.end()) {
      std::string known = "none";
      for (const auto& k : kinds) known += ", " + k;
      throw usage_error("--torch-baselines " + t + ": unknown kind (known: " + known + ")");
    }
  }
  if (o.autotune_max_configs < 1)
    throw usage_error(fmt::format("--autotune-max-configs {}: expected at least 1", o.autotune_max_configs));
}

}  // namespace

loop_outcome run_loop(const loop_options& o) {
  check_options(o);
  const problem_spec p = load_problem(o.problem);
  if (o.dtype && std::find(p.dtypes.begin(), p.dtypes.end(), *o.dtype) == p.dtypes.end())
    throw usage_error("--dtype " + *o.dtype + ": " + p.name + " has no such variant");
  check_proposer_spec(o.proposer);
  const fs::path cwd = fs::current_path();
  fs::path workdir =
      o.workdir.empty() ? cwd / fmt::format("kjudge-loop-{}-{}", p.name, local_stamp()) : fs::absolute(o.workdir);
  workdir = workdir.lexically_normal();
  if (fs::exists(workdir / "loop.json"))
    throw usage_error(workdir.string() + " holds a loop already; continue it with `kjudge loop --resume " +
                      workdir.string() + "`");
  std::error_code ec;
  if (fs::exists(workdir) && !fs::is_empty(workdir, ec))
    throw usage_error(workdir.string() + ": not empty; give a new or empty --workdir");
  fs::create_directories(workdir, ec);
  if (ec) throw usage_error(workdir.string() + ": cannot create: " + ec.message());
  const workdir_lock lock(workdir);

  const std::string resolved = resolve_proposer_spec(o.proposer, workdir, cwd);
  const bool autotune = resolved.rfind("autotune:", 0) == 0;
  json config{{"schema", k_config_schema},
              {"id", random_hex64()},
              {"created_at", utc_now()},
              {"kjudge_version", KJUDGE_VERSION},
              {"problem", o.problem},
              {"problem_name", p.name},
              {"problem_dir", p.dir.string()},
              {"device", o.device},
              {"dtype", o.dtype ? json(*o.dtype) : json()},
              {"proposer", o.proposer},
              {"proposer_resolved", resolved},
              {"beam", o.beam},
              // Without any limit an external proposer would run forever; autotune ends by itself.
              {"budget_iterations",
               o.budget_iterations ? json(*o.budget_iterations) : (o.hours || autotune ? json() : json(20))},
              {"hours", o.hours ? json(*o.hours) : json()},
              {"plateau", o.plateau},
              {"near_miss_margin", o.near_miss_margin},
              {"retire_after", o.retire_after},
              {"eval",
               {{"timing_budget_s", o.eval_budget_s},
                {"min_rounds", o.min_rounds},
                {"hidden", o.hidden},
                {"torch_baselines", o.torch_baselines}}},
              {"proposer_timeout_s", o.proposer_timeout_s},
              {"max_proposals", o.max_proposals},
              {"autotune_max_configs", o.autotune_max_configs},
              {"db", store_location(o.db.empty() ? default_db_path() : o.db)},
              {"cwd", cwd.string()},
              {"workdir", workdir.string()},
              {"sandbox", o.sandbox}};
  write_json_file(workdir / "loop.json", config);
  {
    journal j(workdir / "journal.jsonl");
    j.append(json{{"event", "started"}, {"config", config}, {"at", utc_now()}});
  }
  driver d(workdir, read_journal(workdir / "journal.jsonl", true), o.progress);
  return d.run();
}

loop_outcome resume_loop(const fs::path& dir, const resume_options& o) {
  const fs::path workdir = fs::absolute(dir).lexically_normal();
  if (!fs::exists(workdir / "loop.json") || !fs::exists(workdir / "journal.jsonl"))
    throw usage_error(workdir.string() + ": not a loop workdir (no loop.json and journal.jsonl)");
  if (o.budget_iterations && *o.budget_iterations < 1)
    throw usage_error(fmt::format("--budget {}: expected at least 1 iteration", *o.budget_iterations));
  if (o.hours && !(*o.hours > 0)) throw usage_error(fmt::format("--hours {}: expected a positive number", *o.hours));
  const workdir_lock lock(workdir);
  auto events = read_journal(workdir / "journal.jsonl", true);
  if (events.empty() || events.front().value("event", "") != "started")
    throw usage_error((workdir / "journal.jsonl").string() + ": does not start with a \"started\" event");
  json overrides = json::object();
  if (o.budget_iterations) overrides["budget_iterations"] = *o.budget_iterations;
  if (o.hours) overrides["hours"] = *o.hours;
  const json resumed{{"event", "resumed"}, {"overrides", overrides}, {"at", utc_now()}};
  events.push_back(resumed);
  driver d(workdir, events, o.progress);
  return d.run(resumed);
}

}  // namespace kjudge::loop
