#include "problem/expr.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "core/error.hpp"

namespace kjudge {
namespace detail {
namespace {

// Recursive descent, one function per precedence level, lowest first:
//   or  := and ('||' and)*
//   and := cmp ('&&' cmp)*
//   cmp := add (('<' | '<=' | '>' | '>=' | '==' | '!=') add)*
//   add := mul (('+' | '-') mul)*
//   mul := unary (('*' | '/' | '%') unary)*
//   unary := ('-' | '+' | '!') unary | primary
//   primary := number | identifier | identifier '(' args ')' | '(' or ')'
// Both operands of && and || are always parsed (and so checked) even when the left one decides.
class parser {
 public:
  // `lookup` is null in check-only mode: every known symbol evaluates to 1 and arithmetic
  // faults (division by zero) are not reported, so a spec can be validated without values.
  parser(std::string_view text, const std::map<std::string, double>* values, const std::set<std::string>* known)
      : m_text(text), m_values(values), m_known(known) {}

  double parse() {
    skip_space();
    if (m_pos >= m_text.size()) fail("an expression", m_pos);
    const double v = parse_or();
    skip_space();
    if (m_pos < m_text.size()) fail("an operator or the end of the expression", m_pos);
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& expected, std::size_t pos) const {
    std::string found;
    if (pos >= m_text.size()) {
      found = "the end of the expression";
    } else {
      found = "'" + std::string(1, m_text[pos]) + "'";
    }
    throw usage_error("expression '" + std::string(m_text) + "': expected " + expected + " at column " +
                      std::to_string(pos + 1) + ", found " + found);
  }

  [[noreturn]] void fail_message(const std::string& message, std::size_t pos) const {
    throw usage_error("expression '" + std::string(m_text) + "': " + message + " at column " + std::to_string(pos + 1));
  }

  void skip_space() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
  }

  // Consumes `op` if it is next (after spaces), refusing a prefix of a longer operator so that
  // '<' does not eat the start of '<='.
  bool accept(std::string_view op) {
    skip_space();
    if (m_text.substr(m_pos, op.size()) != op) return false;
    if (op.size() == 1 && m_pos + 1 < m_text.size()) {
      const char next = m_text[m_pos + 1];
      if ((op == "<" || op == ">" || op == "!") && next == '=') return false;
    }
    m_pos += op.size();
    return true;
  }

  static bool truthy(double v) { return v != 0.0; }

  double parse_or() {
    double v = parse_and();
    while (accept("||")) {
      const double r = parse_and();
      v = (truthy(v) || truthy(r)) ? 1.0 : 0.0;
    }
    return v;
  }

  double parse_and() {
    double v = parse_cmp();
    while (accept("&&")) {
      const double r = parse_cmp();
      v = (truthy(v) && truthy(r)) ? 1.0 : 0.0;
    }
    return v;
  }

  double parse_cmp() {
    double v = parse_add();
    for (;;) {
      if (accept("<="))
        v = v <= parse_add() ? 1.0 : 0.0;
      else if (accept(">="))
        v = v >= parse_add() ? 1.0 : 0.0;
      else if (accept("=="))
        v = v == parse_add() ? 1.0 : 0.0;
      else if (accept("!="))
        v = v != parse_add() ? 1.0 : 0.0;
      else if (accept("<"))
        v = v < parse_add() ? 1.0 : 0.0;
      else if (accept(">"))
        v = v > parse_add() ? 1.0 : 0.0;
      else
        return v;
    }
  }

  double parse_add() {
    double v = parse_mul();
    for (;;) {
      if (accept("+"))
        v += parse_mul();
      else if (accept("-"))
        v -= parse_mul();
      else
        return v;
    }
  }

  double parse_mul() {
    double v = parse_unary();
    for (;;) {
      skip_space();
      const std::size_t op_pos = m_pos;
      if (accept("*")) {
        v *= parse_unary();
      } else if (accept("/")) {
        const double r = parse_unary();
        v = checked_divisor(r, op_pos) ? v / r : 1.0;
      } else if (accept("%")) {
        const double r = parse_unary();
        v = checked_divisor(r, op_pos) ? std::fmod(v, r) : 1.0;
      } else {
        return v;
      }
    }
  }

