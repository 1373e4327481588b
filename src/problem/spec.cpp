#include "problem/spec.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <string_view>

#include "core/error.hpp"
#include "inputs/distributions.hpp"
#include "problem/expr.hpp"

namespace kjudge {

tolerance default_tolerance(std::string_view dtype_or_tf32) {
  if (dtype_or_tf32 == "tf32") return {5e-3, 1e-4};
  if (dtype_or_tf32 == "bf16" || dtype_or_tf32 == "f16") return {1e-2, 1e-3};
  if (dtype_or_tf32 == "f64") return {1e-10, 1e-12};
  if (dtype_or_tf32 == "f32") return {1e-5, 1e-6};
  return {0.0, 0.0};  // integer and boolean outputs compare exactly
}

namespace detail {
namespace {

namespace fs = std::filesystem;

// Devices a problem may declare bench/hidden cases for (DESIGN.md §1 backends).
constexpr std::string_view k_devices[] = {"cpu", "cuda"};
constexpr std::string_view k_checks[] = {"elementwise", "qr"};
// Names an expression gives a meaning of its own: a symbol may not shadow them.
constexpr std::string_view k_reserved[] = {"elem", "min", "max", "ceil_div", "T"};
// Hidden distributions used when a [hidden.<device>] table does not list its own.
const std::vector<std::string> k_default_hidden_distributions = {"uniform", "normal", "negative",
                                                                 "wide",    "offset", "heavy"};
// Largest dimension accepted anywhere: products of a few of them must stay exact in double.
constexpr std::int64_t k_max_dim = std::int64_t{1} << 40;
constexpr std::uint64_t k_max_bytes = std::uint64_t{1} << 46;  // one tensor, 64 TiB

bool contains(const auto& range, std::string_view v) {
  return std::find(std::begin(range), std::end(range), v) != std::end(range);
}

std::string join(const auto& range, std::string_view sep = ", ") {
  std::string out;
  for (const auto& v : range) {
    if (!out.empty()) out += sep;
    out += std::string(v);
  }
  return out;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Levenshtein distance for "did you mean" hints on misspelt keys.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string suggestion(std::string_view found, const auto& allowed) {
  std::string best;
  std::size_t best_d = 3;  // more than two edits away is no longer a typo
  for (const auto& a : allowed) {
    const std::size_t d = edit_distance(found, a);
    if (d < best_d) {
      best_d = d;
      best = std::string(a);
    }
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

std::string describe(const toml::node& n) {
  std::ostringstream os;
  switch (n.type()) {
    case toml::node_type::string:
      os << "a string (\"" << n.as_string()->get() << "\")";
      break;
    case toml::node_type::integer:
      os << "an integer (" << n.as_integer()->get() << ")";
      break;
    case toml::node_type::floating_point:
      os << "a floating-point number (" << n.as_floating_point()->get() << ")";
      break;
    case toml::node_type::boolean:
      os << "a boolean (" << (n.as_boolean()->get() ? "true" : "false") << ")";
      break;
    case toml::node_type::array:
      os << "an array";
      break;
    case toml::node_type::table:
      os << "a table";
      break;
    default:
      os << "a date/time";
      break;
  }
  return os.str();
}

long line_of(const toml::node& n) {
  return static_cast<long>(n.source().begin.line);
}

std::vector<tensor_desc> resolve_tensors(const problem_spec& p, const std::vector<tensor_spec>& specs,
                                         const symbol_values& s, dtype variant, const char* role, bool located_errors);

// Element count of the largest input or output (errors unlocated, see resolve_tensors).
std::int64_t largest_tensor(const problem_spec& p, const symbol_values& s) {
  std::int64_t largest = 0;
  for (const auto& d : resolve_tensors(p, p.inputs, s, dtype::f32, "input", false))
    largest = std::max<std::int64_t>(largest, static_cast<std::int64_t>(d.numel()));
  for (const auto& d : resolve_tensors(p, p.outputs, s, dtype::f32, "output", false))
    largest = std::max<std::int64_t>(largest, static_cast<std::int64_t>(d.numel()));
  return largest;
}

class spec_reader {
 public:
  explicit spec_reader(fs::path file) : m_file(std::move(file)), m_path(m_file.string()) {}

  problem_spec read() {
    std::error_code ec;
    if (!fs::is_regular_file(m_file, ec)) {
      throw usage_error(
          located(m_path, 0,
                  "expected a problem file (problem.toml), found " +
                      std::string(fs::exists(m_file, ec) ? "a directory or special file" : "nothing at this path")));
    }
    toml::table root;
    try {
      root = toml::parse_file(m_path);
    } catch (const toml::parse_error& e) {
      const auto& b = e.source().begin;
      throw usage_error(m_path + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                        ": TOML syntax error: " + std::string(e.description()));
    }
    problem_spec p;
    p.file = fs::absolute(m_file).lexically_normal();
    p.dir = p.file.parent_path();
    read_root(root, p);
    return p;
  }

 private:
  [[noreturn]] void fail(long line, const std::string& message) const {
    throw usage_error(located(m_path, line, message));
  }

  void check_keys(const toml::table& t, std::initializer_list<std::string_view> allowed,
                  const std::string& where) const {
    for (auto&& [k, v] : t) {
      if (!contains(allowed, k.str())) {
        fail(static_cast<long>(k.source().begin.line), "unknown key '" + std::string(k.str()) + "' in " + where +
                                                           ": expected one of " + join(allowed) +
                                                           suggestion(k.str(), allowed));
      }
    }
  }

  // The node of `key` in `t`, or a "missing key" error located at the table.
  const toml::node& require(const toml::table& t, std::string_view key, const std::string& where,
                            const std::string& what) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      fail(line_of(t), "expected key '" + std::string(key) + "' (" + what + ") in " + where + ", found none");
    }
    return *n;
  }

  std::string as_string(const toml::node& n, const std::string& what) const {
    if (!n.is_string()) fail(line_of(n), "expected " + what + " to be a string, found " + describe(n));
    return n.as_string()->get();
  }

  std::int64_t as_integer(const toml::node& n, const std::string& what) const {
    if (!n.is_integer()) fail(line_of(n), "expected " + what + " to be an integer, found " + describe(n));
    return n.as_integer()->get();
  }

  double as_number(const toml::node& n, const std::string& what) const {
    if (n.is_integer()) return static_cast<double>(n.as_integer()->get());
    if (n.is_floating_point()) return n.as_floating_point()->get();
    fail(line_of(n), "expected " + what + " to be a number, found " + describe(n));
  }

  bool as_bool(const toml::node& n, const std::string& what) const {
    if (!n.is_boolean())
      fail(line_of(n), "expected " + what + " to be a boolean (true or false), found " + describe(n));
    return n.as_boolean()->get();
  }

  const toml::table& as_table(const toml::node& n, const std::string& what) const {
    if (!n.is_table()) fail(line_of(n), "expected " + what + " to be a table, found " + describe(n));
    return *n.as_table();
  }

  const toml::array& as_array(const toml::node& n, const std::string& what) const {
    if (!n.is_array()) fail(line_of(n), "expected " + what + " to be an array, found " + describe(n));
    return *n.as_array();
  }

  std::vector<std::string> as_string_array(const toml::node& n, const std::string& what) const {
    std::vector<std::string> out;
    for (const toml::node& e : as_array(n, what)) out.push_back(as_string(e, "each entry of " + what));
    return out;
  }

  fs::path existing_file(const problem_spec& p, const toml::node& n, const std::string& what) const {
    const std::string rel = as_string(n, what);
    fs::path abs = (p.dir / rel).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(abs, ec)) {
      fail(line_of(n), "expected " + what + " to name an existing file (relative to " + p.dir.string() +
                           "), found no file at " + abs.string());
    }
    return abs;
  }

  void read_root(const toml::table& root, problem_spec& p) {
    check_keys(
        root,
        {"name", "description", "dtypes", "check", "tf32_allowed", "library_kernels", "conditioning_k",
         "nonfinite_outputs", "signature", "tolerance", "cost", "references", "baselines", "public", "bench", "hidden"},
        "the top-level table");
    const std::string top = "the top-level table";
    const toml::node& name = require(root, "name", top, "the problem's name, a string");
    p.name = as_string(name, "'name'");
    if (p.name.empty() || !std::all_of(p.name.begin(), p.name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
        })) {
      fail(line_of(name), "expected 'name' to be made of letters, digits, '_', '-' and '.', found \"" + p.name + "\"");
    }
    if (const auto* n = root.get("description")) p.description = as_string(*n, "'description'");
    read_dtypes(root, p);
    if (const auto* n = root.get("check")) {
      p.check = as_string(*n, "'check'");
      if (!contains(k_checks, p.check)) {
        fail(line_of(*n), "expected 'check' to be one of " + join(k_checks) + ", found \"" + p.check + "\"");
      }
    }
    if (const auto* n = root.get("tf32_allowed")) p.tf32_allowed = as_bool(*n, "'tf32_allowed'");
    if (const auto* n = root.get("library_kernels")) p.library_kernels = as_bool(*n, "'library_kernels'");
    if (const auto* n = root.get("nonfinite_outputs")) p.nonfinite_outputs = as_bool(*n, "'nonfinite_outputs'");
    if (const auto* n = root.get("conditioning_k")) {
      p.conditioning_k = as_number(*n, "'conditioning_k'");
      if (!(p.conditioning_k >= 0.0) || !std::isfinite(p.conditioning_k)) {
        fail(line_of(*n), "expected 'conditioning_k' to be a finite number >= 0, found " + describe(*n));
      }
    }

    read_signature(
        as_table(require(root, "signature", top, "the [signature] table with symbols, inputs, outputs, scalars"),
                 "'signature'"),
        p);
    // check = "qr" (src/oracle/qr_check.hpp) judges one input A[B,n,n] and the outputs H (A's
    // shape) and tau[B,n], in that order.
    if (p.check == "qr") {
      const auto shape_of = [](const tensor_spec& t) {
        std::string s;
        for (const auto& d : t.shape) s += (s.empty() ? "" : ",") + d;
        return t.name + "[" + s + "]";
      };
      std::string found;
      for (const auto& t : p.inputs) found += (found.empty() ? "inputs " : ", ") + shape_of(t);
      found += ";";
      for (std::size_t i = 0; i < p.outputs.size(); ++i) found += (i ? ", " : " outputs ") + shape_of(p.outputs[i]);
      const bool fits = p.inputs.size() == 1 && p.outputs.size() == 2 && p.inputs[0].shape.size() == 3 &&
                        p.inputs[0].shape[1] == p.inputs[0].shape[2] && p.outputs[0].shape == p.inputs[0].shape &&
                        p.outputs[1].shape == std::vector<std::string>{p.inputs[0].shape[0], p.inputs[0].shape[1]};
      if (!fits)
        fail(line_of(*root.get("check")),
             "expected check = \"qr\" to come with one input A[B,n,n] and the outputs H[B,n,n], tau[B,n], found " +
                 found);
    }
    read_tolerances(root.get("tolerance"), p);
    if (const auto* n = root.get("cost")) read_cost(as_table(*n, "'cost'"), p);
    read_references(root, p);
    if (const auto* n = root.get("baselines")) read_baselines(*n, p);

    if (const auto* n = root.get("public")) {
      const auto& arr = as_array(*n, "'public' (an array of [[public]] cases)");
      for (const toml::node& e : arr) p.public_cases.push_back(read_case(e, p, "[[public]]"));
    }
    std::set<std::string> bench_devices;
    std::set<std::string> hidden_devices;
    if (const auto* n = root.get("bench")) {
      for (auto&& [k, v] : as_table(*n, "'bench' (tables [[bench.<device>]])")) {
        const std::string dev(k.str());
        check_device(dev, static_cast<long>(k.source().begin.line), "bench");
        const std::string where = "[[bench." + dev + "]]";
        auto& list = p.bench_cases[dev];
        for (const toml::node& e : as_array(v, "'bench." + dev + "' (an array of " + where + " cases)")) {
          list.push_back(read_case(e, p, where));
        }
        if (list.empty()) fail(line_of(v), "expected at least one " + where + " case, found none");
        bench_devices.insert(dev);
      }
    }
    if (const auto* n = root.get("hidden")) {
      for (auto&& [k, v] : as_table(*n, "'hidden' (tables [hidden.<device>])")) {
        const std::string dev(k.str());
        check_device(dev, static_cast<long>(k.source().begin.line), "hidden");
        p.hidden[dev] = read_hidden(as_table(v, "'hidden." + dev + "'"), p, dev);
        hidden_devices.insert(dev);
      }
    }
    // A device with timed cases but no hidden cases would be judged on inputs the author has
    // seen; a device with hidden cases but nothing to time cannot produce a speedup.
    for (const auto& d : bench_devices) {
      if (!hidden_devices.count(d)) {
        fail(line_of(*root.get("bench")),
             "expected a [hidden." + d + "] generator for the device of [[bench." + d + "]], found none");
      }
    }
    for (const auto& d : hidden_devices) {
      if (!bench_devices.count(d)) {
        fail(p.hidden[d].line, "expected [[bench." + d + "]] cases for the device of [hidden." + d + "], found none");
      }
    }
  }

