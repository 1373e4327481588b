// The page of a `kjudge e2e` result (report/html.hpp, docs/e2e.md): the e2e section first, in the
// evaluation page's plots and tables (report/detail/html_parts.hpp), then the document's own
// evaluation (the kernel level's; the model level's with --model-only).
#include <fmt/format.h>

#include <filesystem>

#include "report/detail/html_parts.hpp"
#include "report/detail/result_fields.hpp"
#include "report/html.hpp"
#include "report/report.hpp"
#include "report/svg.hpp"

namespace kjudge {
namespace {

using namespace detail;
using rows_t = std::vector<std::vector<std::string>>;

// The e2e verdict "ok" is no evaluation status: green like a correct candidate's badge.
std::string e2e_badge(const std::string& status) {
  return status == "ok" ? std::string("<span class=\"badge ok_faster\">ok</span>") : html::verdict_badge(status);
}

std::string share_text(const json& row) {
  const json* s = json_at(row, {"share"});
  return s != nullptr && s->is_number() ? percent(s->get<double>()) : std::string("–");
}

std::string kernel_text(const json& e) {
  const json* k = json_at(e, {"kernel"});
  if (k == nullptr || !k->is_object()) return "not judged (--model-only)";
  std::string text = str_or(*k, {"verdict", "status"}, "?");
  if (const json* sp = json_at(*k, {"speedup"}); sp != nullptr && number_at(*sp, {"median"}))
    text += ", " + speedup_with_ci(*sp) + " vs " + str_or(*sp, {"baseline"}, "?");
  else
    text += ", not timed";
  return text;
}

std::string header_section(const json& r, const json& e) {
  const std::string status = str_or(e, {"verdict", "status"}, "unknown");
  std::string out = "<header>\n<h1>" +
                    xml_escape("e2e: " + str_or(e, {"target"}, "?") + " replaced in " +
                               std::filesystem::path(str_or(e, {"model"}, "?")).filename().string()) +
                    " — " + e2e_badge(status) + "</h1>\n";
  std::vector<std::pair<std::string, std::string>> f;
  f.emplace_back("model", str_or(e, {"model"}, "–"));
  f.emplace_back("target", str_or(e, {"target"}, "?") + " (" + str_or(e, {"target_kind"}, "?") + ")");
  f.emplace_back("candidate", str_or(e, {"candidate"}, "–"));
  f.emplace_back("problem",
                 str_or(e, {"problem"}, "?") + (is_true(e, "problem_inferred") ? " (inferred from the target)" : ""));
  f.emplace_back("kernel level", kernel_text(e));
  f.emplace_back("model level", str_or(e, {"model_level", "verdict", "status"}, "not judged"));
  if (const json* c = json_at(e, {"model_level", "compiled"}); c != nullptr && c->is_object())
    for (const auto& [mode, v] : c->items()) f.emplace_back("compiled " + mode, str_or(v, {"status"}, "?"));
  f.emplace_back("device", str_or(r, {"device"}, "?"));
  f.emplace_back("created", str_or(r, {"created_at"}, "–"));
  return out + html::facts(f) + "</header>\n";
}

std::string why_section(const json& r, const json& e) {
  const std::string stage = str_or(e, {"verdict", "stage"}, "?");
  std::string out = why_opening("at the " + stage + " level, ", e.contains("verdict") ? e["verdict"] : json());
  if (const json* c = json_at(e, {"model_level", "compiled"}); stage == "model" && c != nullptr && c->is_object())
    for (const auto& [mode, v] : c->items())
      if (!is_ok_status(str_or(v, {"status"}, "?")))
        out += "<p>The model compiled with torch.compile mode <code>" + xml_escape(mode) +
               "</code>, with the candidate: " + xml_escape(str_or(v, {"status"}, "?")) + ".</p>\n";
  const json* fc = json_at(e, {"verdict", "case"});
  if (fc == nullptr || !fc->is_object()) fc = first_failing_case(r);
  if (fc != nullptr && fc->is_object()) out += "<h3>Failing case</h3>\n" + html::facts(failing_case_facts(*fc));
  return out + "</section>\n";
}

std::string kernel_section(const json& e) {
  const json* k = json_at(e, {"kernel"});
  if (k == nullptr || !k->is_object()) return "";
  std::string out = "<section id=\"e2e-kernel\">\n<h2>Kernel level: " + xml_escape(str_or(e, {"problem"}, "?")) + " " +
                    html::verdict_badge(str_or(*k, {"verdict", "status"}, "?")) + "</h2>\n<p>" +
                    xml_escape(kernel_text(e)) + " (the suite problem's bench shapes, not the model's).</p>\n";
  rows_t rows;
  if (const json* pb = json_at(*k, {"per_baseline"}); pb != nullptr && pb->is_object())
    for (const auto& [name, f] : pb->items()) rows.push_back({name, f.is_object() ? speedup_with_ci(f) : "–"});
  if (!rows.empty()) out += html::table({"baseline", "kernel speedup [95% CI]"}, rows, {false, true}, {}, "e2e-kernel");
  return out + "</section>\n";
}

std::string configs_section(const json& t) {
  const auto& configs = array_at(t, {"configs"});
  if (configs.empty()) return "";
  std::string out =
      "<section id=\"e2e-configs\">\n<h2>Model configurations</h2>\n<p class=\"note\">The model's time per step "
      "(its <code>get_inputs()</code>) in each configuration: the median of per-round medians, ± half the "
      "interquartile range relative to it, and the target's share of a step (" +
      xml_escape(str_or(t, {"share", "method"}, str_or(t, {"share", "error"}, "not measured"))) +
      "). A configuration is timed in the rounds of the evaluation named; ratios across evaluations are not "
      "paired.</p>\n";
  rows_t rows;
  std::vector<std::string> cls;
  std::vector<party_samples> parties;
  for (const auto& c : configs) {
    const std::string name = str_or(c, {"config"}, "?");
    rows.push_back({name, str_or(c, {"rounds"}, "–"), seconds_text(c, "median_s"), spread_text(c).value_or("–"),
                    seconds_text(c, "q25_s"), seconds_text(c, "q75_s"),
                    number_at(c, {"n"}) ? fmt::format("{}", static_cast<long long>(*number_at(c, {"n"}))) : "–",
                    share_text(c)});
    const bool with = name.find("+candidate") != std::string::npos;
    cls.emplace_back(with ? "candidate" : "");
    parties.push_back({name, &c, with});
  }
  out += html::table({"configuration", "timed in the rounds of", "median", "±", "q25", "q75", "n", "target's share"},
                     rows, {false, false, true, true, true, true, true, true}, cls, "e2e-configs");
  return out + box_plot(json{{"id", "model step"}}, parties, "per step") + "</section>\n";
}

std::optional<std::pair<double, double>> figure_ci(const json& f) {
  return f.is_object() ? ci95(f) : std::nullopt;
}

std::string speedup_section(const json& t) {
  const auto& rows_in = array_at(t, {"rows"});
  if (rows_in.empty()) return "";
  rows_t rows;
  std::vector<forest_row> marks;
  for (const auto& row : rows_in) {
    const std::string label = str_or(row, {"config"}, "?") + " vs " + str_or(row, {"vs"}, "?");
    const json* m = json_at(row, {"measured"});
    const auto pred = number_at(row, {"predicted"});
    rows.push_back({str_or(row, {"config"}, "?"), str_or(row, {"vs"}, "?"),
                    m != nullptr && m->is_object() ? speedup_with_ci(*m) : "–",
                    pred ? format_speedup(*pred) : std::string("–")});
    if (m != nullptr && number_at(*m, {"median"})) {
      forest_row f{label, "measured", *number_at(*m, {"median"}), figure_ci(*m)};
      if (!f.ci) f.estimate = "estimate, no CI";
      marks.push_back(std::move(f));
    }
    if (pred) marks.push_back(forest_row{label, "predicted (Amdahl)", *pred, std::nullopt, false, "prediction, no CI"});
  }
  std::string out =
      "<section id=\"e2e-speedup\">\n<h2>Model-level speedup: measured and predicted</h2>\n<p class=\"note\">The "
      "model with the candidate against the model's own torch party timed in the same rounds: the median of "
      "per-round paired ratios with its 95% bootstrap CI. The prediction (a hollow point, no interval) is "
      "Amdahl's from the eager share and the kernel-level speedup, or for a compiled model (1 − s′) + s′k from the "
      "candidate op's share s′ of it (docs/e2e.md); what it leaves out (the op's call overhead, broken fusions, "
      "other shapes) is the gap to the measured figure.</p>\n";
  out += html::table({"model", "vs", "measured speedup [95% CI]", "predicted"}, rows, {false, false, true, true}, {},
                     "e2e-speedup");
  return out + (marks.empty() ? std::string() : forest_plot(marks)) + "</section>\n";
}

std::string model_cases_section(const json& e) {
  const json* m = json_at(e, {"model_level"});
  if (m == nullptr || !m->is_object()) return "";
  std::string out = "<section id=\"e2e-cases\">\n<h2>Model-level correctness: " +
                    html::verdict_badge(str_or(*m, {"verdict", "status"}, "?")) +
                    "</h2>\n<p>The model with the candidate against the model's own float64 run (" +
                    xml_escape(str_or(*m, {"problem"}, "?")) + ", " + xml_escape(str_or(*m, {"dtype"}, "?"));
  std::vector<std::string> tol;
  for (const char* k : {"rtol", "atol", "k"})
    if (auto v = number_at(*m, {"tolerance", k})) tol.push_back(fmt::format("{} {}", k, err_text(v)));
  if (!tol.empty()) out += "; " + xml_escape(fmt::format("{}", fmt::join(tol, ", ")));
  out += ").</p>\n";
  rows_t rows;
  std::vector<std::string> cls;
  for (const auto& c : array_at(*m, {"cases"})) {
    rows.push_back({str_or(c, {"id"}, "?"), str_or(c, {"kind"}, "–"), str_or(c, {"shape"}, "–"),
                    str_or(c, {"distribution"}, "–"), str_or(c, {"status"}, "–"),
                    err_text(number_at(c, {"max_abs_err"})), err_text(number_at(c, {"norm_rel_err"})),
                    number_at(c, {"n_bad"}) ? fmt::format("{}", static_cast<long long>(*number_at(c, {"n_bad"}))) : "–",
                    str_or(c, {"message"}, "")});
    cls.push_back(str_or(c, {"status"}, ""));
  }
  if (!rows.empty())
    out += html::table(
        {"case", "kind", "shape", "distribution", "status", "max abs err", "norm rel err", "bad", "message"}, rows,
        {false, false, false, false, false, true, true, true, false}, cls, "e2e-cases");
  return out + "</section>\n";
}

}  // namespace

std::string render_html_e2e(const nlohmann::json& r) {
  const json& e = r.at("e2e");
  const std::string status = str_or(e, {"verdict", "status"}, "unknown");
  std::string body = header_section(r, e);
  if (status != "ok") body += why_section(r, e);
  body += kernel_section(e);
  if (const json* t = json_at(e, {"timing"}); t != nullptr && t->is_object())
    body += configs_section(*t) + speedup_section(*t);
  else
    body +=
        "<p id=\"e2e-not-timed\">The model was not timed (<code>--no-timing</code>, or a level rejected the "
        "candidate first).</p>\n";
  body += model_cases_section(e);
  const bool kernel_doc = json_at(e, {"kernel"}) != nullptr && json_at(e, {"kernel"})->is_object();
  body += "<h2 id=\"evaluation\">The " + std::string(kernel_doc ? "kernel" : "model") +
          "-level evaluation in full</h2>\n" + evaluation_sections(r, false);
  return html::page("kjudge e2e: " + str_or(e, {"target"}, "?") + " — " + status, body);
}

}  // namespace kjudge
