#include "inputs/perturbation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace kjudge {

std::vector<std::size_t> perturbed_indices(std::uint64_t perturb, int input_index, std::size_t numel) {
  std::vector<std::size_t> idx;
  if (perturb == 0 || numel == 0) return idx;
  const std::size_t k = std::min(perturbed_elements, numel);
  const std::uint64_t key = mix_seed(perturb, static_cast<std::uint64_t>(input_index) + 1);
  for (std::size_t j = 0; idx.size() < k && j < 4 * k; ++j) {
    const std::size_t i = static_cast<std::size_t>(mix_seed(key, j) % numel);
    if (std::find(idx.begin(), idx.end(), i) == idx.end()) idx.push_back(i);
  }
  return idx;
}

std::vector<std::size_t> perturbed_indices(std::uint64_t perturb, int input_index, const tensor_desc& d,
                                           matrix_structure s) {
  std::vector<std::size_t> raw = perturbed_indices(perturb, input_index, d.numel());
  if (s == matrix_structure::none) return raw;
  std::vector<std::size_t> idx;
  auto add = [&idx](std::size_t i) {
    if (std::find(idx.begin(), idx.end(), i) == idx.end()) idx.push_back(i);
  };
  for (const std::size_t i : raw) {
    add(structured_index(i, d, s));
    if (s == matrix_structure::symmetric) add(mirror_index(i, d));
  }
  return idx;
}

double perturbed_value(double v, dtype t, const std::optional<int_range>& range, const std::vector<double>& values) {
  if (!values.empty()) {
    // v is one of the values rounded to t: the nearest one is its own; the next distinct one
    // (in the list's order, wrapping) replaces it.
    std::size_t at = 0;
    for (std::size_t k = 1; k < values.size(); ++k)
      if (std::fabs(values[k] - v) < std::fabs(values[at] - v)) at = k;
    for (std::size_t step = 1; step < values.size(); ++step) {
      const double next = values[(at + step) % values.size()];
      if (next != values[at]) return next;
    }
    return v;
  }
  if (is_float(t)) return std::isfinite(v) ? v + 1.0 + std::fabs(v) : v;
  const int_range r = range.value_or(default_int_range(t));
  if (r.lo == r.hi) return v;
  return v >= static_cast<double>(r.hi) ? static_cast<double>(r.lo) : v + 1.0;
}

void apply_perturbation(host_tensor& t, std::uint64_t perturb, int input_index, const std::optional<int_range>& range,
                        matrix_structure structure, const std::vector<double>& values) {
  for (const std::size_t i : perturbed_indices(perturb, input_index, t.desc(), structure)) {
    const double v = t.get(i);
    if (std::isfinite(v)) t.set(i, perturbed_value(v, t.desc().type, range, values));
  }
}

}  // namespace kjudge
