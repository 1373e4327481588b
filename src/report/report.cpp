#include "report/report.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <system_error>

#include "core/error.hpp"
#include "core/json_path.hpp"
#include "core/verdict_status.hpp"
#include "report/detail/result_fields.hpp"

namespace kjudge {
namespace detail {

// ---- lenient access: every field of a result document may be null or absent ----

std::string str_or(const json& j, std::initializer_list<std::string_view> keys, std::string fallback) {
  auto s = string_at(j, keys);
  return s ? *s : std::move(fallback);
}

// [lo, hi] of a "ci95" array, if well formed.
std::optional<std::pair<double, double>> ci95(const json& j) {
  const json* ci = json_at(j, {"ci95"});
  if (ci == nullptr || !ci->is_array() || ci->size() != 2 || !(*ci)[0].is_number() || !(*ci)[1].is_number())
    return std::nullopt;
  return std::pair{(*ci)[0].get<double>(), (*ci)[1].get<double>()};
}

bool is_true(const json& j, std::string_view key) {
  const json* v = json_at(j, {key});
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

// A scalar as text for tables of free-form objects (env, symbols).
std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "–";
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

// ---- number formatting ----

// Fixed notation with `sig` significant digits; never scientific (values here span ns to hours).
std::string fixed_sig(double v, int sig) {
  if (v == 0.0) return "0";
  const int e = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  return fmt::format("{:.{}f}", v, std::max(0, sig - 1 - e));
}

// Rounds to `sig` significant digits and returns the rounded value's decimal exponent, so that
// 999.7 becomes 1000 (exponent 3) before a unit is chosen rather than printing "1000 ns".
std::pair<double, int> round_sig(double v, int sig) {
  int e = static_cast<int>(std::floor(std::log10(v)));
  const double scale = std::pow(10.0, e - (sig - 1));
  double r = std::round(v / scale) * scale;
  if (r >= std::pow(10.0, e + 1)) ++e;
  return {r, e};
}

std::string err_text(const std::optional<double>& v) {
  if (!v) return "–";
  if (*v == 0.0) return "0";
  return fmt::format("{:.3g}", *v);
}

std::string value_text(double v) {
  return fmt::format("{:.9g}", v);
}

std::string percent(double fraction) {
  if (fraction >= 0.1) return fmt::format("{:.0f}%", fraction * 100.0);
  return fmt::format("{:.1f}%", fraction * 100.0);
}

// "±1.2%": half the interquartile range relative to the median.
std::optional<std::string> spread_text(const json& s) {
  auto med = number_at(s, {"median_s"});
  auto q25 = number_at(s, {"q25_s"});
  auto q75 = number_at(s, {"q75_s"});
  if (!med || !q25 || !q75 || *med <= 0.0) return std::nullopt;
  return fmt::format("±{:.1f}%", (*q75 - *q25) / 2.0 / *med * 100.0);
}

std::string speedup_with_ci(const json& s) {
  auto med = number_at(s, {"median"});
  if (!med) return "–";
  std::string out = format_speedup(*med);
  if (auto ci = ci95(s)) out += fmt::format(" [{}, {}]", fixed_sig(ci->first), fixed_sig(ci->second));
  return out;
}

std::string index_text(const json& idx) {
  if (!idx.is_array()) return scalar_text(idx);
  std::string out = "[";
  for (std::size_t i = 0; i < idx.size(); ++i) {
    if (i > 0) out += ", ";
    out += scalar_text(idx[i]);
  }
  return out + "]";
}

std::string candidate_file_name(const json& r) {
  auto p = string_at(r, {"candidate", "path"});
  if (!p) return "–";
  auto name = std::filesystem::path(*p).filename().string();
  return name.empty() ? *p : name;
}

namespace {

// ---- text tables ----

// Terminal columns of `s`: ANSI escape sequences take none, UTF-8 continuation bytes none (the
// tables hold "±", "–", "…", all one column wide).
std::size_t display_width(std::string_view s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++w;
  }
  return w;
}

std::string truncate(std::string s, std::size_t max_width) {
  if (display_width(s) <= max_width) return s;
  std::size_t w = 0;
  std::size_t i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (w + 1 == max_width) break;
      ++w;
    }
  }
  return s.substr(0, i) + "…";
}

// Left-aligned columns separated by two spaces, header underlined; no trailing spaces.
std::string text_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size(), 0);
  auto measure = [&](const std::vector<std::string>& r) {
    for (std::size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], display_width(r[c]));
  };
  measure(header);
  for (const auto& r : rows) measure(r);
  auto line = [&](const std::vector<std::string>& r) {
    std::string out;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string& cell = c < r.size() ? r[c] : std::string();
      out += cell;
      if (c + 1 < width.size()) out += std::string(width[c] - display_width(cell) + 2, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header);
  std::vector<std::string> rule;
  rule.reserve(width.size());
  for (auto w : width) rule.emplace_back(w, '-');
  out += line(rule);
  for (const auto& r : rows) out += line(r);
  return out;
}

// ---- colour ----

constexpr std::string_view k_reset = "\x1b[0m";

std::string_view verdict_colour(std::string_view status) {
  const auto s = parse_verdict_status(status);
  if (s == verdict_status::ok_faster) return "\x1b[1;32m";      // bold green
  if (s == verdict_status::ok_not_faster) return "\x1b[1;33m";  // bold yellow: correct, no win
  return "\x1b[1;31m";                                          // bold red: rejected
}

