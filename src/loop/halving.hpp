// The autotune proposer's pure parts: candidate templates that declare parameters
// (`// kj-param: NAME = v1, v2, ...`), their configurations, and successive halving over them
// (judge many configurations with a small timing budget, keep the best 1/eta, re-judge the
// survivors with eta times the budget, until one is left, judged with the full budget).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kjudge::loop {

struct template_param {
  std::string name;
  std::vector<std::string> values;  // the first value is the template's default (naive) choice
  long line = 0;
};

struct tuning_template {
  std::filesystem::path path;  // absolute
  std::string text;
  std::string sha256;
  std::vector<template_param> params;
};

// Reads a template. Throws usage_error "file:line: ..." for a malformed kj-param line (bad name,
// no values, duplicate name or value) and "file: declares no kj-param" when there is none.
tuning_template parse_template(const std::filesystem::path& file);
tuning_template parse_template_text(const std::filesystem::path& name, const std::string& text);

// A configuration: one value index per parameter, in declaration order.
using config = std::vector<std::size_t>;

std::size_t config_space_size(const tuning_template& t);
// "BLOCK=16 UNROLL=4"
std::string config_key(const tuning_template& t, const config& c);
// The configuration a key names; nullopt if it does not name one of the template's.
std::optional<config> config_from_key(const tuning_template& t, const std::string& key);

// The source judged for a configuration: one #define per parameter and KJ_AUTOTUNE_CONFIG (the
// key as a string literal, for kj_info notes), then the template under a #line directive so
// compiler messages point into the template.
std::string instantiate(const tuning_template& t, const config& c);

// The configurations of the first rung: all of them when the space holds at most `max_configs`,
// else a sample of that size drawn with `seed` that always holds the default configuration.
std::vector<config> initial_configs(const tuning_template& t, std::size_t max_configs, std::uint64_t seed);

// Successive halving.
struct halving_params {
  double eta = 2.0;  // survivors per rung: ceil(n / eta)
};

struct rung_result {
  std::string key;
  bool correct = false;
  double score = 0.0;  // higher is better (autotune: 1 / candidate time)
};

struct rung_plan {
  int rung = 0;
  int planned_rungs = 1;  // for rung budgets: the rung count of a full run from `initial` configs
  std::vector<std::string> keys;
  double budget_fraction = 1.0;  // of the full judge budget: eta^-(planned_rungs - 1 - rung)
};

// Rungs of a run starting from n configurations: n, ceil(n/eta), ..., 1.
int planned_rungs(std::size_t n, double eta);

// The next rung given the finished ones (`done[r]` = results of rung r, in any order), or
// nullopt when the search is over: the last rung held one configuration, or no configuration of
// the last rung was correct. Survivors are the ceil(n/eta) best correct ones, ties broken by key.
std::optional<rung_plan> next_rung(const std::vector<std::string>& initial,
                                   const std::vector<std::vector<rung_result>>& done, const halving_params& p);

}  // namespace kjudge::loop
