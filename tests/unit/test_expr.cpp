#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "problem/expr.hpp"

namespace kjudge {
namespace {

// True when `text` contains every phrase; the failure message shows the text.
::testing::AssertionResult has_all(const std::string& text, std::initializer_list<std::string> phrases) {
  for (const auto& p : phrases) {
    if (text.find(p) == std::string::npos) {
      return ::testing::AssertionFailure() << "'" << text << "' lacks '" << p << "'";
    }
  }
  return ::testing::AssertionSuccess();
}

double eval(const std::string& text, const std::map<std::string, double>& s = {}) {
  return evaluate_expression(text, s);
}

std::string error_of(const std::string& text, const std::map<std::string, double>& s = {}) {
  try {
    (void)evaluate_expression(text, s);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Expr, ArithmeticPrecedenceAndAssociativity) {
  EXPECT_EQ(eval("2 + 3 * 4"), 14.0);
  EXPECT_EQ(eval("(2 + 3) * 4"), 20.0);
  EXPECT_EQ(eval("10 - 4 - 3"), 3.0);    // left-associative
  EXPECT_EQ(eval("64 / 4 / 2"), 8.0);
  EXPECT_EQ(eval("2 * 7 % 4"), 2.0);     // (2*7) % 4
  EXPECT_EQ(eval("7 / 2"), 3.5);         // double division; shape users reject non-integers
  EXPECT_EQ(eval("-2 * 3"), -6.0);
  EXPECT_EQ(eval("--3"), 3.0);
  EXPECT_EQ(eval("2 - -3"), 5.0);
  EXPECT_EQ(eval("1e-5 * 1e5"), 1.0);
  EXPECT_EQ(eval(".5 + 1.25"), 1.75);
}

TEST(Expr, ComparisonsAndLogic) {
  EXPECT_EQ(eval("1 < 2 && 3 >= 3"), 1.0);
  EXPECT_EQ(eval("2 <= 1"), 0.0);
  EXPECT_EQ(eval("1 || 0 && 0"), 1.0);   // && binds tighter than ||
  EXPECT_EQ(eval("(1 || 0) && 0"), 0.0);
  EXPECT_EQ(eval("!0"), 1.0);
  EXPECT_EQ(eval("!(1 == 1)"), 0.0);
  EXPECT_EQ(eval("1 != 2"), 1.0);
  EXPECT_EQ(eval("1 + 1 == 2"), 1.0);    // arithmetic binds tighter than comparison
  EXPECT_EQ(eval("3 > 2 > 0"), 1.0);     // (3 > 2) > 0
}

TEST(Expr, SymbolsAndFunctions) {
  const std::map<std::string, double> s = {{"M", 33}, {"N", 5}, {"elem", 4}};
  EXPECT_EQ(eval("M * N * elem", s), 660.0);
  EXPECT_EQ(eval("min(M, N)", s), 5.0);
  EXPECT_EQ(eval("max(M, N)", s), 33.0);
  EXPECT_EQ(eval("ceil_div(M, 32) * 32", s), 64.0);
  EXPECT_EQ(eval("ceil_div(64, 32)"), 2.0);
  EXPECT_EQ(eval("min(max(M, 100), 2 * N + 1)", s), 11.0);
  EXPECT_EQ(eval("M % 8 != 0 && N >= 2", s), 1.0);
  EXPECT_EQ(eval("  M  ", s), 33.0);
}

TEST(Expr, SyntaxErrorsNameTextColumnAndExpectation) {
  EXPECT_TRUE(has_all(error_of("M +", {{"M", 1}}), {"expression 'M +'", "at column 4", "expected a number, a symbol"}));
  EXPECT_TRUE(has_all(error_of("(2 + 3", {}), {"expected ')'", "at column 7"}));
  EXPECT_TRUE(has_all(error_of("2 3"), {"expected an operator or the end", "at column 3", "found '3'"}));
  EXPECT_TRUE(has_all(error_of(""), {"expected an expression", "at column 1"}));
  EXPECT_TRUE(has_all(error_of("2 * * 3"), {"at column 5"}));
  EXPECT_TRUE(has_all(error_of("4 & 2"), {"at column 3"}));
  EXPECT_TRUE(has_all(error_of("3M"), {"operator after the number", "at column 2"}));
}

TEST(Expr, UnknownSymbolsAndFunctionsByName) {
  EXPECT_TRUE(has_all(error_of("M * Q", {{"M", 2}}), {"expression 'M * Q'", "unknown symbol 'Q'", "at column 5"}));
  EXPECT_TRUE(has_all(error_of("sqrt(4, 2)"), {"unknown function 'sqrt'", "at column 1"}));
  EXPECT_TRUE(has_all(error_of("min(1)"), {"expected ','", "at column 6"}));
  EXPECT_TRUE(has_all(error_of("max(1, 2, 3)"), {"expected ')'"}));
}

TEST(Expr, DivisionByZeroIsAnError) {
  EXPECT_TRUE(has_all(error_of("M / (N - 5)", {{"M", 1}, {"N", 5}}), {"division by zero", "at column 3"}));
  EXPECT_TRUE(has_all(error_of("7 % 0"), {"division by zero"}));
  EXPECT_TRUE(has_all(error_of("ceil_div(7, 0)"), {"ceil_div by zero"}));
}

TEST(Expr, CheckExpressionValidatesWithoutValues) {
  EXPECT_NO_THROW(check_expression("M * N / (N - N) + ceil_div(M, 0)", {"M", "N"}));
  try {
    check_expression("M * K", {"M", "N"});
    FAIL() << "undeclared symbol accepted";
  } catch (const usage_error& e) {
    EXPECT_TRUE(has_all(std::string(e.what()), {"unknown symbol 'K'", "at column 5"}));
  }
  EXPECT_THROW(check_expression("M *", {"M"}), usage_error);
}

}  // namespace
}  // namespace kjudge