std::string coloured_verdict(std::string_view status, bool color) {
  if (!color) return std::string(status);
  return std::string(verdict_colour(status)) + std::string(status) + std::string(k_reset);
}

// ---- markdown ----

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string md_code(const std::string& s) {
  // A span holding a backtick needs a longer fence.
  if (s.find('`') == std::string::npos) return "`" + s + "`";
  return "`` " + s + " ``";
}

std::string md_table(const std::vector<std::string>& header, const std::vector<bool>& right,
                     const std::vector<std::vector<std::string>>& rows) {
  std::string out = "|";
  for (const auto& h : header) out += " " + md_cell(h) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < header.size(); ++c) out += c < right.size() && right[c] ? "---:|" : "---|";
  out += "\n";
  for (const auto& r : rows) {
    out += "|";
    for (const auto& cell : r) out += " " + md_cell(cell) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace

// ---- shared summaries ----

namespace {

struct case_counts {
  int total = 0;
  int pass = 0;
  int fail = 0;
  int error = 0;
  int skipped = 0;
  int by_kind_public = 0;
  int by_kind_hidden = 0;
  int by_kind_bench = 0;
  int probes = 0;  // the stale-output probe's reruns
  bool probe_passed = true;
};

case_counts count_cases(const json& r) {
  case_counts n;
  // The cases run, and the case a rule rejected on where it is not among them (the judge stops
  // at the first failure and records that case in the verdict's evidence). The stale-output
  // probe reruns a case: it is counted apart, not as a case.
  std::vector<const json*> cases;
  for (const auto& c : array_at(r, {"cases"})) cases.push_back(&c);
  if (const json* ev = json_at(r, {"verdict", "evidence", "case"}); ev != nullptr && ev->is_object()) {
    bool listed = false;
    for (const json* c : cases)
      listed = listed || (str_or(*c, {"id"}, "") == str_or(*ev, {"id"}, "?") && str_or(*c, {"status"}, "") != "pass");
    if (!listed) cases.push_back(ev);
  }
  for (const json* cp : cases) {
    const json& c = *cp;
    if (str_or(c, {"kind"}, "") == "probe") {
      n.probe_passed = str_or(c, {"status"}, "") == "pass";
      ++n.probes;
      continue;
    }
    ++n.total;
    // A case from the evidence has no status of its own: it is the one that failed.
    auto st = str_or(c, {"status"}, cp == cases.back() && json_at(c, {"status"}) == nullptr ? "fail" : "");
    if (st == "pass")
      ++n.pass;
    else if (st == "fail")
      ++n.fail;
    else if (st == "error")
      ++n.error;
    else if (st == "skipped")
      ++n.skipped;
    auto kind = str_or(c, {"kind"}, "");
    if (kind == "public")
      ++n.by_kind_public;
    else if (kind == "hidden")
      ++n.by_kind_hidden;
    else if (kind == "bench")
      ++n.by_kind_bench;
  }
  return n;
}

}  // namespace

std::string cases_sentence(const json& r) {
  auto n = count_cases(r);
  if (n.total == 0) return "no cases run";
  std::string out = fmt::format("{} of {} cases pass ({} public, {} hidden, {} bench)", n.pass, n.total,
                                n.by_kind_public, n.by_kind_hidden, n.by_kind_bench);
  if (n.fail > 0) out += fmt::format(", {} fail", n.fail);
  if (n.error > 0) out += fmt::format(", {} error", n.error);
  if (n.skipped > 0) out += fmt::format(", {} skipped", n.skipped);
  if (n.probes > 0) out += n.probe_passed ? "; the stale-output probe passed" : "; the stale-output probe failed";
  return out;
}

std::optional<std::string> rechecks_sentence(const json& r) {
  auto count = number_at(r, {"timing", "rechecks", "count"});
  if (!count) return std::nullopt;
  auto failed = number_at(r, {"timing", "rechecks", "failed"}).value_or(0.0);
  return fmt::format("{} timed-call rechecks, {} failed", static_cast<long long>(*count),
                     static_cast<long long>(failed));
}

// The case that caused a rejection: the first that did not pass (fail before error: a wrong
// answer is the stronger evidence), else the case a rule attached to the verdict as evidence
// (the judge stops at the first failure, so that case may not be in `cases`).
const json* first_failing_case(const json& r) {
  const json* error_case = nullptr;
  for (const auto& c : array_at(r, {"cases"})) {
    auto st = str_or(c, {"status"}, "");
    if (st == "fail") return &c;
    if (st == "error" && error_case == nullptr) error_case = &c;
  }
  if (error_case != nullptr) return error_case;
  if (const json* c = json_at(r, {"verdict", "evidence", "case"}); c != nullptr && c->is_object()) return c;
  return nullptr;
}

// Error figures of a case, or nullopt when the case carries none (e.g. the call itself failed).
std::optional<std::string> case_errors_text(const json& c) {
  // check = "qr" (src/oracle/qr_check.hpp): per-matrix backward errors instead of elementwise ones.
  if (const json* q = json_at(c, {"qr"}); q != nullptr && q->is_object()) {
    std::string out =
        fmt::format("QR backward error ||A - QR||_F/||A||_F {}, orthogonality ||Q^T Q - I||_F {} (allowed {} each)",
                    err_text(number_at(*q, {"backward_error"})), err_text(number_at(*q, {"orthogonality_error"})),
                    err_text(number_at(*q, {"bound"})));
    if (auto bad = number_at(c, {"n_bad"}); bad && *bad > 0)
      out += fmt::format(", {} of {} matrices outside it", static_cast<long long>(*bad),
                         static_cast<long long>(number_at(*q, {"matrices"}).value_or(0)));
    if (auto unwritten = number_at(c, {"n_unwritten"}); unwritten && *unwritten > 0)
      out += fmt::format(", {} elements never written", static_cast<long long>(*unwritten));
    return out;
  }
  if (!number_at(c, {"max_abs_err"}) && !number_at(c, {"max_rel_err"}) && !number_at(c, {"norm_rel_err"}) &&
      !number_at(c, {"n_bad"}) && !number_at(c, {"n_unwritten"}))
    return std::nullopt;
  std::string out =
      fmt::format("max abs err {}, max rel err {}, norm rel err {}", err_text(number_at(c, {"max_abs_err"})),
                  err_text(number_at(c, {"max_rel_err"})), err_text(number_at(c, {"norm_rel_err"})));
  auto bad = number_at(c, {"n_bad"});
  auto unwritten = number_at(c, {"n_unwritten"});
  if (bad) out += fmt::format(", {} elements outside tolerance", static_cast<long long>(*bad));
  if (unwritten && *unwritten > 0) out += fmt::format(", {} never written", static_cast<long long>(*unwritten));
  return out;
}

std::optional<std::string> worst_text(const json& c) {
  const json* w = json_at(c, {"worst"});
  if (w == nullptr || !w->is_object()) return std::nullopt;
  if (const json* q = json_at(c, {"qr"}); q != nullptr && q->is_object()) {
    std::string out = "worst matrix";
    if (const json* idx = json_at(*w, {"index"})) out += " " + index_text(*idx);
    return out + fmt::format(": max(backward, orthogonality) error {}, allowed {}", err_text(number_at(*w, {"out"})),
                             err_text(number_at(*w, {"allowed"})));
  }
  std::string out = "worst element";
  if (const json* idx = json_at(*w, {"index"})) out += " " + index_text(*idx);
  auto o = number_at(*w, {"out"});
  auto ref = number_at(*w, {"ref"});
  out += ":";
  // Non-finite outputs (NaN, the poison pattern) are stored as null or strings.
  if (const json* ov = json_at(*w, {"out"}); ov != nullptr && !ov->is_number())
    out += " out " + scalar_text(*ov);
  else if (o)
    out += " out " + value_text(*o);
  else
    out += " out NaN";
  if (ref) out += ", ref " + value_text(*ref);
  if (auto rs = number_at(*w, {"ref_same"})) out += ", same-dtype ref " + value_text(*rs);
  if (o && ref) out += ", |out - ref| " + err_text(std::fabs(*o - *ref));
  if (auto al = number_at(*w, {"allowed"})) out += ", allowed " + err_text(*al);
  return out;
}

// The envelope at the worst element of a failing case (judge/detail/reference.cpp, envelope_evidence): the
// reference's runs there, so that a reader sees why the allowance is what it is.
std::optional<std::string> envelope_text(const json& c) {
  const json* w = json_at(c, {"worst"});
  if (w == nullptr || !w->is_object()) return std::nullopt;
  const json* e = json_at(*w, {"envelope"});
  if (e == nullptr || !e->is_object()) return std::nullopt;
  std::string out = "envelope there:";
  if (auto same = number_at(*e, {"same_run"})) out += " same-dtype run " + value_text(*same) + ";";
  if (const json* runs = json_at(*e, {"runs"}); runs != nullptr && runs->is_array() && !runs->empty()) {
    out += fmt::format(" {} {} run(s)", runs->size(), e->value("tf32", false) ? "TF32 envelope" : "envelope");
    std::string values;
    for (const auto& v : *runs)
      values += (values.empty() ? "" : ", ") + (v.is_number() ? value_text(v.get<double>()) : scalar_text(v));
    out += " " + values + ";";
  } else if (!e->value("full", false)) {
    out += " the exact run only;";
  }
  if (auto row = number_at(*e, {"row_envelope"})) out += " row envelope " + err_text(*row);
  if (auto n = number_at(*e, {"row_length"})) out += fmt::format(" over {} element(s)", static_cast<long long>(*n));
  if (e->value("kinked", false)) {
    if (auto f = number_at(*e, {"kink_floor"})) out += ", kinked (floor " + err_text(*f) + ")";
  }
  return out;
}

std::string case_label(const json& c) {
  std::string out = str_or(c, {"id"}, "?");
  if (auto s = string_at(c, {"shape"})) out += " " + *s;
  return out;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------

std::string format_seconds(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  if (seconds < 0) return "-" + format_seconds(-seconds);
  if (seconds == 0.0) return "0 ns";
  auto [r, e] = detail::round_sig(seconds, 3);
  int unit_exp = e >= 0 ? 0 : e >= -3 ? -3 : e >= -6 ? -6 : -9;
  const char* unit = unit_exp == 0 ? "s" : unit_exp == -3 ? "ms" : unit_exp == -6 ? "us" : "ns";
  const int decimals = std::max(0, 2 - (e - unit_exp));
  return fmt::format("{:.{}f} {}", r / std::pow(10.0, unit_exp), decimals, unit);
}

std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes)) return "n/a";
  if (bytes < 0) return "-" + format_bytes(-bytes);
  if (bytes < 1024.0) return fmt::format("{:.0f} B", bytes);
  static constexpr const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = bytes / 1024.0;
  std::size_t u = 0;
  // Decide on the rounded mantissa and keep it under 1000, so that 3 significant digits
  // suffice: 1023.9 KiB prints as "1.00 MiB", 1000 KiB as "0.977 MiB".
  while (u + 1 < std::size(units) && detail::round_sig(v, 3).first >= 1000.0) {
    v /= 1024.0;
    ++u;
  }
  return detail::fixed_sig(detail::round_sig(v, 3).first) + " " + units[u];
}