  void check_device(const std::string& dev, long line, const std::string& table) const {
    if (!contains(k_devices, dev)) {
      fail(line, "unknown device '" + dev + "' in [" + table + "]: expected one of " + join(k_devices) +
                     suggestion(dev, k_devices));
    }
  }

  void read_dtypes(const toml::table& root, problem_spec& p) const {
    const toml::node* n = root.get("dtypes");
    if (n == nullptr) {
      p.dtypes = {"f32"};
      return;
    }
    const auto& arr = as_array(*n, "'dtypes'");
    if (arr.empty()) fail(line_of(*n), "expected 'dtypes' to list at least one dtype, found an empty array");
    for (const toml::node& e : arr) {
      const std::string s = as_string(e, "each entry of 'dtypes'");
      const auto t = parse_dtype(s);
      if (!t)
        fail(line_of(e),
             "unknown dtype \"" + s + "\" in 'dtypes': expected one of f32, f64, f16, bf16, i32, i64, u8, bool");
      const std::string canon(dtype_name(*t));
      if (contains(p.dtypes, canon)) fail(line_of(e), "dtype \"" + s + "\" appears twice in 'dtypes'");
      p.dtypes.push_back(canon);
    }
  }

  void read_signature(const toml::table& sig, problem_spec& p) {
    check_keys(sig, {"symbols", "inputs", "outputs", "scalars"}, "[signature]");
    if (const auto* n = sig.get("symbols")) {
      for (const toml::node& e : as_array(*n, "'signature.symbols'")) {
        const std::string s = as_string(e, "each entry of 'signature.symbols'");
        if (!is_identifier(s)) fail(line_of(e), "expected a symbol name (letters, digits, '_'), found \"" + s + "\"");
        if (contains(k_reserved, s))
          fail(line_of(e), "symbol name \"" + s + "\" is reserved (" + join(k_reserved) + ")");
        if (contains(p.symbols, s)) fail(line_of(e), "symbol \"" + s + "\" is declared twice");
        p.symbols.push_back(s);
        m_symbols.insert(s);
      }
    }
    std::set<std::string> names;
    const auto unique_name = [&](const std::string& name, long line) {
      if (!names.insert(name).second) fail(line, "name \"" + name + "\" is used twice in [signature]");
    };
    p.inputs = read_tensors(require(sig, "inputs", "[signature]", "an array of input tensors"), "input", true);
    p.outputs = read_tensors(require(sig, "outputs", "[signature]", "an array of output tensors"), "output", false);
    if (p.inputs.empty())
      fail(line_of(*sig.get("inputs")), "expected at least one input in 'signature.inputs', found none");
    if (p.outputs.empty())
      fail(line_of(*sig.get("outputs")), "expected at least one output in 'signature.outputs', found none");
    for (const auto& t : p.inputs) unique_name(t.name, t.line);
    for (const auto& t : p.outputs) unique_name(t.name, t.line);
    if (const auto* n = sig.get("scalars")) {
      for (const toml::node& e : as_array(*n, "'signature.scalars'")) {
        const auto& t = as_table(e, "each entry of 'signature.scalars'");
        check_keys(t, {"name", "value"}, "a scalar of [signature]");
        scalar_spec s;
        s.name = as_string(require(t, "name", "a scalar of [signature]", "a string"), "a scalar's 'name'");
        s.value = as_number(require(t, "value", "scalar '" + s.name + "'", "a number"),
                            "the value of scalar '" + s.name + "'");
        unique_name(s.name, line_of(e));
        p.scalars.push_back(s);
      }
    }
  }

