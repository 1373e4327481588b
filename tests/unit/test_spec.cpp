#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "planner/planner.hpp"
#include "problem/registry.hpp"
#include "problem/spec.hpp"
#include "protocol/messages.hpp"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

::testing::AssertionResult has_all(const std::string& text, std::initializer_list<std::string> phrases) {
  for (const auto& p : phrases) {
    if (text.find(p) == std::string::npos) {
      return ::testing::AssertionFailure() << "'" << text << "' lacks '" << p << "'";
    }
  }
  return ::testing::AssertionSuccess();
}

// A fresh directory under the system temp dir, removed with the fixture.
class temp_dir {
 public:
  temp_dir() {
    std::string tmpl = (fs::temp_directory_path() / "kjudge_spec_XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_path = tmpl;
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  [[nodiscard]] const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// A valid spec; tests replace one line to make it malformed, so line numbers below are stable.
// Line numbers:          1
const std::string k_valid =
    "name = \"toy\"\n"                                                        // 1
    "description = \"y = x + b\"\n"                                           // 2
    "dtypes = [\"f32\", \"bf16\"]\n"                                          // 3
    "[signature]\n"                                                           // 4
    "symbols = [\"M\", \"N\"]\n"                                              // 5
    "inputs = [\n"                                                            // 6
    "  { name = \"x\", shape = [\"M\", \"N\"] },\n"                           // 7
    "  { name = \"b\", shape = [\"N\"], distribution = \"uniform\" },\n"      // 8
    "]\n"                                                                     // 9
    "outputs = [{ name = \"y\", shape = [\"M\", \"N\"] }]\n"                  // 10
    "scalars = [{ name = \"alpha\", value = 0.5 }]\n"                         // 11
    "[cost]\n"                                                                // 12
    "bytes = \"(2*M*N + N) * elem\"\n"                                        // 13
    "flops = \"M*N\"\n"                                                       // 14
    "[references]\n"                                                          // 15
    "cpp = \"reference.cpp\"\n"                                               // 16
    "[tolerance.bf16]\n"                                                      // 17
    "rtol = 2e-2\n"                                                           // 18
    "[[public]]\n"                                                            // 19
    "symbols = { M = 4, N = 8 }\n"                                            // 20
    "distribution = \"normal\"\n"                                             // 21
    "[[bench.cpu]]\n"                                                         // 22
    "symbols = { M = 64, N = 64 }\n"                                          // 23
    "[hidden.cpu]\n"                                                          // 24
    "count = 5\n"                                                             // 25
    "ranges = { M = [1, 100], N = [1, 200] }\n"                               // 26
    "distributions = [\"normal\", \"wide\"]\n"                                // 27
    "max_elements = 10000\n"                                                  // 28
    "constraints = [\"N >= M\"]\n";                                           // 29

std::string replace_line(const std::string& text, int line, const std::string& replacement) {
  std::string out;
  int n = 1;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string l = text.substr(start, end - start);
    out += (n == line ? replacement : l) + "\n";
    ++n;
    start = end + 1;
  }
  return out;
}

class SpecFile : public ::testing::Test {
 protected:
  void SetUp() override { write_file(m_dir.path() / "reference.cpp", "// reference\n"); }

  fs::path write_spec(const std::string& toml) {
    const fs::path p = m_dir.path() / "problem.toml";
    write_file(p, toml);
    return p;
  }

  // The usage_error message of parsing `toml`, which must name problem.toml:<line>.
  std::string error_of(const std::string& toml) {
    const fs::path p = write_spec(toml);
    try {
      (void)parse_problem_file(p);
    } catch (const usage_error& e) {
      return e.what();
    }
    return "(no error)";
  }

  ::testing::AssertionResult rejected_at(const std::string& toml, int line, std::initializer_list<std::string> phrases) {
    const std::string msg = error_of(toml);
    const std::string where = (m_dir.path() / "problem.toml").string() + ":" + std::to_string(line) + ": ";
    if (msg.rfind(where, 0) != 0) {
      return ::testing::AssertionFailure() << "expected the message to start with '" << where << "', got '" << msg << "'";
    }
    return has_all(msg, phrases);
  }

  temp_dir m_dir;
};

TEST_F(SpecFile, ValidSpecParsesEveryField) {
  const problem_spec p = parse_problem_file(write_spec(k_valid));
  EXPECT_EQ(p.name, "toy");
  EXPECT_EQ(p.description, "y = x + b");
  EXPECT_EQ(p.dtypes, (std::vector<std::string>{"f32", "bf16"}));
  EXPECT_EQ(p.symbols, (std::vector<std::string>{"M", "N"}));
  ASSERT_EQ(p.inputs.size(), 2u);
  EXPECT_EQ(p.inputs[0].name, "x");
  EXPECT_EQ(p.inputs[0].shape, (std::vector<std::string>{"M", "N"}));
  EXPECT_EQ(p.inputs[0].dtype, "T");
  EXPECT_FALSE(p.inputs[0].distribution.has_value());
  EXPECT_EQ(p.inputs[1].distribution, std::optional<std::string>("uniform"));
  EXPECT_EQ(p.inputs[1].line, 8);
  ASSERT_EQ(p.outputs.size(), 1u);
  EXPECT_EQ(p.outputs[0].name, "y");
  ASSERT_EQ(p.scalars.size(), 1u);
  EXPECT_EQ(p.scalars[0].name, "alpha");
  EXPECT_EQ(p.scalars[0].value, 0.5);
  EXPECT_EQ(p.cost_bytes, "(2*M*N + N) * elem");
  ASSERT_TRUE(p.reference_cpp.has_value());
  EXPECT_TRUE(p.reference_cpp->is_absolute());
  EXPECT_EQ(*p.reference_cpp, (m_dir.path() / "reference.cpp").lexically_normal());
  EXPECT_EQ(p.dir, m_dir.path().lexically_normal());
  // bf16 overrides rtol only; atol keeps the default; f32 gets the defaults.
  EXPECT_EQ(p.tolerances.at("bf16").rtol, 2e-2);
  EXPECT_EQ(p.tolerances.at("bf16").atol, 1e-3);
  EXPECT_EQ(p.tolerances.at("f32").rtol, 1e-5);
  EXPECT_EQ(p.tolerances.count("tf32"), 0u);
  ASSERT_EQ(p.public_cases.size(), 1u);
  EXPECT_EQ(p.public_cases[0].symbols, (symbol_values{{"M", 4}, {"N", 8}}));
  EXPECT_EQ(p.public_cases[0].line, 19);
  ASSERT_EQ(p.bench_cases.at("cpu").size(), 1u);
  EXPECT_EQ(p.bench_cases.at("cpu")[0].distribution, "normal");  // the default
  const hidden_spec& h = p.hidden.at("cpu");
  EXPECT_EQ(h.count, 5);
  ASSERT_EQ(h.ranges.size(), 2u);
  EXPECT_EQ(h.ranges[1].symbol, "N");
  EXPECT_EQ(h.ranges[1].max, 200);
  EXPECT_EQ(h.distributions, (std::vector<std::string>{"normal", "wide"}));
  EXPECT_EQ(h.max_elements, 10000);
  EXPECT_EQ(h.constraints, (std::vector<std::string>{"N >= M"}));
}

TEST_F(SpecFile, QrCheckNeedsTheQrSignature) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 2, "check = \"qr\""), 2,
                          {"expected check = \"qr\" to come with one input A[B,n,n] and the outputs H[B,n,n], tau[B,n]",
                           "found inputs x[M,N], b[N]; outputs y[M,N]"}));
}