namespace {

std::string census_ms(const nlohmann::json& ns) {
  return ns.is_number() ? fmt::format("{:.3f} ms", ns.get<double>() / 1e6) : std::string("?");
}

// The kernels one party launched beyond the other's, each name cut for one console line
// (cuDNN's run to 200 characters of template arguments).
std::string census_names(const nlohmann::json& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + detail::truncate(n.get<std::string>(), 72);
  return out.empty() ? "nothing more" : out;
}

}  // namespace

std::vector<std::string> kernel_census_lines(const nlohmann::json& census) {
  std::vector<std::string> lines;
  if (!census.is_object() || !census.contains("same_code") || !census["same_code"].is_array()) return lines;
  for (const auto& c : census["same_code"]) {
    const std::string where =
        fmt::format("kernels, set {}, {}: ", c.value("set", 0), c.value("case", std::string("?")));
    const std::string other = c.value("baseline", std::string("baseline"));
    if (c.contains("error")) {
      lines.push_back(where + "no census (" + c["error"].get<std::string>() + ")");
      continue;
    }
    std::string line = where + "the candidate and " + other + " (the same code) launched ";
    line += c.value("same_kernels", false)
                ? std::string("the same kernels")
                : "different kernels: the candidate also " + census_names(c["only_candidate"]) + "; " + other +
                      " also " + census_names(c["only_baseline"]);
    line += "; in kernels " + census_ms(c["candidate_kernel_ns"]) + " against " + census_ms(c["baseline_kernel_ns"]) +
            ", windows " + census_ms(c["candidate_window_ns"]) + " against " + census_ms(c["baseline_window_ns"]);
    if (!c.value("complete", false)) line += " (the trace's listing was cut: partial sums)";
    lines.push_back(line);
  }
  return lines;
}