  std::vector<tensor_spec> read_tensors(const toml::node& n, const std::string& role, bool input) const {
    std::vector<tensor_spec> out;
    const std::string plural = "'signature." + role + "s'";
    for (const toml::node& e : as_array(n, plural)) {
      const auto& t = as_table(e, "each entry of " + plural);
      const std::string where = "an " + role + " of [signature]";
      if (input)
        check_keys(t, {"name", "shape", "dtype", "distribution", "range", "structure", "values"}, where);
      else
        check_keys(t, {"name", "shape", "dtype", "error_group"}, where);
      tensor_spec ts;
      ts.line = line_of(e);
      ts.name = as_string(require(t, "name", where, "a string"), "an " + role + "'s 'name'");
      if (!is_identifier(ts.name))
        fail(ts.line, "expected " + role + " name to be an identifier, found \"" + ts.name + "\"");
      const std::string label = role + " '" + ts.name + "'";
      const toml::node& shape = require(t, "shape", label, "an array of dimensions");
      for (const toml::node& d : as_array(shape, "the shape of " + label)) {
        if (d.is_integer()) {
          const std::int64_t v = d.as_integer()->get();
          if (v < 1)
            fail(line_of(d), "expected a positive dimension in the shape of " + label + ", found " + describe(d));
          ts.shape.push_back(std::to_string(v));
        } else if (d.is_string()) {
          const std::string text = d.as_string()->get();
          try {
            check_expression(text, m_symbols);
          } catch (const usage_error& err) {
            fail(line_of(d), "in the shape of " + label + ": " + err.what() +
                                 (m_symbols.empty() ? " (no symbols are declared in signature.symbols)"
                                                    : " (declared symbols: " + join(m_symbols) + ")"));
          }
          ts.shape.push_back(text);
        } else {
          fail(line_of(d), "expected each dimension of " + label + " to be an integer or an expression string, found " +
                               describe(d));
        }
      }
      if (ts.shape.size() > KJ_MAX_DIMS)
        fail(line_of(shape), "expected at most " + std::to_string(KJ_MAX_DIMS) + " dimensions for " + label);
      if (const auto* dt = t.get("dtype")) {
        ts.dtype = as_string(*dt, "the dtype of " + label);
        if (ts.dtype != "T") {
          const auto parsed = parse_dtype(ts.dtype);
          if (!parsed)
            fail(line_of(*dt), "unknown dtype \"" + ts.dtype + "\" for " + label +
                                   ": expected \"T\" (the variant) or one of f32, f64, f16, bf16, i32, i64, u8, bool");
          ts.dtype = std::string(dtype_name(*parsed));
        }
      }
      if (const auto* dist = t.get("distribution")) {
        const std::string d = as_string(*dist, "the distribution of " + label);
        check_distribution(d, line_of(*dist), label);
        ts.distribution = d;
      }
      if (const auto* g = t.get("error_group")) {
        const std::string group = as_string(*g, "the error_group of " + label);
        if (group == "element")
          ts.envelope_group = error_group::element_wise;
        else if (group == "row")
          ts.envelope_group = error_group::rows;
        else
          fail(line_of(*g), "unknown error_group \"" + group + "\" for " + label + ": expected \"element\" or \"row\"");
      }
      if (const auto* r = t.get("range")) ts.range = read_range(*r, ts, label);
      if (const auto* v = t.get("values")) ts.values = read_values(*v, ts, label);
      if (const auto* st = t.get("structure")) {
        const std::string name = as_string(*st, "the structure of " + label);
        const auto parsed = parse_structure(name);
        if (!parsed)
          fail(line_of(*st),
               "unknown structure \"" + name + "\" for " + label + ": expected upper, lower or symmetric");
        const std::size_t k = ts.shape.size();
        if (k < 2 || ts.shape[k - 1] != ts.shape[k - 2])
          fail(line_of(*st), "a structure needs square matrices: the last two dimensions of " + label +
                                 " must be the same (found [" + join(ts.shape) + "])");
        ts.structure = *parsed;
        // A triangular structure zeroes a triangle: 0 must be one of the values then.
        if (!ts.values.empty() && ts.structure != matrix_structure::symmetric &&
            std::find(ts.values.begin(), ts.values.end(), 0.0) == ts.values.end())
          fail(line_of(*st),
               "structure \"" + name + "\" zeroes a triangle of " + label + ", but 0 is not among its values");
      }
      out.push_back(std::move(ts));
    }
    return out;
  }