// error_group on an output: "element" bounds each element by its own error (oracle.hpp
// error_envelope), "row" (the default) by its row's worst; anything else is refused with its line.
TEST_F(SpecFile, AnOutputsErrorGroup) {
  EXPECT_EQ(parse_problem_file(write_spec(k_valid)).outputs[0].envelope_group, error_group::rows);
  const problem_spec p = parse_problem_file(
      write_spec(replace_line(k_valid, 10, "outputs = [{ name = \"y\", shape = [\"M\", \"N\"], error_group = \"element\" }]")));
  EXPECT_EQ(p.outputs[0].envelope_group, error_group::element_wise);
  EXPECT_TRUE(rejected_at(
      replace_line(k_valid, 10, "outputs = [{ name = \"y\", shape = [\"M\", \"N\"], error_group = \"column\" }]"), 10,
      {"unknown error_group \"column\"", "expected \"element\" or \"row\""}));
}

TEST_F(SpecFile, MissingName) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 1, "# no name"), 1, {"expected key 'name'", "found none"}));
}

TEST_F(SpecFile, MissingSignature) {
  std::string t = k_valid;
  for (int l = 4; l <= 11; ++l) t = replace_line(t, l, "#");
  EXPECT_TRUE(rejected_at(t, 1, {"expected key 'signature'"}));
}

