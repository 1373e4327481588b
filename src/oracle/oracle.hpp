// The oracle (DESIGN.md §3): compares a candidate's output with the float64 reference, allowing
// for the conditioning of the problem through a trusted reference computed in the candidate's
// own dtype. Runs in the controller, never in the candidate's process.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.hpp"
#include "inputs/poison.hpp"
#include "problem/spec.hpp"

namespace kjudge {

struct element_report {
  std::size_t index = 0;
  std::vector<std::int64_t> coords;
  double out = 0.0;
  double ref = 0.0;       // float64 reference
  double ref_same = 0.0;  // reference in the candidate's dtype
  double abs_err = 0.0;
  double rel_err = 0.0;
  double allowed = 0.0;
};

struct compare_result {
  bool pass = true;
  std::string reason;  // empty on pass; e.g. "12 elements outside tolerance"
  std::string output_name;
  double max_abs_err = 0.0;
  double max_rel_err = 0.0;
  double norm_rel_err = 0.0;  // ||out - ref|| / ||ref||
  double norm_allowed = 0.0;
  std::size_t n_bad = 0;        // elements outside the elementwise bound
  std::size_t n_unwritten = 0;  // elements still holding the poison pattern
  std::size_t n_nan_mismatch = 0;
  std::optional<element_report> worst;  // the element with the largest err/allowed
};

// The per-element error envelope (output units), see error_envelope. Every element of a row
// (the last-dimension slice, or one element for element-wise outputs) has the same value, so it
// is kept per row: the per-element form of
// an 8192 x 8192 output was 512 MiB allocated, page-faulted and written on every recheck. The
// exceptions are the elements at a kink (see error_envelope): their indices, ascending, and the
// tensor's typical row error that lifts them.
class envelope_values {
 public:
  envelope_values() = default;
  envelope_values(std::size_t numel, std::size_t row_len, std::vector<double> per_row, double kink_floor = 0.0,
                  std::vector<std::size_t> kinked = {})
      : m_numel(numel),
        m_row_len(row_len == 0 ? 1 : row_len),
        m_per_row(std::move(per_row)),
        m_kink_floor(kink_floor),
        m_kinked(std::move(kinked)) {}
  [[nodiscard]] std::size_t size() const { return m_numel; }
  [[nodiscard]] std::size_t row_length() const { return m_row_len; }
  [[nodiscard]] double row(std::size_t r) const { return m_per_row[r]; }
  [[nodiscard]] double kink_floor() const { return m_kink_floor; }
  // Ascending element indices whose envelope is max(row, kink_floor).
  [[nodiscard]] const std::vector<std::size_t>& kinked() const { return m_kinked; }
  // Element i's envelope (a binary search among the kinked: for tests and reports, not loops).
  double operator[](std::size_t i) const;

 private:
  std::size_t m_numel = 0;
  std::size_t m_row_len = 1;
  std::vector<double> m_per_row;
  double m_kink_floor = 0.0;
  std::vector<std::size_t> m_kinked;
};

// Compares one output tensor against the float64 reference, with error_envelope({ref_same}) as the
// envelope (see compare_output_envelope).
// NaN/Inf must appear exactly where the reference has them (same sign for Inf).
compare_result compare_output(const host_tensor& out, const host_tensor& ref64, const host_tensor& ref_same,
                              const tolerance& tol, double k);

// The same comparison with an explicit per-element error envelope (output units): the elementwise
// bound is max(atol + rtol*|ref_i|, k * envelope_i) and the norm bound
// max(rtol, k * ||envelope|| / ||ref||). The judge builds the envelope from the same-dtype
// reference run on the exact inputs and on copies perturbed by one ulp (error_envelope): an
// honest kernel in that dtype is backward stable, i.e. exact for inputs perturbed by a few ulps,
// so its error is of the size of those runs' errors element by element, wherever the
// conditioning of the element puts it.
compare_result compare_output_envelope(const host_tensor& out, const host_tensor& ref64, const host_tensor& ref_same,
                                       const envelope_values& envelope, const tolerance& tol, double k);

// The oracle's error envelope (output units). e_i = the largest |run_i - ref64_i| over the given
// same-dtype runs (non-finite pairs: 0); E_r = max of e over row r (the last-dimension slice:
// rows share their intermediates); s_r = max |ref64| over the row; q = the lower median over rows
// of E_r / s_r. Every element of row r gets max(E_r, q * s_r): a row where the reference's own
// rounding was small by luck is lifted to the typical same-dtype error at its scale.
// group_length: the elements that share an envelope, consecutive (0: the last dimension's rows;
// 1: every element alone, for an element-wise output: tensor_spec::envelope_group). Row-wise, a
// small element of a row that holds large ones may err by the large ones' error; element-wise, by
// its own (tanh-approximated GELU erred by 116% on small elements of a `wide` case and passed
// row-wise).
envelope_values error_envelope(const host_tensor& ref64, const std::vector<const host_tensor*>& same_dtype_runs,
                               std::size_t group_length = 0);

// Describes how two runs of the candidate on the same inputs differ (determinism). It judges
// nothing: each run is judged against the reference by compare_output, since a flat tolerance
// between the two rejected pairs of runs that each pass (docs/notebook/2026-12-06-nondeterminism.md).
struct determinism_result {
  bool bitwise_equal = true;
  double max_abs_diff = 0.0;  // infinite where a non-finite value differs (two NaNs agree)
  std::size_t first_diff_index = 0;
};
determinism_result compare_runs(const host_tensor& a, const host_tensor& b);

}  // namespace kjudge
