#include "judge/result.hpp"

#include <cmath>
#include <limits>
#include <set>
#include <string_view>

namespace kjudge {

namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw result_format_error("result document: " + path + ": " + what);
}

std::string type_of(const json& v) {
  return v.is_number() ? "number" : std::string(v.type_name());
}

// A value read from the document: one per type the sections hold.
template <class T>
struct value_of;

template <>
struct value_of<std::string> {
  static std::string read(const json& v, const std::string& path) {
    if (!v.is_string()) fail(path, "expected a string, got " + type_of(v));
    return v.get<std::string>();
  }
};

template <>
struct value_of<double> {
  static double read(const json& v, const std::string& path) {
    if (!v.is_number()) fail(path, "expected a number, got " + type_of(v));
    return v.get<double>();
  }
};

template <>
struct value_of<std::int64_t> {
  // An integral float (4.0) is an integer, as JSON Schema counts them.
  static std::int64_t read(const json& v, const std::string& path) {
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>())
      return static_cast<std::int64_t>(v.get<double>());
    fail(path, "expected an integer, got " + type_of(v));
  }
};

template <>
struct value_of<bool> {
  static bool read(const json& v, const std::string& path) {
    if (!v.is_boolean()) fail(path, "expected a boolean, got " + type_of(v));
    return v.get<bool>();
  }
};

template <class T>
struct value_of<std::vector<T>> {
  static std::vector<T> read(const json& v, const std::string& path) {
    if (!v.is_array()) fail(path, "expected an array, got " + type_of(v));
    std::vector<T> out;
    for (std::size_t i = 0; i < v.size(); ++i)
      out.push_back(value_of<T>::read(v[i], path + "[" + std::to_string(i) + "]"));
    return out;
  }
};

template <>
struct value_of<result_ci95> {
  // A bound written as null (not finite when computed) reads as NaN and is written as null again.
  static result_ci95 read(const json& v, const std::string& path) {
    if (!v.is_array() || v.size() != 2) fail(path, "expected [lo, hi], got " + v.dump());
    const auto bound = [&](std::size_t i) {
      return v[i].is_null() ? std::numeric_limits<double>::quiet_NaN()
                            : value_of<double>::read(v[i], path + "[" + std::to_string(i) + "]");
    };
    return {bound(0), bound(1)};
  }
};

template <class T>
struct value_of<std::map<std::string, T>> {
  static std::map<std::string, T> read(const json& v, const std::string& path) {
    if (!v.is_object()) fail(path, "expected an object, got " + type_of(v));
    std::map<std::string, T> out;
    for (const auto& [k, e] : v.items()) out.emplace(k, value_of<T>::read(e, path + "." + k));
    return out;
  }
};

json value_json(const std::string& v) {
  return v;
}
json value_json(double v) {
  return v;
}
json value_json(std::int64_t v) {
  return v;
}
json value_json(bool v) {
  return v;
}
json value_json(const result_ci95& v) {
  return json{v.first, v.second};
}
template <class T>
json value_json(const std::vector<T>& v) {
  json a = json::array();
  for (const auto& e : v) a.push_back(value_json(e));
  return a;
}
template <class T>
json value_json(const std::map<std::string, T>& v) {
  json o = json::object();
  for (const auto& [k, e] : v) o[k] = value_json(e);
  return o;
}

// Reads one object of the document. Keys it is not asked for, and asked-for keys that hold null,
// end up in rest(): a section's extra.
class object_reader {
 public:
  object_reader(const json& j, std::string path) : m_j(j), m_path(std::move(path)) {
    if (!j.is_object()) fail(m_path.empty() ? "the document" : m_path, "expected an object, got " + type_of(j));
  }

  [[nodiscard]] std::string path_of(std::string_view key) const {
    return m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
  }

  // The value at key; nullopt when it is absent or null.
  template <class T>
  std::optional<T> get(std::string_view key) {
    const json* v = find(key);
    if (v == nullptr) return std::nullopt;
    return value_of<T>::read(*v, path_of(key));
  }

  // The value at key, which must be there and not null.
  template <class T>
  T need(std::string_view key) {
    auto v = get<T>(key);
    if (!v) fail(path_of(key), "missing");
    return std::move(*v);
  }

  // Open-ended JSON at key: null when absent or null.
  json raw(std::string_view key) {
    const json* v = find(key);
    return v != nullptr ? *v : json();
  }