TEST_F(SpecFile, UnknownTopLevelKeyTypo) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 3, "dtyeps = [\"f32\"]"), 3,
                          {"unknown key 'dtyeps'", "did you mean 'dtypes'?", "expected one of"}));
}

TEST_F(SpecFile, UnknownKeyInsideATable) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 25, "cuont = 5"), 25,
                          {"unknown key 'cuont' in [hidden.cpu]", "did you mean 'count'?"}));
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 7, "  { name = \"x\", shape = [\"M\", \"N\"], dtpye = \"f32\" },"), 7,
                          {"unknown key 'dtpye'", "did you mean 'dtype'?"}));
}

TEST_F(SpecFile, WrongValueType) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 1, "name = 3"), 1,
                          {"expected 'name' to be a string", "found an integer (3)"}));
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 28, "max_elements = 1.5e4"), 28,
                          {"to be an integer", "found a floating-point number"}));
}

TEST_F(SpecFile, UnknownDtype) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 3, "dtypes = [\"f32\", \"fp8\"]"), 3,
                          {"unknown dtype \"fp8\"", "expected one of f32"}));
}

TEST_F(SpecFile, UnknownDistribution) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 21, "distribution = \"gaussian\""), 21,
                          {"unknown distribution \"gaussian\"", "expected one of uniform, normal"}));
}

// range = [lo, hi] on an integer or bool input: parsed, carried into every planned case, and
// rejected with its line where it cannot hold the dtype's values.
TEST_F(SpecFile, IntegerInputRange) {
  const std::string labels = "  { name = \"b\", shape = [\"N\"], dtype = \"i64\", range = [0, 9] },";
  const problem_spec p = parse_problem_file(write_spec(replace_line(k_valid, 8, labels)));
  ASSERT_TRUE(p.inputs[1].range.has_value());
  EXPECT_EQ(*p.inputs[1].range, (int_range{0, 9}));
  EXPECT_FALSE(p.inputs[0].range.has_value());
  const planned_case c = make_case(p, dtype::f32, {{"M", 4}, {"N", 8}}, "normal", 1, "t", case_kind::public_case);
  ASSERT_TRUE(c.inputs[1].range.has_value());
  EXPECT_EQ(*c.inputs[1].range, (int_range{0, 9}));
  call_spec call;
  call.inputs = c.inputs;
  call.distribution = c.distribution;
  EXPECT_EQ(call_from_json(to_json(call)).inputs[1].range, c.inputs[1].range);  // the worker's copy
  EXPECT_FALSE(call_from_json(to_json(call)).inputs[0].range.has_value());

  EXPECT_TRUE(rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], range = [0, 9] },"), 8,
                          {"a range is only for integer and bool inputs", "input 'b' has dtype \"T\"", "\"i64\""}));
  EXPECT_TRUE(
      rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], dtype = \"f32\", range = [0, 9] },"), 8,
                  {"a range is only for integer and bool inputs", "\"f32\""}));
  EXPECT_TRUE(
      rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], dtype = \"i32\", range = [9, 0] },"), 8,
                  {"in the range of input 'b'", "low bound 9 is above its high bound 0"}));
  EXPECT_TRUE(
      rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], dtype = \"u8\", range = [0, 256] },"), 8,
                  {"[0, 256] is outside [0, 255] for a u8 tensor"}));
  EXPECT_TRUE(
      rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], dtype = \"bool\", range = [0, 2] },"), 8,
                  {"outside [0, 1] for a bool tensor"}));
  EXPECT_TRUE(rejected_at(
      replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], dtype = \"i64\", range = [0, 4294967296] },"), 8,
      {"more than 2^32 values"}));
  EXPECT_TRUE(
      rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], dtype = \"i64\", range = [0, 1.5] },"),
                  8, {"expected the range of input 'b' to be [low, high], two integers", "found an array"}));
}

