// Integer/float arithmetic formulas over named symbols, for shapes and cost models:
// numbers, identifiers, + - * / %, parentheses, comparisons (< <= > >= == !=), && || !,
// and the functions min(a,b), max(a,b), ceil_div(a,b). Evaluated in double; shape users round.
#pragma once

#include <map>
#include <set>
#include <string>

namespace kjudge {

// Throws usage_error("expression '<text>': <what was expected> at column <c>") on syntax errors
// and on unknown symbols.
double evaluate_expression(const std::string& text, const std::map<std::string, double>& symbols);

// Syntax check without values: throws the same usage_error for syntax errors and for symbols not
// in `known_symbols`; division by zero cannot be detected here and is not reported.
void check_expression(const std::string& text, const std::set<std::string>& known_symbols);

}  // namespace kjudge