  // An array of sections, each read by read(element, path).
  template <class F>
  auto sections(std::string_view key, F read) -> std::vector<decltype(read(json(), std::string()))> {
    std::vector<decltype(read(json(), std::string()))> out;
    const json* v = find(key);
    if (v == nullptr) return out;
    if (!v->is_array()) fail(path_of(key), "expected an array, got " + type_of(*v));
    for (std::size_t i = 0; i < v->size(); ++i)
      out.push_back(read((*v)[i], path_of(key) + "[" + std::to_string(i) + "]"));
    return out;
  }

  // One section, or nullopt when absent or null.
  template <class F>
  auto section(std::string_view key, F read) -> std::optional<decltype(read(json(), std::string()))> {
    const json* v = find(key);
    if (v == nullptr) return std::nullopt;
    return read(*v, path_of(key));
  }

  [[nodiscard]] json rest() const {
    json out = json::object();
    for (const auto& [k, v] : m_j.items())
      if (!m_seen.count(k) || v.is_null()) out[k] = v;
    return out;
  }

 private:
  const json* find(std::string_view key) {
    m_seen.insert(std::string(key));
    const auto it = m_j.find(key);
    return it == m_j.end() || it->is_null() ? nullptr : &*it;
  }

  const json& m_j;
  std::string m_path;
  std::set<std::string, std::less<>> m_seen;
};

// Writes one object: the typed fields that hold a value, then the section's extra keys that no
// typed field wrote.
class object_writer {
 public:
  template <class T>
  void put(const char* key, const std::optional<T>& v) {
    if (v) m_j[key] = value_json(*v);
  }
  void put(const char* key, const std::string& v) { m_j[key] = v; }
  void put_raw(const char* key, const json& v) {
    if (!v.is_null()) m_j[key] = v;
  }
  // A section written always: null when it does not apply.
  void put_section(const char* key, json v) { m_j[key] = std::move(v); }

  json done(const json& extra) {
    if (extra.is_object())
      for (const auto& [k, v] : extra.items())
        if (!m_j.contains(k)) m_j[k] = v;
    return std::move(m_j);
  }

 private:
  json m_j = json::object();
};

template <class T, class F>
json optional_section(const std::optional<T>& s, F write) {
  return s ? write(*s) : json();
}

template <class T, class F>
json section_array(const std::vector<T>& v, F write) {
  json a = json::array();
  for (const auto& e : v) a.push_back(write(e));
  return a;
}

}  // namespace