// values = [...]: the only values of a floating input (+-1 targets), carried to the worker.
TEST_F(SpecFile, DiscreteFloatValues) {
  const std::string targets = "  { name = \"b\", shape = [\"N\"], values = [-1, 1.0] },";
  const problem_spec p = parse_problem_file(write_spec(replace_line(k_valid, 8, targets)));
  EXPECT_EQ(p.inputs[1].values, (std::vector<double>{-1.0, 1.0}));
  EXPECT_TRUE(p.inputs[0].values.empty());
  const planned_case c = make_case(p, dtype::f32, {{"M", 4}, {"N", 8}}, "normal", 1, "t", case_kind::public_case);
  EXPECT_EQ(c.inputs[1].values, (std::vector<double>{-1.0, 1.0}));
  call_spec call;
  call.inputs = c.inputs;
  call.distribution = c.distribution;
  EXPECT_EQ(call_from_json(to_json(call)).inputs[1].values, c.inputs[1].values);  // the worker's copy
  EXPECT_TRUE(call_from_json(to_json(call)).inputs[0].values.empty());

  EXPECT_TRUE(
      rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], dtype = \"i32\", values = [0, 1] },"), 8,
                  {"in the values of input 'b'", "only for floating inputs", "i32", "takes a range"}));
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], values = [] },"), 8,
                          {"in the values of input 'b'", "no values given"}));
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], values = [0.0, nan] },"), 8,
                          {"in the values of input 'b'", "is not finite"}));
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], values = [0.0, \"one\"] },"), 8,
                          {"expected each value of input 'b' to be a number"}));
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], values = 1.0 },"), 8,
                          {"expected the values of input 'b' to be an array of numbers"}));
  std::string many = "  { name = \"b\", shape = [\"N\"], values = [";
  for (int i = 0; i < 257; ++i) many += (i ? ", " : "") + std::to_string(i);
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 8, many + "] },"), 8, {"257 values, more than 256"}));
  // A triangular structure's zeros must be among the values; a symmetric one adds no value.
  const std::string tri = "  { name = \"b\", shape = [\"N\", \"N\"], values = [-1, 1], structure = \"upper\" },";
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 8, tri), 8,
                          {"structure \"upper\" zeroes a triangle of input 'b'", "0 is not among its values"}));
  EXPECT_NO_THROW(parse_problem_file(write_spec(replace_line(
      k_valid, 8, "  { name = \"b\", shape = [\"N\", \"N\"], values = [-1, 0, 1], structure = \"lower\" },"))));
  EXPECT_NO_THROW(parse_problem_file(write_spec(replace_line(
      k_valid, 8, "  { name = \"b\", shape = [\"N\", \"N\"], values = [-1, 1], structure = \"symmetric\" },"))));
}

