// Matrix profiles: input distributions over the square matrices in a tensor's last two dimensions
// (a batch of matrices before them), for problems on matrices whose conditioning matters (a QR
// judged by backward error, problems/batched_qr). They follow the profiles of GPU MODE's qr_v2
// competition problem, regenerated from their mathematical description with the suite's counter
// generator: every matrix starts as N(0,1) (the `normal` draw of the same seed) and each profile
// reshapes it. With s_j = 10^(-c j / (n-1)) (logspace(0, -c, n), 1 for n = 1):
//   cond1, cond2, cond4  dense: column j multiplied by s_j with c = 1, 2, 4
//   uppertri   the upper triangle, diagonal + linspace(1, 0.25, n)
//   rankdef    columns j >= r = max(1, floor(3n/4)) zero: rank min(r, n)
//   nearrank   column j >= r = column j - r + 1e-5 N(0,1): numerically rank r
//   clustered  columns j < n/2 unit, j >= n/2 scaled by 4 eps32; for n >= 8, columns
//              [n/2 - 2, n/2 + 2) scaled by sqrt(eps32) (eps32 = 2^-23)
//   band       zero outside |i - j| <= w = max(2, min(32, floor(n/32))), diagonal +
//              linspace(1, 0.5, n)
//   rowscale   row i multiplied by 10^(-4 i / (n-1))
//   nearcollinear  every column = one N(0,1) column + 1e-4 N(0,1)
//   mixed      each matrix independently one of dense (weight 6) and rankdef, nearrank, clustered,
//              band, rowscale, nearcollinear (weight 1 each), with qr_v2's mixed cond = 2: column
//              scaling by s_j (c = 2) on dense, rankdef, nearrank, band and nearcollinear
//              matrices, rows by 10^(-4 i / (n-1)) on rowscale ones; a batch of >= 2 matrices
//              holds at least one dense and one other matrix.
// Values depend only on (seed, shape, profile): any machine and compiler give the same bytes.
// Unlike the elementwise distributions, a matrix profile is not a prefix of a larger tensor's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.hpp"
#include "inputs/matrix_profile_shape.hpp"

namespace kjudge {

const std::vector<std::string>& matrix_profiles();
bool is_matrix_profile(std::string_view name);

// Fills the floating tensor `t` (square matrices in its last two dimensions, else usage_error)
// with `profile`'s matrices drawn from `seed` (the seed fill_distribution takes).
void fill_matrix_profile(host_tensor& t, std::string_view profile, std::uint64_t seed);

// What turns a tensor's N(0,1) draw (fill_distribution(t, "normal", seed, 0)) into `profile`'s
// matrices: fixed on the host, then applied element by element by shape_profile_element, on the
// host (fill_matrix_profile) or on the device (the cuda backend's generator), to the same bytes.
struct matrix_profile_plan {
  std::size_t n = 0;                  // matrix order
  std::size_t batch = 0;              // matrices in the tensor
  std::vector<profile_label> labels;  // per matrix
  // n values each (profile_shape names them); empty where no matrix uses them
  std::vector<double> col_scale, row_scale, clustered_scale, diag_upper, diag_band;
  std::size_t rank = 0;
  std::size_t band_w = 0;
  int cond = 0;
  bool needs_noise = false;      // some matrix reads the second draw ...
  std::uint64_t noise_seed = 0;  // ... fill_distribution(e, "normal", noise_seed, 0)
  profile_shape view() const;
};

// The plan of `profile` for tensors of descriptor `d` drawn from `seed`; usage_error for an
// unknown profile or matrices that are not square.
matrix_profile_plan plan_matrix_profile(const tensor_desc& d, std::string_view profile, std::uint64_t seed);

// The profile each of the `batch` matrices of a `mixed` tensor of this seed draws.
std::vector<std::string> mixed_profile_labels(std::size_t batch, std::uint64_t seed);

}  // namespace kjudge