namespace detail {
namespace {

result_problem read_problem(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_problem p;
  p.name = r.need<std::string>("name");
  p.dtype = r.get<std::string>("dtype");
  p.device = r.get<std::string>("device");
  p.spec = r.get<std::string>("spec");
  p.spec_sha256 = r.get<std::string>("spec_sha256");
  p.content_sha256 = r.get<std::string>("content_sha256");
  p.extra = r.rest();
  return p;
}

json write_problem(const result_problem& p) {
  object_writer w;
  w.put("name", p.name);
  w.put("dtype", p.dtype);
  w.put("device", p.device);
  w.put("spec", p.spec);
  w.put("spec_sha256", p.spec_sha256);
  w.put("content_sha256", p.content_sha256);
  return w.done(p.extra);
}

result_candidate read_candidate(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_candidate c;
  c.path = r.get<std::string>("path");
  c.sha256 = r.get<std::string>("sha256");
  c.info = r.get<std::string>("info");
  c.load = r.raw("load");
  c.extra = r.rest();
  return c;
}

json write_candidate(const result_candidate& c) {
  object_writer w;
  w.put("path", c.path);
  w.put("sha256", c.sha256);
  w.put("info", c.info);
  w.put_raw("load", c.load);
  return w.done(c.extra);
}

result_tolerance read_tolerance(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_tolerance t;
  t.rtol = r.get<double>("rtol");
  t.atol = r.get<double>("atol");
  t.k = r.get<double>("k");
  t.tf32 = r.get<bool>("tf32");
  t.qr = r.raw("qr");
  t.extra = r.rest();
  return t;
}

json write_tolerance(const result_tolerance& t) {
  object_writer w;
  w.put("rtol", t.rtol);
  w.put("atol", t.atol);
  w.put("k", t.k);
  w.put("tf32", t.tf32);
  w.put_raw("qr", t.qr);
  return w.done(t.extra);
}

result_verdict read_verdict(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_verdict v;
  const auto name = r.need<std::string>("status");
  const auto status = parse_verdict_status(name);
  if (!status) fail(r.path_of("status"), "unknown status \"" + name + "\"");
  v.status = *status;
  v.rule = r.get<std::string>("rule");
  v.reasons = r.get<std::vector<std::string>>("reasons").value_or(std::vector<std::string>{});
  v.timed = r.get<bool>("timed");
  v.evidence = r.raw("evidence");
  v.extra = r.rest();
  return v;
}

json write_verdict(const result_verdict& v) {
  object_writer w;
  w.put("status", std::string(verdict_status_name(v.status)));
  w.put_section("rule", v.rule ? json(*v.rule) : json());
  w.put_section("reasons", value_json(v.reasons));
  w.put("timed", v.timed);
  w.put_raw("evidence", v.evidence);
  return w.done(v.extra);
}

result_case read_case(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_case c;
  c.id = r.get<std::string>("id");
  c.kind = r.get<std::string>("kind");
  c.shape = r.get<std::string>("shape");
  c.symbols = r.raw("symbols");
  c.distribution = r.get<std::string>("distribution");
  c.seed = r.get<std::string>("seed");
  c.status = r.get<std::string>("status");
  c.max_abs_err = r.get<double>("max_abs_err");
  c.max_rel_err = r.get<double>("max_rel_err");
  c.norm_rel_err = r.get<double>("norm_rel_err");
  c.n_bad = r.get<std::int64_t>("n_bad");
  c.n_unwritten = r.get<std::int64_t>("n_unwritten");
  c.worst = r.raw("worst");
  c.message = r.get<std::string>("message");
  c.output = r.get<std::string>("output");
  c.deterministic = r.get<std::string>("deterministic");
  c.extra = r.rest();
  return c;
}

json write_case(const result_case& c) {
  object_writer w;
  w.put("id", c.id);
  w.put("kind", c.kind);
  w.put("shape", c.shape);
  w.put_raw("symbols", c.symbols);
  w.put("distribution", c.distribution);
  w.put("seed", c.seed);
  w.put("status", c.status);
  w.put("max_abs_err", c.max_abs_err);
  w.put("max_rel_err", c.max_rel_err);
  w.put("norm_rel_err", c.norm_rel_err);
  w.put("n_bad", c.n_bad);
  w.put("n_unwritten", c.n_unwritten);
  w.put_raw("worst", c.worst);
  w.put("message", c.message);
  w.put("output", c.output);
  w.put("deterministic", c.deterministic);
  return w.done(c.extra);
}

result_speedup_figure read_figure(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_speedup_figure f;
  f.median = r.get<double>("median");
  f.ci95 = r.get<result_ci95>("ci95");
  f.epoch_medians = r.get<std::vector<double>>("epoch_medians");
  f.extra = r.rest();
  return f;
}

json write_figure(const result_speedup_figure& f) {
  object_writer w;
  w.put("median", f.median);
  w.put("ci95", f.ci95);
  w.put("epoch_medians", f.epoch_medians);
  return w.done(f.extra);
}

result_samples read_samples(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_samples s;
  s.name = r.get<std::string>("name");
  s.median_s = r.get<double>("median_s");
  s.q25_s = r.get<double>("q25_s");
  s.q75_s = r.get<double>("q75_s");
  s.min_s = r.get<double>("min_s");
  s.max_s = r.get<double>("max_s");
  s.n = r.get<std::int64_t>("n");
  s.rounds = r.get<std::int64_t>("rounds");
  s.round_medians_s = r.get<std::vector<double>>("round_medians_s");
  s.sm_mhz = r.raw("sm_mhz");
  s.speedup = r.raw("speedup");
  s.extra = r.rest();
  return s;
}

json write_samples(const result_samples& s) {
  object_writer w;
  w.put("name", s.name);
  w.put("median_s", s.median_s);
  w.put("q25_s", s.q25_s);
  w.put("q75_s", s.q75_s);
  w.put("min_s", s.min_s);
  w.put("max_s", s.max_s);
  w.put("n", s.n);
  w.put("rounds", s.rounds);
  w.put("round_medians_s", s.round_medians_s);
  w.put_raw("sm_mhz", s.sm_mhz);
  w.put_raw("speedup", s.speedup);
  return w.done(s.extra);
}

result_timing_case read_timing_case(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_timing_case c;
  c.id = r.get<std::string>("id");
  c.shape = r.get<std::string>("shape");
  c.symbols = r.raw("symbols");
  c.candidate = r.section("candidate", read_samples);
  c.baselines = r.sections("baselines", read_samples);
  c.strongest = r.get<std::string>("strongest");
  c.speedup = r.section("speedup", read_figure);
  c.achieved = r.raw("achieved");
  c.extra = r.rest();
  return c;
}

json write_timing_case(const result_timing_case& c) {
  object_writer w;
  w.put("id", c.id);
  w.put("shape", c.shape);
  w.put_raw("symbols", c.symbols);
  w.put_raw("candidate", optional_section(c.candidate, write_samples));
  w.put_section("baselines", section_array(c.baselines, write_samples));
  w.put("strongest", c.strongest);
  w.put_raw("speedup", optional_section(c.speedup, write_figure));
  w.put_raw("achieved", c.achieved);
  return w.done(c.extra);
}

result_timing read_timing(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_timing t;
  t.mode = r.get<std::string>("mode");
  t.clock = r.get<std::string>("clock");
  t.rounds = r.get<std::int64_t>("rounds");
  t.cases = r.sections("cases", read_timing_case);
  t.cache_flush_bytes = r.get<std::int64_t>("cache_flush_bytes");
  t.controller_overhead_median_s = r.get<double>("controller_overhead_median_s");
  t.seconds = r.get<double>("seconds");
  t.rechecks = r.raw("rechecks");
  t.extra = r.rest();
  return t;
}

json write_timing(const result_timing& t) {
  object_writer w;
  w.put("mode", t.mode);
  w.put("clock", t.clock);
  w.put("rounds", t.rounds);
  w.put_section("cases", section_array(t.cases, write_timing_case));
  w.put("cache_flush_bytes", t.cache_flush_bytes);
  w.put("controller_overhead_median_s", t.controller_overhead_median_s);
  w.put("seconds", t.seconds);
  w.put_raw("rechecks", t.rechecks);
  return w.done(t.extra);
}

result_speedup read_speedup(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_speedup s;
  s.baseline = r.get<std::string>("baseline");
  s.median = r.get<double>("median");
  s.ci95 = r.get<result_ci95>("ci95");
  s.rounds = r.get<std::int64_t>("rounds");
  s.estimate_only = r.get<std::string>("estimate_only");
  s.geomean_over_cases = r.get<bool>("geomean_over_cases");
  if (const json per = r.raw("per_baseline"); !per.is_null()) {
    const std::string at = r.path_of("per_baseline");
    if (!per.is_object()) fail(at, "expected an object, got " + type_of(per));
    s.per_baseline.emplace();
    for (const auto& [name, f] : per.items()) s.per_baseline->emplace(name, read_figure(f, at + "." + name));
  }
  s.extra = r.rest();
  return s;
}

json write_speedup(const result_speedup& s) {
  object_writer w;
  w.put("baseline", s.baseline);
  w.put("median", s.median);
  w.put("ci95", s.ci95);
  w.put("rounds", s.rounds);
  w.put("estimate_only", s.estimate_only);
  w.put("geomean_over_cases", s.geomean_over_cases);
  if (s.per_baseline) {
    json per = json::object();
    for (const auto& [name, f] : *s.per_baseline) per[name] = write_figure(f);
    w.put_section("per_baseline", std::move(per));
  }
  return w.done(s.extra);
}

result_baseline read_baseline(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_baseline b;
  b.name = r.get<std::string>("name");
  b.source = r.get<std::string>("source");
  b.sha256 = r.get<std::string>("sha256");
  b.extra = r.rest();
  return b;
}

json write_baseline(const result_baseline& b) {
  object_writer w;
  w.put("name", b.name);
  w.put("source", b.source);
  w.put("sha256", b.sha256);
  return w.done(b.extra);
}

result_memory read_memory(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_memory m;
  m.candidate_peak_bytes = r.get<std::int64_t>("candidate_peak_bytes");
  m.baseline_peak_bytes = r.raw("baseline_peak_bytes");
  m.extra = r.rest();
  return m;
}

json write_memory(const result_memory& m) {
  object_writer w;
  w.put("candidate_peak_bytes", m.candidate_peak_bytes);
  w.put_raw("baseline_peak_bytes", m.baseline_peak_bytes);
  return w.done(m.extra);
}

result_build read_build(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_build b;
  b.compiler = r.get<std::string>("compiler");
  b.flags = r.get<std::string>("flags");
  b.command = r.get<std::vector<std::string>>("command");
  b.seconds = r.get<double>("seconds");
  b.cached = r.get<bool>("cached");
  b.resources = r.raw("resources");
  b.cache_notes = r.get<std::vector<std::string>>("cache_notes");
  b.extra = r.rest();
  return b;
}

json write_build(const result_build& b) {
  object_writer w;
  w.put("compiler", b.compiler);
  w.put("flags", b.flags);
  w.put("command", b.command);
  w.put("seconds", b.seconds);
  w.put("cached", b.cached);
  w.put_raw("resources", b.resources);
  w.put("cache_notes", b.cache_notes);
  return w.done(b.extra);
}

result_environment read_environment(const json& j, const std::string& path) {
  object_reader r(j, path);
  result_environment e;
  e.host = r.get<std::string>("host");
  e.cpu = r.get<std::string>("cpu");
  e.cores = r.get<std::int64_t>("cores");
  e.os = r.get<std::string>("os");
  e.compiler = r.get<std::string>("compiler");
  e.kjudge_version = r.get<std::string>("kjudge_version");
  e.extra = r.rest();
  return e;
}

json write_environment(const result_environment& e) {
  object_writer w;
  w.put("host", e.host);
  w.put("cpu", e.cpu);
  w.put("cores", e.cores);
  w.put("os", e.os);
  w.put("compiler", e.compiler);
  w.put("kjudge_version", e.kjudge_version);
  return w.done(e.extra);
}

}  // namespace
}  // namespace detail