TEST_F(SpecFile, SquareMatrixStructure) {
  const std::string tri = "  { name = \"b\", shape = [\"N\", \"N\"], structure = \"upper\" },";
  const problem_spec p = parse_problem_file(write_spec(replace_line(k_valid, 8, tri)));
  EXPECT_EQ(p.inputs[1].structure, matrix_structure::upper);
  EXPECT_EQ(p.inputs[0].structure, matrix_structure::none);
  const planned_case c = make_case(p, dtype::f32, {{"M", 4}, {"N", 8}}, "normal", 1, "t", case_kind::public_case);
  EXPECT_EQ(c.inputs[1].structure, matrix_structure::upper);
  call_spec call;
  call.inputs = c.inputs;
  EXPECT_EQ(call_from_json(to_json(call)).inputs[1].structure, matrix_structure::upper);  // the worker's copy
  EXPECT_TRUE(
      rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"M\", \"N\"], structure = \"upper\" },"), 8,
                  {"a structure needs square matrices", "input 'b'", "found [M, N]"}));
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\"], structure = \"symmetric\" },"),
                          8, {"a structure needs square matrices"}));
  EXPECT_TRUE(
      rejected_at(replace_line(k_valid, 8, "  { name = \"b\", shape = [\"N\", \"N\"], structure = \"banded\" },"), 8,
                  {"unknown structure \"banded\"", "expected upper, lower or symmetric"}));
}

TEST_F(SpecFile, UndeclaredShapeSymbol) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 10, "outputs = [{ name = \"y\", shape = [\"M\", \"K\"] }]"), 10,
                          {"output 'y'", "unknown symbol 'K'", "declared symbols: M, N"}));
}

TEST_F(SpecFile, CaseMissingASymbol) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 20, "symbols = { M = 4 }"), 20,
                          {"expected a value for symbol N", "[[public]]"}));
}

TEST_F(SpecFile, CaseWithUnknownSymbol) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 23, "symbols = { M = 64, N = 64, K = 3 }"), 23,
                          {"unknown symbol 'K'", "[[bench.cpu]]"}));
}

TEST_F(SpecFile, HiddenRangeMinAboveMax) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 26, "ranges = { M = [8, 4], N = [1, 200] }"), 26,
                          {"expected min <= max", "range of M", "found min 8 > max 4"}));
}

TEST_F(SpecFile, HiddenRangeMinBelowOne) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 26, "ranges = { M = [0, 4], N = [1, 200] }"), 26,
                          {"min of M", ">= 1", "found 0"}));
}

TEST_F(SpecFile, HiddenRangeMissingASymbol) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 26, "ranges = { M = [1, 4] }"), 26,
                          {"expected a range for symbol N"}));
}

TEST_F(SpecFile, TomlSyntaxErrorHasLineAndColumn) {
  const std::string msg = error_of(replace_line(k_valid, 14, "flops = \"M*N"));
  EXPECT_EQ(msg.rfind((m_dir.path() / "problem.toml").string() + ":14:", 0), 0u) << msg;
  EXPECT_TRUE(has_all(msg, {"TOML syntax error"}));
}

TEST_F(SpecFile, MissingReferenceFile) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 16, "cpp = \"missing.cpp\""), 16,
                          {"references.cpp", "existing file", "missing.cpp"}));
}

TEST_F(SpecFile, ReferenceInSubdirectoryResolvesRelativeToTheProblem) {
  write_file(m_dir.path() / "refs" / "r.cpp", "//\n");
  const problem_spec p = parse_problem_file(write_spec(replace_line(k_valid, 16, "cpp = \"refs/../refs/r.cpp\"")));
  EXPECT_EQ(*p.reference_cpp, m_dir.path() / "refs" / "r.cpp");
}