  // range = [lo, hi]: integers, inclusive, for an input of a concrete integer or bool dtype.
  int_range read_range(const toml::node& n, const tensor_spec& ts, const std::string& label) const {
    const long line = line_of(n);
    const auto* arr = n.as_array();
    if (arr == nullptr || arr->size() != 2 || !(*arr)[0].is_integer() || !(*arr)[1].is_integer())
      fail(line, "expected the range of " + label + " to be [low, high], two integers, found " + describe(n));
    const auto t = parse_dtype(ts.dtype);
    if (!t || is_float(*t))
      fail(line, "a range is only for integer and bool inputs: " + label + " has dtype \"" + ts.dtype + "\"" +
                     (ts.dtype == "T" ? " (the variant under evaluation; give a concrete dtype such as \"i64\")" : ""));
    const int_range r{(*arr)[0].as_integer()->get(), (*arr)[1].as_integer()->get()};
    if (const std::string err = int_range_error(r, *t); !err.empty())
      fail(line, "in the range of " + label + ": " + err);
    return r;
  }

  // values = [a, b, ...]: the only values of a floating input (numbers; the dtype may be the
  // variant "T", every variant being a float type there).
  std::vector<double> read_values(const toml::node& n, const tensor_spec& ts, const std::string& label) const {
    const long line = line_of(n);
    const auto* arr = n.as_array();
    if (arr == nullptr)
      fail(line, "expected the values of " + label + " to be an array of numbers, found " + describe(n));
    std::vector<double> values;
    for (const toml::node& e : *arr) {
      if (e.is_integer())
        values.push_back(static_cast<double>(e.as_integer()->get()));
      else if (e.is_floating_point())
        values.push_back(e.as_floating_point()->get());
      else
        fail(line_of(e), "expected each value of " + label + " to be a number, found " + describe(e));
    }
    const auto t = ts.dtype == "T" ? std::optional<dtype>(dtype::f32) : parse_dtype(ts.dtype);
    if (t)
      if (const std::string err = float_values_error(values, *t); !err.empty())
        fail(line, "in the values of " + label + ": " + err);
    return values;
  }