result_document result_document::from_json(const json& j) {
  using namespace detail;
  object_reader r(j, "");
  result_document d;
  d.schema = r.need<std::string>("schema");
  if (d.schema != result_schema_id)
    fail("schema", "\"" + d.schema + "\", expected \"" + std::string(result_schema_id) + "\"");
  d.kjudge_version = r.get<std::string>("kjudge_version");
  d.created_at = r.get<std::string>("created_at");
  const auto problem = r.section("problem", read_problem);
  if (!problem) fail("problem", "missing");
  d.problem = *problem;
  d.candidate = r.section("candidate", read_candidate);
  d.device = r.get<std::string>("device");
  d.mode = r.get<std::string>("mode");
  d.tolerance = r.section("tolerance", read_tolerance);
  const auto verdict = r.section("verdict", read_verdict);
  if (!verdict) fail("verdict", "missing");
  d.verdict = *verdict;
  d.cases = r.sections("cases", read_case);
  d.timing = r.section("timing", read_timing);
  d.speedup = r.section("speedup", read_speedup);
  d.baselines = r.sections("baselines", read_baseline);
  d.memory = r.section("memory", read_memory);
  d.build = r.section("build", read_build);
  d.env = r.section("env", read_environment);
  d.time_to_verdict_s = r.get<double>("time_to_verdict_s");
  d.phases_s = r.get<std::map<std::string, double>>("phases_s");
  d.reference_device = r.get<std::string>("reference_device");
  d.sanitizer = r.raw("sanitizer");
  d.processes_left_behind = r.raw("processes_left_behind");
  d.sandbox_denied = r.raw("sandbox_denied");
  d.extra = r.rest();
  return d;
}