TEST_F(SpecFile, BadCostExpression) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 14, "flops = \"M * elem\""), 14,
                          {"cost.flops", "unknown symbol 'elem'"}));  // elem is for bytes only
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 13, "bytes = \"M * (N\""), 13, {"cost.bytes", "expected ')'"}));
}

TEST_F(SpecFile, BenchDeviceNeedsHiddenGenerator) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 22, "[[bench.cuda]]"), 22,
                          {"expected a [hidden.cuda] generator", "[[bench.cuda]]"}));
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 22, "[[bench.gpu]]"), 22, {"unknown device 'gpu'"}));
}

TEST_F(SpecFile, Tf32ToleranceNeedsPermission) {
  EXPECT_TRUE(rejected_at(replace_line(k_valid, 17, "[tolerance.tf32]"), 17, {"tf32_allowed = true"}));
}

TEST_F(SpecFile, MaxElementsBelowTheSmallestCase) {
  std::string t = replace_line(k_valid, 7, "  { name = \"x\", shape = [\"M\", \"N\", 128] },");
  t = replace_line(t, 28, "max_elements = 100");
  EXPECT_TRUE(rejected_at(t, 24, {"max_elements", "smallest case (128 elements)"}));
}

TEST_F(SpecFile, CaseWhoseShapeDoesNotResolve) {
  std::string t = replace_line(k_valid, 10, "outputs = [{ name = \"y\", shape = [\"M - 4\", \"N\"] }]");
  EXPECT_TRUE(rejected_at(t, 19, {"do not resolve", "output 'y' dimension 0 ('M - 4') evaluates to 0 for M=4 N=8",
                              "expected a positive integer (declared at line 10)"}));
}

TEST_F(SpecFile, MissingFileIsAUsageError) {
  try {
    (void)parse_problem_file(m_dir.path() / "nope.toml");
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_TRUE(has_all(e.what(), {"nope.toml", "nothing at this path"}));
  }
}

TEST_F(SpecFile, ResolveCostAndToleranceForAKnownCase) {
  const problem_spec p = parse_problem_file(write_spec(k_valid));
  const symbol_values s{{"M", 4}, {"N", 8}};
  const auto in = resolve_inputs(p, s, dtype::bf16);
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(in[0].shape, (std::vector<std::int64_t>{4, 8}));
  EXPECT_EQ(in[0].type, dtype::bf16);
  EXPECT_EQ(in[1].shape, (std::vector<std::int64_t>{8}));
  const cost_estimate c = evaluate_cost(p, s, dtype::bf16);
  EXPECT_EQ(c.bytes, (2.0 * 32 + 8) * 2);
  EXPECT_EQ(c.flops, 32.0);
  EXPECT_EQ(tolerance_for(p, dtype::bf16).rtol, 2e-2);
  // TF32 is not allowed here: a request for it gets the f32 tolerance.
  EXPECT_EQ(tolerance_for(p, dtype::f32, true).rtol, 1e-5);
}

// ---- the built-in suite ------------------------------------------------------------------

struct suite_entry {
  const char* name;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> scalars;
};

const std::vector<suite_entry> k_suite = {
    {"gelu_bias_residual", {"x", "bias", "residual"}, {"out"}, {}},
    {"layernorm", {"x", "weight", "bias"}, {"y"}, {"eps"}},
    {"rmsnorm", {"x", "weight"}, {"y"}, {"eps"}},
    {"softmax", {"x"}, {"y"}, {}},
    {"matmul_bias_relu", {"a", "b", "bias"}, {"c"}, {}},
};

template <typename T>
std::vector<std::string> names_of(const std::vector<T>& v) {
  std::vector<std::string> out;
  for (const auto& x : v) out.push_back(x.name);
  return out;
}