  void check_distribution(const std::string& d, long line, const std::string& where) const {
    if (!is_known_distribution(d)) {
      fail(line, "unknown distribution \"" + d + "\" for " + where + ": expected one of " +
                     join(all_distribution_names()) + suggestion(d, all_distribution_names()));
    }
  }

  void read_tolerances(const toml::node* n, problem_spec& p) const {
    if (n != nullptr) {
      for (auto&& [k, v] : as_table(*n, "'tolerance'")) {
        const std::string key(k.str());
        const long line = static_cast<long>(k.source().begin.line);
        std::string canon = key;
        if (key == "tf32") {
          if (!p.tf32_allowed)
            fail(line, "[tolerance.tf32] needs tf32_allowed = true at the top level, found tf32 not allowed");
        } else {
          const auto t = parse_dtype(key);
          if (!t)
            fail(line, "unknown dtype '" + key + "' in [tolerance]: expected a dtype name (f32, bf16, ...) or tf32");
          canon = std::string(dtype_name(*t));
        }
        const std::string where = "[tolerance." + key + "]";
        const auto& t = as_table(v, "'tolerance." + key + "'");
        check_keys(t, {"rtol", "atol"}, where);
        tolerance tol = default_tolerance(canon);
        if (const auto* r = t.get("rtol")) tol.rtol = non_negative(*r, "rtol in " + where);
        if (const auto* a = t.get("atol")) tol.atol = non_negative(*a, "atol in " + where);
        p.tolerances[canon] = tol;
      }
    }
    // Effective tolerances are stored for every variant so `kjudge show` prints what applies.
    for (const auto& d : p.dtypes) {
      if (!p.tolerances.count(d)) p.tolerances[d] = default_tolerance(d);
    }
    if (p.tf32_allowed && !p.tolerances.count("tf32")) p.tolerances["tf32"] = default_tolerance("tf32");
  }