json result_document::to_json() const {
  using namespace detail;
  object_writer w;
  w.put("schema", schema);
  w.put("kjudge_version", kjudge_version);
  w.put("created_at", created_at);
  w.put_section("problem", write_problem(problem));
  w.put_raw("candidate", optional_section(candidate, write_candidate));
  w.put("device", device);
  w.put("mode", mode);
  w.put_raw("tolerance", optional_section(tolerance, write_tolerance));
  w.put_section("verdict", write_verdict(verdict));
  w.put_section("cases", section_array(cases, write_case));
  w.put_section("timing", optional_section(timing, write_timing));
  w.put_section("speedup", optional_section(speedup, write_speedup));
  w.put_section("baselines", section_array(baselines, write_baseline));
  w.put_section("memory", optional_section(memory, write_memory));
  w.put_section("build", optional_section(build, write_build));
  w.put_section("env", optional_section(env, write_environment));
  w.put("time_to_verdict_s", time_to_verdict_s);
  w.put("phases_s", phases_s);
  w.put("reference_device", reference_device);
  w.put_raw("sanitizer", sanitizer);
  w.put_raw("processes_left_behind", processes_left_behind);
  w.put_raw("sandbox_denied", sandbox_denied);
  return w.done(extra);
}

}  // namespace kjudge