TEST(Suite, EveryProblemFileParsesWithItsSignature) {
  for (const auto& e : k_suite) {
    SCOPED_TRACE(e.name);
    const problem_spec p = load_problem(e.name);
    EXPECT_EQ(p.name, e.name);
    EXPECT_EQ(names_of(p.inputs), e.inputs);
    EXPECT_EQ(names_of(p.outputs), e.outputs);
    EXPECT_EQ(names_of(p.scalars), e.scalars);
    EXPECT_EQ(p.dtypes, (std::vector<std::string>{"f32", "bf16"}));
    ASSERT_TRUE(p.reference_cpp.has_value());
    EXPECT_TRUE(fs::is_regular_file(*p.reference_cpp));
    EXPECT_FALSE(p.cost_bytes.empty());
    EXPECT_FALSE(p.cost_flops.empty());
    EXPECT_GE(p.public_cases.size(), 2u);
    for (const char* dev : {"cpu", "cuda"}) {
      SCOPED_TRACE(dev);
      ASSERT_TRUE(p.bench_cases.count(dev));
      ASSERT_TRUE(p.hidden.count(dev));
      const hidden_spec& h = p.hidden.at(dev);
      EXPECT_EQ(h.count, std::string(dev) == "cpu" ? 10 : 12);
      EXPECT_EQ(h.distributions,
                (std::vector<std::string>{"uniform", "normal", "negative", "wide", "offset", "heavy"}));
      for (const auto& r : h.ranges) EXPECT_EQ(r.min, 1) << r.symbol;
    }
  }
}

TEST(Suite, BatchedQrIsJudgedByBackwardError) {
  const problem_spec p = load_problem("batched_qr");
  EXPECT_EQ(p.check, "qr");
  EXPECT_EQ(p.dtypes, (std::vector<std::string>{"f32"}));
  EXPECT_EQ(p.symbols, (std::vector<std::string>{"B", "n"}));
  EXPECT_EQ(names_of(p.inputs), (std::vector<std::string>{"A"}));
  EXPECT_EQ(names_of(p.outputs), (std::vector<std::string>{"H", "tau"}));
  EXPECT_EQ(p.outputs.at(1).shape, (std::vector<std::string>{"B", "n"}));
  ASSERT_TRUE(p.reference_cpp && p.reference_cu && p.reference_py);
  EXPECT_FALSE(p.cost_bytes.empty());
  EXPECT_FALSE(p.cost_flops.empty());
  for (const char* dev : {"cpu", "cuda"}) {
    SCOPED_TRACE(dev);
    ASSERT_TRUE(p.bench_cases.count(dev));
    ASSERT_TRUE(p.hidden.count(dev));
    for (const auto& r : p.hidden.at(dev).ranges) EXPECT_EQ(r.min, 1) << r.symbol;
  }
  std::vector<std::string> baselines;
  for (const auto& b : p.baselines) baselines.push_back(b.name + "@" + b.device);
  EXPECT_EQ(baselines, (std::vector<std::string>{"cpu_fast@cpu", "cublas_geqrf_batched@cuda", "cusolver_geqrf@cuda"}));
}

TEST(Suite, ScalarsTf32AndTolerances) {
  EXPECT_EQ(load_problem("layernorm").scalars.at(0).value, 1e-5);
  EXPECT_EQ(load_problem("rmsnorm").scalars.at(0).value, 1e-6);
  const problem_spec mm = load_problem("matmul_bias_relu");
  EXPECT_TRUE(mm.tf32_allowed);
  EXPECT_EQ(tolerance_for(mm, dtype::f32, true).rtol, 5e-3);
  EXPECT_EQ(tolerance_for(mm, dtype::f32, false).rtol, 1e-5);
  EXPECT_EQ(tolerance_for(mm, dtype::bf16, true).rtol, 1e-2);  // tf32 applies to f32 only
  EXPECT_FALSE(load_problem("softmax").tf32_allowed);
  EXPECT_EQ(tolerance_for(load_problem("softmax"), dtype::f32, true).rtol, 1e-5);
}