  double non_negative(const toml::node& n, const std::string& what) const {
    const double v = as_number(n, what);
    if (!(v >= 0.0) || !std::isfinite(v))
      fail(line_of(n), "expected " + what + " to be a finite number >= 0, found " + describe(n));
    return v;
  }

  void read_cost(const toml::table& t, problem_spec& p) const {
    check_keys(t, {"bytes", "flops"}, "[cost]");
    std::set<std::string> with_elem = m_symbols;
    with_elem.insert("elem");
    const auto formula = [&](const char* key, const std::set<std::string>& known) -> std::string {
      const toml::node* n = t.get(key);
      if (n == nullptr) return {};
      std::string text = as_string(*n, std::string("'cost.") + key + "'");
      try {
        check_expression(text, known);
      } catch (const usage_error& err) {
        fail(line_of(*n), std::string("in cost.") + key + ": " + err.what() + " (known: " + join(known) + ")");
      }
      return text;
    };
    p.cost_bytes = formula("bytes", with_elem);
    p.cost_flops = formula("flops", m_symbols);
  }

  void read_references(const toml::table& root, problem_spec& p) const {
    const toml::node& n =
        require(root, "references", "the top-level table", "a [references] table naming at least one of cpp, cu, py");
    const auto& t = as_table(n, "'references'");
    check_keys(t, {"cpp", "cu", "py"}, "[references]");
    if (const auto* c = t.get("cpp")) p.reference_cpp = existing_file(p, *c, "references.cpp");
    if (const auto* c = t.get("cu")) p.reference_cu = existing_file(p, *c, "references.cu");
    if (const auto* c = t.get("py")) p.reference_py = existing_file(p, *c, "references.py");
    if (!p.reference_cpp && !p.reference_cu && !p.reference_py) {
      fail(line_of(n), "expected [references] to name at least one of cpp, cu, py, found none");
    }
  }

  void read_baselines(const toml::node& n, problem_spec& p) const {
    std::set<std::string> seen;
    for (const toml::node& e : as_array(n, "'baselines' (an array of [[baselines]])")) {
      const auto& t = as_table(e, "each entry of 'baselines'");
      check_keys(t, {"name", "source", "device"}, "[[baselines]]");
      baseline_spec b;
      b.name = as_string(require(t, "name", "[[baselines]]", "a string"), "a baseline's 'name'");
      b.source = existing_file(
          p, require(t, "source", "baseline '" + b.name + "'", "a file relative to the problem directory"),
          "the source of baseline '" + b.name + "'");
      if (const auto* d = t.get("device")) {
        b.device = as_string(*d, "the device of baseline '" + b.name + "'");
        check_device(b.device, line_of(*d), "[baselines]");
      }
      if (!seen.insert(b.name + "/" + b.device).second)
        fail(line_of(e), "baseline \"" + b.name + "\" is declared twice for device " + b.device);
      p.baselines.push_back(std::move(b));
    }
  }

  case_spec read_case(const toml::node& n, const problem_spec& p, const std::string& where) const {
    const auto& t = as_table(n, "each " + where + " case");
    check_keys(t, {"name", "symbols", "distribution"}, where);
    case_spec c;
    c.line = line_of(n);
    if (const auto* nm = t.get("name")) c.name = as_string(*nm, "the 'name' of a " + where + " case");
    if (!p.symbols.empty()) {
      const auto& syms = as_table(require(t, "symbols", where, "a table of symbol values, e.g. { M = 64, N = 256 }"),
                                  "'symbols' of a " + where + " case");
      for (auto&& [k, v] : syms) {
        const std::string s(k.str());
        if (!m_symbols.count(s)) {
          fail(static_cast<long>(k.source().begin.line), "unknown symbol '" + s + "' in a " + where +
                                                             " case: expected one of " + join(p.symbols) +
                                                             suggestion(s, p.symbols));
        }
        const std::int64_t val = as_integer(v, "the value of symbol " + s);
        if (val < 1 || val > k_max_dim)
          fail(line_of(v), "expected symbol " + s + " to be a positive integer, found " + describe(v));
        c.symbols[s] = val;
      }
      for (const auto& s : p.symbols) {
        if (!c.symbols.count(s)) {
          fail(line_of(syms), "expected a value for symbol " + s + " in a " + where +
                                  " case (symbols: " + join(p.symbols) + "), found none");
        }
      }
    } else if (const auto* syms = t.get("symbols")) {
      if (!as_table(*syms, "'symbols'").empty())
        fail(line_of(*syms), "expected no symbol values (signature.symbols is empty), found some");
    }
    if (const auto* d = t.get("distribution")) {
      c.distribution = as_string(*d, "the distribution of a " + where + " case");
      check_distribution(c.distribution, line_of(*d), "a " + where + " case");
    }
    // Every declared shape must resolve to positive integers for the case's values.
    try {
      (void)largest_tensor(p, c.symbols);
    } catch (const usage_error& err) {
      fail(c.line, std::string("the shapes of this ") + where + " case do not resolve: " + err.what());
    }
    return c;
  }