std::string process_spread_note(const nlohmann::json& r) {
  using namespace detail;
  // Whether the sets differ beyond what the rounds' noise explains (the headline's ratios).
  const auto b = number_at(r, {"timing", "process_spread", "sd_log_between_sets"});
  const auto x = number_at(r, {"timing", "process_spread", "sd_log_expected_from_rounds"});
  if (!b || !x) return "";
  return fmt::format("spread between sets {:.2f}%, rounds alone would give {:.2f}%", 100 * *b, 100 * *x);
}

std::string format_speedup(double ratio) {
  if (!std::isfinite(ratio)) return "n/a";
  if (ratio <= 0.0) return detail::fixed_sig(ratio) + "x";
  return detail::fixed_sig(detail::round_sig(ratio, 3).first) + "x";
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------

std::string render_console(const nlohmann::json& r, bool color) {
  using namespace detail;
  std::string out;
  const std::string status = str_or(r, {"verdict", "status"}, "unknown");
  std::string title = str_or(r, {"problem", "name"}, "?");
  if (auto d = string_at(r, {"problem", "dtype"})) title += " " + *d;
  title += " " + str_or(r, {"device"}, str_or(r, {"problem", "device"}, "?"));
  title += "  " + str_or(r, {"candidate", "path"}, "?");
  out += (color ? "\x1b[1m" + title + std::string(k_reset) : title) + "\n";

  out += "  verdict: " + coloured_verdict(status, color);
  if (auto rule = string_at(r, {"verdict", "rule"})) out += " (rule " + *rule + ")";
  if (const json* t = json_at(r, {"verdict", "timed"}); t != nullptr && t->is_boolean() && !t->get<bool>())
    out += " (correct; not timed)";
  out += "\n";
  if (!is_ok_status(status))
    for (const auto& reason : array_at(r, {"verdict", "reasons"})) out += "    - " + scalar_text(reason) + "\n";

  const std::string mode = str_or(r, {"timing", "mode"}, str_or(r, {"mode"}, "?"));
  if (const json* s = json_at(r, {"speedup"}); s != nullptr && number_at(*s, {"median"})) {
    out += "  speedup vs " + str_or(*s, {"baseline"}, "?") + ": " + speedup_with_ci(*s) + " (";
    if (ci95(*s))
      out += "95% CI, ";
    else
      out += "an estimate, no CI: too few rounds, ";
    out += mode;
    if (auto rounds = number_at(r, {"timing", "rounds"}))
      out += fmt::format(", {} round{}", static_cast<long long>(*rounds), *rounds == 1 ? "" : "s");
    const auto& tcases = array_at(r, {"timing", "cases"});
    if (is_true(*s, "geomean_over_cases")) out += fmt::format(", geomean of {} cases", tcases.size());
    if (auto e = number_at(r, {"timing", "worker_epochs"}); e && *e > 1) {
      // --worker-epochs: each set of workers' own figure, so that a spread between processes shows.
      std::string per;
      for (const auto& ep : array_at(r, {"timing", "epochs"}))
        if (auto m = number_at(ep, {"speedup_median"})) per += (per.empty() ? "" : ", ") + fmt::format("{:.3f}x", *m);
      out += fmt::format(", {} sets of workers: {}", static_cast<long long>(*e), per);
      if (const std::string note = process_spread_note(r); !note.empty()) out += "; " + note;
    }
    out += ")\n";
  }

  std::string correctness = "  correctness: " + cases_sentence(r);
  if (auto rc = rechecks_sentence(r)) correctness += "; " + *rc;
  out += correctness + "\n";

  if (const json* c = first_failing_case(r)) {
    std::string line = "  failing case " + case_label(*c);
    if (auto d = string_at(*c, {"distribution"})) line += " " + *d;
    if (auto seed = string_at(*c, {"seed"})) line += " seed " + *seed;
    out += line + "\n";
    if (auto msg = string_at(*c, {"message"})) out += "    " + *msg + "\n";
    if (auto e = case_errors_text(*c)) out += "    " + *e + "\n";
    if (auto w = worst_text(*c)) out += "    " + *w + "\n";
    if (auto e = envelope_text(*c)) out += "    " + *e + "\n";
  }

  // The mode heads the per-case figures: a time means nothing without it (DESIGN.md §4).
  if (const auto& tcases = array_at(r, {"timing", "cases"}); !tcases.empty())
    out += "  timing per case, " + mode + " (candidate median vs the case's strongest baseline; speedup" +
           (json_at(r, {"speedup"}) == nullptr || ci95(*json_at(r, {"speedup"})) ? " with 95% CI"
                                                                                 : ", an estimate without a CI") +
           "):\n";
  for (const auto& t : array_at(r, {"timing", "cases"})) {
    std::string line = "    " + case_label(t) + ":";
    const json* cand = json_at(t, {"candidate"});
    if (cand != nullptr && number_at(*cand, {"median_s"})) {
      line += " " + format_seconds(*number_at(*cand, {"median_s"}));
      std::vector<std::string> details;
      if (auto sp = spread_text(*cand)) details.push_back("IQR " + *sp);
      if (auto n = number_at(*cand, {"n"})) details.push_back(fmt::format("n={}", static_cast<long long>(*n)));
      if (!details.empty()) line += fmt::format(" ({})", fmt::join(details, ", "));
    }
    auto strongest = string_at(t, {"strongest"});
    for (const auto& b : array_at(t, {"baselines"})) {
      if (strongest && str_or(b, {"name"}, "") != *strongest) continue;
      if (auto med = number_at(b, {"median_s"})) line += " vs " + str_or(b, {"name"}, "?") + " " + format_seconds(*med);
      break;
    }
    if (const json* s = json_at(t, {"speedup"})) line += ": " + speedup_with_ci(*s);
    if (auto g = number_at(t, {"achieved", "gbps"})) {
      line += "; " + fixed_sig(*g) + " GB/s";
      if (auto f = number_at(t, {"achieved", "fraction_of_ceiling"})) line += " (" + percent(*f) + " of ceiling)";
    }
    out += line + "\n";
  }

  auto cand_mem = number_at(r, {"memory", "candidate_peak_bytes"});
  auto base_mem = number_at(r, {"memory", "baseline_peak_bytes"});
  if (cand_mem) {
    out += "  memory: peak " + format_bytes(*cand_mem);
    if (base_mem) out += " vs " + format_bytes(*base_mem) + " baseline";
    out += "\n";
  }
  if (const json* census = json_at(r, {"timing", "kernel_census"}))
    for (const auto& l : kernel_census_lines(*census)) out += "  " + l + "\n";
  if (auto t = number_at(r, {"time_to_verdict_s"})) out += "  time to verdict: " + format_seconds(*t) + "\n";
  return out;
}

// ---------------------------------------------------------------------------------------------

namespace detail {
namespace {

// Markdown section renderers: each returns its section's text, or "" when the result has nothing
// for it.

std::string md_speedup_summary(const json& s) {
  std::string sp = "**" + speedup_with_ci(s) + "** vs " + str_or(s, {"baseline"}, "?");
  std::vector<std::string> notes;
  if (ci95(s))
    notes.emplace_back("95% CI");
  else if (auto why = string_at(s, {"estimate_only"}))
    notes.push_back("an estimate, no CI: " + *why);
  if (is_true(s, "geomean_over_cases")) notes.emplace_back("geometric mean over cases");
  if (!notes.empty()) sp += " (" + fmt::format("{}", fmt::join(notes, ", ")) + ")";
  return sp;
}

std::string md_header(const json& r, const std::string& status, const std::string& mode) {
  const std::string problem = str_or(r, {"problem", "name"}, "?");
  const std::string device = str_or(r, {"device"}, str_or(r, {"problem", "device"}, "?"));
  std::string out =
      fmt::format("# kjudge: {} ({}, {}) — {}\n\n", problem, str_or(r, {"problem", "dtype"}, "?"), device, status);

  std::vector<std::vector<std::string>> summary;
  std::string cand = string_at(r, {"candidate", "path"}) ? md_code(*string_at(r, {"candidate", "path"})) : "–";
  summary.push_back({"candidate", cand});
  if (auto sha = string_at(r, {"candidate", "sha256"})) summary.push_back({"sha256", md_code(*sha)});
  if (auto info = string_at(r, {"candidate", "info"}); info && !info->empty()) summary.push_back({"info", *info});
  std::string verdict = "**" + status + "**";
  if (auto rule = string_at(r, {"verdict", "rule"})) verdict += " (rule " + md_code(*rule) + ")";
  summary.push_back({"verdict", verdict});
  if (const json* s = json_at(r, {"speedup"}); s != nullptr && number_at(*s, {"median"}))
    summary.push_back({"speedup", md_speedup_summary(*s)});
  summary.push_back({"timing mode", mode});
  std::string created = str_or(r, {"created_at"}, "–");
  if (auto v = string_at(r, {"kjudge_version"})) created += ", kjudge " + *v;
  summary.push_back({"created", created});
  if (auto t = number_at(r, {"time_to_verdict_s"})) summary.push_back({"time to verdict", format_seconds(*t)});
  return out + md_table({"", ""}, {}, summary) + "\n";
}

std::string md_verdict(const json& r, const std::string& status) {
  std::string out = "## Verdict\n\n**" + status + "**";
  if (auto rule = string_at(r, {"verdict", "rule"})) out += ", rule " + md_code(*rule);
  out += "\n\n";
  for (const auto& reason : array_at(r, {"verdict", "reasons"})) out += "- " + scalar_text(reason) + "\n";
  if (!array_at(r, {"verdict", "reasons"}).empty()) out += "\n";
  // Rule evidence other than the failing case (shown under Correctness) goes out verbatim: it is
  // free-form per rule, and a reader checking a rejection wants all of it.
  if (const json* ev = json_at(r, {"verdict", "evidence"}); ev != nullptr) {
    json rest = *ev;
    if (rest.is_object()) rest.erase("case");
    if (!(rest.is_object() && rest.empty()))
      out += "Evidence:\n\n```json\n" + rest.dump(2, ' ', false, json::error_handler_t::replace) + "\n```\n\n";
  }
  return out;
}

std::string md_tolerance(const json& r) {
  const json* tol = json_at(r, {"tolerance"});
  if (tol == nullptr) return "";
  std::vector<std::string> parts;
  for (const char* k : {"rtol", "atol", "k"})
    if (auto v = number_at(*tol, {k})) parts.push_back(fmt::format("{} {}", k, err_text(v)));
  if (const json* tf = json_at(*tol, {"tf32"}); tf != nullptr && tf->is_boolean())
    parts.emplace_back(tf->get<bool>() ? "TF32 permitted" : "TF32 not permitted");
  if (parts.empty()) return "";
  return "Tolerance: " + fmt::format("{}", fmt::join(parts, ", ")) +
         "; element bound max(atol + rtol·|ref|, k·|ref_same − ref|), ref in float64.\n\n";
}

std::string md_case_table(const json& cases) {
  if (cases.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : cases) {
    auto count = [&](std::string_view k) {
      auto v = number_at(c, {k});
      return v ? fmt::format("{}", static_cast<long long>(*v)) : std::string("–");
    };
    rows.push_back({str_or(c, {"id"}, "?"), str_or(c, {"kind"}, "–"), str_or(c, {"shape"}, "–"),
                    str_or(c, {"distribution"}, "–"), string_at(c, {"seed"}) ? md_code(*string_at(c, {"seed"})) : "–",
                    str_or(c, {"status"}, "–"), err_text(number_at(c, {"max_abs_err"})),
                    err_text(number_at(c, {"max_rel_err"})), err_text(number_at(c, {"norm_rel_err"})), count("n_bad"),
                    count("n_unwritten")});
  }
  return md_table({"case", "kind", "shape", "distribution", "seed", "status", "max abs err", "max rel err",
                   "norm rel err", "bad", "unwritten"},
                  {false, false, false, false, false, false, true, true, true, true, true}, rows) +
         "\n";
}

std::string md_failing_case(const json& c) {
  std::string out = "### Failing case " + md_code(str_or(c, {"id"}, "?")) + "\n\n";
  std::string shape = str_or(c, {"shape"}, "–");
  out += "- shape: " + shape + "\n";
  out += "- distribution: " + str_or(c, {"distribution"}, "–");
  if (auto seed = string_at(c, {"seed"})) out += ", seed " + md_code(*seed);
  out += "\n";
  if (auto st = string_at(c, {"status"})) out += "- status: " + *st + "\n";
  if (auto o = string_at(c, {"output"})) out += "- output: " + md_code(*o) + "\n";
  if (auto msg = string_at(c, {"message"})) out += "- message: " + *msg + "\n";
  if (auto e = case_errors_text(c)) out += "- errors: " + *e + "\n";
  if (auto w = worst_text(c)) out += "- " + *w + "\n";
  if (auto e = envelope_text(c)) out += "- " + *e + "\n";
  return out + "\n";
}

std::string md_correctness(const json& r) {
  std::string out = "## Correctness\n\n" + cases_sentence(r);
  if (auto rc = rechecks_sentence(r)) out += "; " + *rc;
  out += ".\n\n";
  out += md_tolerance(r);
  out += md_case_table(array_at(r, {"cases"}));
  if (const json* c = first_failing_case(r)) out += md_failing_case(*c);
  return out;
}

// One row of a timing case's table; the ratio column is the candidate's speedup over `s`.
std::vector<std::string> md_timing_row(std::string name, const json& s, std::optional<double> cand_med) {
  auto med = number_at(s, {"median_s"});
  auto n = number_at(s, {"n"});
  std::string ratio = "–";
  if (const json* sp = json_at(s, {"speedup"}); sp != nullptr && number_at(*sp, {"median"}))
    ratio = speedup_with_ci(*sp);
  else if (med && cand_med && *cand_med > 0)
    ratio = format_speedup(*med / *cand_med);
  return std::vector<std::string>{std::move(name),
                                  med ? format_seconds(*med) : "–",
                                  spread_text(s).value_or("–"),
                                  number_at(s, {"min_s"}) ? format_seconds(*number_at(s, {"min_s"})) : "–",
                                  number_at(s, {"max_s"}) ? format_seconds(*number_at(s, {"max_s"})) : "–",
                                  n ? fmt::format("{}", static_cast<long long>(*n)) : "–",
                                  ratio};
}

std::string md_timing_case(const json& t) {
  std::string out = "### " + case_label(t) + "\n\n";
  const auto cand_med = number_at(t, {"candidate", "median_s"});
  std::vector<std::vector<std::string>> rows;
  if (const json* c = json_at(t, {"candidate"})) {
    auto rr = md_timing_row("candidate", *c, cand_med);
    rr.back() = "–";
    rows.push_back(std::move(rr));
  }
  auto strongest = string_at(t, {"strongest"});
  for (const auto& b : array_at(t, {"baselines"})) {
    std::string name = str_or(b, {"name"}, "?");
    if (strongest && name == *strongest) name += " (strongest)";
    rows.push_back(md_timing_row(std::move(name), b, cand_med));
  }
  out += md_table({"implementation", "median", "±", "min", "max", "n", "vs candidate"},
                  {false, true, true, true, true, true, true}, rows);
  std::vector<std::string> lines;
  if (const json* s = json_at(t, {"speedup"}))
    lines.push_back("speedup vs " + str_or(t, {"strongest"}, "strongest baseline") + ": **" + speedup_with_ci(*s) +
                    "**");
  if (const json* a = json_at(t, {"achieved"})) {
    std::vector<std::string> parts;
    if (auto g = number_at(*a, {"gbps"})) parts.push_back(fixed_sig(*g) + " GB/s");
    if (auto g = number_at(*a, {"gflops"})) parts.push_back(fixed_sig(*g) + " GFLOP/s");
    if (auto f = number_at(*a, {"fraction_of_ceiling"})) parts.push_back(percent(*f) + " of the device ceiling");
    if (!parts.empty()) lines.push_back("achieved " + fmt::format("{}", fmt::join(parts, ", ")));
  }
  if (!lines.empty()) out += "\n" + fmt::format("{}", fmt::join(lines, "; ")) + ".\n";
  return out + "\n";
}

std::string md_timing(const json& r, const std::string& mode) {
  const json* timing = json_at(r, {"timing"});
  if (timing == nullptr) return "";
  std::string out = "## Timing\n\n";
  std::vector<std::string> facts;
  facts.push_back("Mode: " + mode);
  if (auto clock = string_at(*timing, {"clock"})) facts.push_back("clock: " + *clock);
  if (auto rounds = number_at(*timing, {"rounds"}))
    facts.push_back(fmt::format("{} rounds", static_cast<long long>(*rounds)));
  out += fmt::format("{}", fmt::join(facts, ", ")) +
         ". Median per implementation; ± is half the interquartile range relative to the "
         "median; n is the number of samples. \"vs candidate\" is the candidate's speedup over that "
         "baseline: the median of per-round paired ratios with its 95% bootstrap CI where recorded, "
         "else the ratio of medians.\n\n";
  for (const auto& t : array_at(*timing, {"cases"})) out += md_timing_case(t);
  if (const json* pb = json_at(r, {"speedup", "per_baseline"}); pb != nullptr && pb->is_object() && !pb->empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& [name, sp] : pb->items()) rows.push_back({name, speedup_with_ci(sp)});
    out += "Geometric mean over cases of the candidate's speedup against each baseline:\n\n" +
           md_table({"baseline", "speedup [95% CI]"}, {false, true}, rows) + "\n";
  }
  return out;
}

std::string md_memory(const json& r) {
  const json* m = json_at(r, {"memory"});
  if (m == nullptr) return "";
  auto c = number_at(*m, {"candidate_peak_bytes"});
  auto b = number_at(*m, {"baseline_peak_bytes"});
  if (!c && !b) return "";
  std::string out = "## Memory\n\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"candidate", c ? format_bytes(*c) : "–", c ? fmt::format("{}", static_cast<long long>(*c)) : "–"});
  rows.push_back(
      {"strongest baseline", b ? format_bytes(*b) : "–", b ? fmt::format("{}", static_cast<long long>(*b)) : "–"});
  out += md_table({"peak memory of one call", "size", "bytes"}, {false, true, true}, rows);
  if (c && b && *b > 0) out += "\nCandidate / baseline: " + format_speedup(*c / *b) + ".\n";
  return out + "\n";
}

std::string md_baselines(const json& r) {
  const auto& bs = array_at(r, {"baselines"});
  if (bs.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  for (const auto& b : bs) {
    auto sha = string_at(b, {"sha256"});
    rows.push_back({str_or(b, {"name"}, "?"), string_at(b, {"source"}) ? md_code(*string_at(b, {"source"})) : "–",
                    sha ? md_code(sha->substr(0, 12)) : "–"});
  }
  return "## Baselines\n\n" + md_table({"name", "source", "sha256"}, {}, rows) + "\n";
}

// cuda: ptxas resource usage per kernel; spills and register pressure explain many timings.
std::string md_kernel_resources(const json& b) {
  const json* res = json_at(b, {"resources"});
  if (res == nullptr || !res->is_array() || res->empty()) return "";
  std::vector<std::vector<std::string>> krows;
  for (const auto& k : *res) {
    auto count = [&](std::string_view key) {
      auto v = number_at(k, {key});
      return v ? fmt::format("{}", static_cast<long long>(*v)) : std::string("–");
    };
    krows.push_back({string_at(k, {"kernel"}) ? md_code(*string_at(k, {"kernel"})) : "?", count("registers"),
                     count("spill_stores"), count("spill_loads"), count("shared_bytes"), count("stack_bytes")});
  }
  return md_table({"kernel", "registers", "spill stores", "spill loads", "shared bytes", "stack bytes"},
                  {false, true, true, true, true, true}, krows) +
         "\n";
}

std::string md_build(const json& r) {
  const json* b = json_at(r, {"build"});
  if (b == nullptr) return "";
  std::vector<std::vector<std::string>> rows;
  if (auto c = string_at(*b, {"compiler"})) rows.push_back({"compiler", *c});
  if (auto f = string_at(*b, {"flags"})) rows.push_back({"flags", md_code(*f)});
  if (const json* cmd = json_at(*b, {"command"})) {
    // The builder records the command as an argv array.
    std::string text;
    if (cmd->is_array()) {
      for (const auto& a : *cmd) text += (text.empty() ? "" : " ") + scalar_text(a);
    } else {
      text = scalar_text(*cmd);
    }
    rows.push_back({"command", md_code(text)});
  }
  if (auto s = number_at(*b, {"seconds"})) rows.push_back({"time", format_seconds(*s)});
  if (const json* cached = json_at(*b, {"cached"}); cached != nullptr && cached->is_boolean())
    rows.push_back({"cached", cached->get<bool>() ? "yes" : "no"});
  return "## Build\n\n" + md_table({"", ""}, {}, rows) + "\n" + md_kernel_resources(*b);
}

// Every key, as recorded.
std::string md_environment(const json& r) {
  const json* env = json_at(r, {"env"});
  if (env == nullptr || !env->is_object()) return "";
  std::vector<std::vector<std::string>> rows;
  for (const auto& [k, v] : env->items()) rows.push_back({k, scalar_text(v)});
  return "## Environment\n\n" + md_table({"", ""}, {}, rows);
}

}  // namespace
}  // namespace detail

std::string render_markdown(const nlohmann::json& r) {
  using namespace detail;
  const std::string status = str_or(r, {"verdict", "status"}, "unknown");
  const std::string mode = str_or(r, {"timing", "mode"}, str_or(r, {"mode"}, "–"));
  std::string out = md_header(r, status, mode);
  out += md_verdict(r, status);
  out += md_correctness(r);
  out += md_timing(r, mode);
  out += md_memory(r);
  out += md_baselines(r);
  out += md_build(r);
  out += md_environment(r);
  // Exactly one trailing newline.
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

// ---------------------------------------------------------------------------------------------

std::string render_verdict_table(const std::vector<nlohmann::json>& results, bool color) {
  using namespace detail;
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : results) {
    const std::string status = str_or(r, {"verdict", "status"}, "unknown");
    std::string speed = "–";
    if (const json* s = json_at(r, {"speedup"})) speed = speedup_with_ci(*s);
    // Evidence: the failing case for a rejection found by the oracle, else the first reason.
    std::string evidence;
    if (const json* c = first_failing_case(r)) {
      evidence = case_label(*c);
      if (auto d = string_at(*c, {"distribution"})) evidence += " " + *d;
      if (auto msg = string_at(*c, {"message"}))
        evidence += ": " + *msg;
      else if (auto bad = number_at(*c, {"n_bad"}))
        evidence += fmt::format(": {} bad, max rel err {}", static_cast<long long>(*bad),
                                err_text(number_at(*c, {"max_rel_err"})));
    } else if (const auto& reasons = array_at(r, {"verdict", "reasons"}); !reasons.empty()) {
      evidence = scalar_text(reasons[0]);
    }
    rows.push_back({str_or(r, {"problem", "name"}, "?"), str_or(r, {"problem", "dtype"}, "–"), candidate_file_name(r),
                    coloured_verdict(status, color), str_or(r, {"verdict", "rule"}, "–"), speed,
                    truncate(evidence, 72)});
  }
  return text_table({"problem", "dtype", "candidate", "verdict", "rule", "speedup [95% CI]", "evidence"}, rows);
}

std::string render_history(const std::vector<history_row>& rows, const std::string& current_spec_sha256) {
  using namespace detail;
  if (rows.empty()) return "no evaluations stored\n";
  std::vector<std::vector<std::string>> table;
  bool other_spec = false;
  for (const auto& h : rows) {
    std::string speed = "–";
    if (h.speedup_median) {
      speed = format_speedup(*h.speedup_median);
      if (h.speedup_lo && h.speedup_hi)
        speed += fmt::format(" [{}, {}]", fixed_sig(*h.speedup_lo), fixed_sig(*h.speedup_hi));
    } else if (is_ok_status(h.status)) {
      speed = "not timed";
    }
    // Results judged against another problem.toml under the same name (a re-import, an edited
    // or copied problem directory) are marked: their figures are not comparable.
    std::string spec = h.spec_sha256_prefix.empty() ? "–" : h.spec_sha256_prefix;
    if (!current_spec_sha256.empty() && !h.spec_sha256_prefix.empty() &&
        current_spec_sha256.rfind(h.spec_sha256_prefix, 0) != 0) {
      spec += " *";
      other_spec = true;
    }
    table.push_back({std::to_string(h.id), h.created_at, h.dtype.empty() ? "–" : h.dtype,
                     h.device.empty() ? "–" : h.device, h.status, h.rule.empty() ? "–" : h.rule, speed,
                     h.sha256_prefix.empty() ? "–" : h.sha256_prefix, spec, h.candidate_path});
  }
  std::string out = text_table(
      {"id", "created_at", "dtype", "device", "verdict", "rule", "speedup [95% CI]", "sha256", "spec", "candidate"},
      table);
  if (other_spec) out += "* judged against another problem.toml than the current one (a re-import or an edit)\n";
  return out;
}

}  // namespace kjudge