TEST(Suite, ResolveAndCostOfLayernorm) {
  const problem_spec p = load_problem("layernorm");
  const symbol_values s{{"M", 64}, {"N", 256}};
  const auto in = resolve_inputs(p, s, dtype::f32);
  ASSERT_EQ(in.size(), 3u);
  EXPECT_EQ(in[0].shape, (std::vector<std::int64_t>{64, 256}));
  EXPECT_EQ(in[1].shape, (std::vector<std::int64_t>{256}));
  EXPECT_EQ(in[2].shape, (std::vector<std::int64_t>{256}));
  const auto out = resolve_outputs(p, s, dtype::bf16);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "y");
  EXPECT_EQ(out[0].type, dtype::bf16);
  EXPECT_EQ(out[0].nbytes(), 64u * 256u * 2u);
  const cost_estimate f32 = evaluate_cost(p, s, dtype::f32);
  EXPECT_EQ(f32.bytes, (2.0 * 64 * 256 + 2 * 256) * 4);  // 133120
  EXPECT_EQ(f32.flops, 8.0 * 64 * 256);
  EXPECT_EQ(evaluate_cost(p, s, dtype::bf16).bytes, f32.bytes / 2);
}

TEST(Suite, CostOfMatmul) {
  const problem_spec p = load_problem("matmul_bias_relu");
  const cost_estimate c = evaluate_cost(p, {{"M", 256}, {"N", 128}, {"K", 64}}, dtype::f32);
  EXPECT_EQ(c.flops, 2.0 * 256 * 128 * 64 + 2.0 * 256 * 128);
  EXPECT_EQ(c.bytes, (256.0 * 64 + 64 * 128 + 128 + 256 * 128) * 4);
}

TEST(Registry, LoadByNameDirectoryOrFile) {
  const fs::path dir = problems_root() / "softmax";
  EXPECT_EQ(load_problem(dir.string()).name, "softmax");
  EXPECT_EQ(load_problem((dir / "problem.toml").string()).name, "softmax");
  EXPECT_EQ(load_problem("softmax").file, dir / "problem.toml");
}

TEST(Registry, UnknownNameListsTheKnownOnes) {
  try {
    (void)load_problem("layer_norm");
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_TRUE(has_all(e.what(), {"unknown problem 'layer_norm'", "layernorm", "softmax", "matmul_bias_relu"}));
  }
  EXPECT_THROW((void)load_problem("./no/such/dir"), usage_error);
}

TEST(Registry, LoadAllIsSortedByName) {
  const auto all = load_all_problems();
  ASSERT_GE(all.size(), 5u);
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].name, all[i].name);
  for (const auto& e : k_suite) {
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const problem_spec& p) { return p.name == e.name; })) << e.name;
  }
}

TEST(Registry, EnvironmentOverridesTheRoot) {
  temp_dir d;
  write_file(d.path() / "toy" / "reference.cpp", "//\n");
  write_file(d.path() / "toy" / "problem.toml", k_valid);
  write_file(d.path() / "misnamed" / "reference.cpp", "//\n");
  const char* old = std::getenv("KJUDGE_PROBLEMS");
  const std::string saved = old ? old : "";
  ::setenv("KJUDGE_PROBLEMS", d.path().c_str(), 1);
  EXPECT_EQ(problems_root(), d.path());
  EXPECT_EQ(problem_names(), std::vector<std::string>{"toy"});  // misnamed/ has no problem.toml
  EXPECT_EQ(load_problem("toy").name, "toy");
  // A suite entry's name must match its directory.
  write_file(d.path() / "misnamed" / "problem.toml", k_valid);
  EXPECT_THROW((void)load_problem("misnamed"), usage_error);
  if (old) ::setenv("KJUDGE_PROBLEMS", saved.c_str(), 1);
  else ::unsetenv("KJUDGE_PROBLEMS");
}

}  // namespace
}  // namespace kjudge