  hidden_spec read_hidden(const toml::table& t, const problem_spec& p, const std::string& dev) const {
    const std::string where = "[hidden." + dev + "]";
    check_keys(t, {"count", "ranges", "distributions", "max_elements", "constraints"}, where);
    hidden_spec h;
    h.line = line_of(t);
    if (const auto* n = t.get("count")) {
      const std::int64_t c = as_integer(*n, "'count' in " + where);
      if (c < 1 || c > 100000)
        fail(line_of(*n), "expected 'count' in " + where + " to be in [1, 100000], found " + describe(*n));
      h.count = static_cast<int>(c);
    }
    if (const auto* n = t.get("max_elements")) {
      h.max_elements = as_integer(*n, "'max_elements' in " + where);
      if (h.max_elements < 1)
        fail(line_of(*n), "expected 'max_elements' in " + where + " to be >= 1, found " + describe(*n));
    }
    if (!p.symbols.empty()) {
      const auto& ranges =
          as_table(require(t, "ranges", where, "symbol ranges, e.g. { M = [1, 4096] }"), "'ranges' in " + where);
      for (auto&& [k, v] : ranges) {
        const std::string s(k.str());
        if (!m_symbols.count(s)) {
          fail(static_cast<long>(k.source().begin.line), "unknown symbol '" + s + "' in the ranges of " + where +
                                                             ": expected one of " + join(p.symbols) +
                                                             suggestion(s, p.symbols));
        }
        const auto& arr = as_array(v, "the range of " + s + " in " + where + " ([min, max])");
        if (arr.size() != 2)
          fail(line_of(v),
               "expected the range of " + s + " to be [min, max], found an array of " + std::to_string(arr.size()));
        symbol_range r;
        r.symbol = s;
        r.min = as_integer(*arr.get(0), "the min of " + s);
        r.max = as_integer(*arr.get(1), "the max of " + s);
        if (r.min < 1)
          fail(line_of(v), "expected the min of " + s + " in " + where + " to be >= 1, found " + std::to_string(r.min));
        if (r.min > r.max) {
          fail(line_of(v), "expected min <= max in the range of " + s + " in " + where + ", found min " +
                               std::to_string(r.min) + " > max " + std::to_string(r.max));
        }
        if (r.max > k_max_dim)
          fail(line_of(v), "expected the max of " + s + " to be at most 2^40, found " + std::to_string(r.max));
        h.ranges.push_back(r);
      }
      // Declared order, so the planner draws symbols in a stable order.
      std::vector<symbol_range> ordered;
      for (const auto& s : p.symbols) {
        const auto it = std::find_if(h.ranges.begin(), h.ranges.end(), [&](const auto& r) { return r.symbol == s; });
        if (it == h.ranges.end()) {
          fail(line_of(ranges),
               "expected a range for symbol " + s + " in " + where + " (symbols: " + join(p.symbols) + "), found none");
        }
        ordered.push_back(*it);
      }
      h.ranges = std::move(ordered);
    }
    if (const auto* n = t.get("distributions")) {
      const auto& arr = as_array(*n, "'distributions' in " + where);
      if (arr.empty()) fail(line_of(*n), "expected at least one distribution in " + where + ", found an empty array");
      for (const toml::node& e : arr) {
        const std::string d = as_string(e, "each distribution in " + where);
        check_distribution(d, line_of(e), where);
        if (contains(h.distributions, d)) fail(line_of(e), "distribution \"" + d + "\" appears twice in " + where);
        h.distributions.push_back(d);
      }
    } else {
      h.distributions = k_default_hidden_distributions;
    }
    if (const auto* n = t.get("constraints")) {
      for (const toml::node& e : as_array(*n, "'constraints' in " + where)) {
        const std::string text = as_string(e, "each constraint in " + where);
        try {
          check_expression(text, m_symbols);
        } catch (const usage_error& err) {
          fail(line_of(e), "in a constraint of " + where + ": " + err.what());
        }
        h.constraints.push_back(text);
      }
    }
    // Tensor sizes grow with every symbol, so if the smallest case is over the bound, all are.
    symbol_values smallest;
    for (const auto& r : h.ranges) smallest[r.symbol] = r.min;
    std::int64_t largest = 0;
    try {
      largest = largest_tensor(p, smallest);
    } catch (const usage_error& err) {
      fail(h.line, "the shapes do not resolve with every symbol at its min in " + where + ": " + err.what());
    }
    if (largest > h.max_elements) {
      fail(h.line, "expected max_elements in " + where + " to admit the smallest case (" + std::to_string(largest) +
                       " elements), found " + std::to_string(h.max_elements));
    }
    return h;
  }