  // False only in check-only mode, where the value does not matter.
  bool checked_divisor(double r, std::size_t op_pos) const {
    if (r != 0.0) return true;
    if (m_values == nullptr) return false;
    fail_message("division by zero", op_pos);
  }

  double parse_unary() {
    if (accept("-")) return -parse_unary();
    if (accept("+")) return parse_unary();
    if (accept("!")) return truthy(parse_unary()) ? 0.0 : 1.0;
    return parse_primary();
  }

  double parse_primary() {
    skip_space();
    if (m_pos >= m_text.size()) fail("a number, a symbol, a function call or '('", m_pos);
    const char c = m_text[m_pos];
    if (c == '(') {
      ++m_pos;
      const double v = parse_or();
      if (!accept(")")) fail("')'", m_pos);
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return parse_number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return parse_identifier();
    fail("a number, a symbol, a function call or '('", m_pos);
  }

  double parse_number() {
    // strtod on a bounded copy: accepts 12, 1.5, .5, 1e-5; rejects hex and inf/nan spellings
    // because only digits, '.', 'e', and an exponent sign are copied.
    const std::size_t start = m_pos;
    std::size_t end = m_pos;
    while (end < m_text.size() && (std::isdigit(static_cast<unsigned char>(m_text[end])) || m_text[end] == '.')) ++end;
    if (end < m_text.size() && (m_text[end] == 'e' || m_text[end] == 'E')) {
      std::size_t e = end + 1;
      if (e < m_text.size() && (m_text[e] == '+' || m_text[e] == '-')) ++e;
      if (e < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[e]))) {
        while (e < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[e]))) ++e;
        end = e;
      }
    }
    const std::string token(m_text.substr(start, end - start));
    char* stop = nullptr;
    const double v = std::strtod(token.c_str(), &stop);
    if (stop != token.c_str() + token.size()) fail("a number", start);
    m_pos = end;
    if (m_pos < m_text.size() && (std::isalpha(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_')) {
      fail("an operator after the number", m_pos);
    }
    return v;
  }

  double parse_identifier() {
    const std::size_t start = m_pos;
    while (m_pos < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_')) {
      ++m_pos;
    }
    const std::string name(m_text.substr(start, m_pos - start));
    skip_space();
    if (m_pos < m_text.size() && m_text[m_pos] == '(') return parse_call(name, start);
    if (m_values != nullptr) {
      const auto it = m_values->find(name);
      if (it == m_values->end()) fail_message("unknown symbol '" + name + "'", start);
      return it->second;
    }
    if (m_known != nullptr && m_known->count(name) == 0) {
      fail_message("unknown symbol '" + name + "'", start);
    }
    return 1.0;
  }

  double parse_call(const std::string& name, std::size_t start) {
    if (name != "min" && name != "max" && name != "ceil_div") {
      fail_message("unknown function '" + name + "' (known: min, max, ceil_div)", start);
    }
    ++m_pos;  // '('
    const double a = parse_or();
    if (!accept(",")) fail("',' (" + name + " takes two arguments)", m_pos);
    const double b = parse_or();
    if (!accept(")")) fail("')' (" + name + " takes two arguments)", m_pos);
    if (name == "min") return a < b ? a : b;
    if (name == "max") return a > b ? a : b;
    if (b == 0.0) {
      if (m_values == nullptr) return 1.0;
      fail_message("ceil_div by zero", start);
    }
    return std::ceil(a / b);
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
  const std::map<std::string, double>* m_values;
  const std::set<std::string>* m_known;
};

}  // namespace
}  // namespace detail

double evaluate_expression(const std::string& text, const std::map<std::string, double>& symbols) {
  return detail::parser(text, &symbols, nullptr).parse();
}

void check_expression(const std::string& text, const std::set<std::string>& known_symbols) {
  detail::parser(text, nullptr, &known_symbols).parse();
}

}  // namespace kjudge