  fs::path m_file;
  std::string m_path;
  std::set<std::string> m_symbols;
};

// `located_errors`: messages start with "problem.toml:<line of the tensor>: "; without it they
// end with "(declared at line N)" so a caller can place them at its own line.
std::vector<tensor_desc> resolve_tensors(const problem_spec& p, const std::vector<tensor_spec>& specs,
                                         const symbol_values& s, dtype variant, const char* role, bool located_errors) {
  const auto error = [&](const tensor_spec& t, const std::string& message) {
    if (located_errors) return usage_error(located(p.file.string(), t.line, message));
    return usage_error(message + " (declared at line " + std::to_string(t.line) + ")");
  };
  std::map<std::string, double> values;
  for (const auto& [k, v] : s) values[k] = static_cast<double>(v);
  std::vector<tensor_desc> out;
  out.reserve(specs.size());
  for (const auto& t : specs) {
    tensor_desc d;
    d.name = t.name;
    if (t.dtype == "T") {
      d.type = variant;
    } else {
      const auto parsed = parse_dtype(t.dtype);
      if (!parsed) throw error(t, std::string(role) + " '" + t.name + "': unknown dtype \"" + t.dtype + "\"");
      d.type = *parsed;
    }
    d.shape.reserve(t.shape.size());
    for (std::size_t i = 0; i < t.shape.size(); ++i) {
      const std::string& text = t.shape[i];
      const std::string label = std::string(role) + " '" + t.name + "' dimension " + std::to_string(i);
      double v = 0.0;
      try {
        v = evaluate_expression(text, values);
      } catch (const usage_error& err) {
        throw error(t, label + ": " + err.what());
      }
      if (!std::isfinite(v) || v < 1.0 || v != std::floor(v) || v > static_cast<double>(k_max_dim)) {
        std::ostringstream os;
        os << label << " ('" << text << "') evaluates to " << v << " for";
        for (const auto& [k, val] : s) os << ' ' << k << '=' << val;
        os << "; expected a positive integer";
        throw error(t, os.str());
      }
      d.shape.push_back(static_cast<std::int64_t>(v));
    }
    // The tensor's bytes, checked for overflow: M = N = 2^32 made M*N wrap to 0 in the memory
    // estimate, and the reference then ran on until it crashed. Anything past k_max_bytes is no
    // machine's; what this machine can hold is checked before any worker starts (judge/detail/evaluation_parties.cpp).
    std::uint64_t bytes = dtype_size(d.type);
    bool overflow = false;
    for (const auto extent : d.shape)
      overflow = overflow || __builtin_mul_overflow(bytes, static_cast<std::uint64_t>(extent), &bytes);
    if (overflow || bytes > k_max_bytes) {
      std::ostringstream os;
      os << role << " '" << t.name << "' of shape " << d.shape_string() << " for";
      for (const auto& [k, val] : s) os << ' ' << k << '=' << val;
      os << " holds " << (overflow ? std::string("more than 2^64") : std::to_string(bytes)) << " bytes; at most 2^46 ("
         << k_max_bytes << ") can be judged";
      throw error(t, os.str());
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

}  // namespace detail

problem_spec parse_problem_file(const std::filesystem::path& toml_file) {
  return detail::spec_reader(toml_file).read();
}

std::vector<tensor_desc> resolve_inputs(const problem_spec& p, const symbol_values& s, dtype variant) {
  return detail::resolve_tensors(p, p.inputs, s, variant, "input", true);
}

std::vector<tensor_desc> resolve_outputs(const problem_spec& p, const symbol_values& s, dtype variant) {
  return detail::resolve_tensors(p, p.outputs, s, variant, "output", true);
}

cost_estimate evaluate_cost(const problem_spec& p, const symbol_values& s, dtype variant) {
  std::map<std::string, double> values;
  for (const auto& [k, v] : s) values[k] = static_cast<double>(v);
  cost_estimate c;
  try {
    if (!p.cost_flops.empty()) c.flops = evaluate_expression(p.cost_flops, values);
    values["elem"] = static_cast<double>(dtype_size(variant));
    if (!p.cost_bytes.empty()) c.bytes = evaluate_expression(p.cost_bytes, values);
  } catch (const usage_error& err) {
    throw usage_error(located(p.file.string(), 0, std::string("cost model: ") + err.what()));
  }
  return c;
}

tolerance tolerance_for(const problem_spec& p, dtype variant, bool tf32) {
  const std::string key = (tf32 && p.tf32_allowed && variant == dtype::f32) ? "tf32" : std::string(dtype_name(variant));
  const auto it = p.tolerances.find(key);
  return it != p.tolerances.end() ? it->second : default_tolerance(key);
}

}  // namespace kjudge
