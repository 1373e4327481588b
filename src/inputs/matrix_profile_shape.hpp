// How a matrix profile (inputs/matrix_profiles.hpp) reshapes one element of a batch's N(0,1)
// draw: the one definition that the host's fill_matrix_profile and the device generator
// (cuda/generate.cu) both call, so that a profile drawn on the GPU has the host's bytes.
//
// Every value is computed in double with one IEEE operation at a time (+ and * correctly rounded
// on both sides) from values fixed on the host (the plan's vectors) and the draws; the includers
// keep a*b+c as two roundings (matrix_profiles.cpp: fp-contract off; generate.cu: -fmad=false).
// Header-only and plain C++ so that nvcc compiles the same text for the device.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define KJ_PROFILE_HD __host__ __device__
#else
#define KJ_PROFILE_HD
#endif

namespace kjudge {

// The profile of one matrix (a mixed batch gives each matrix its own).
enum class profile_label : std::uint8_t {
  dense,
  uppertri,
  rankdef,
  nearrank,
  clustered,
  band,
  rowscale,
  nearcollinear
};

// Views of a plan's per-row and per-column factors (n values each) and its scalars.
struct profile_shape {
  const double* col_scale = nullptr;        // s_j = 10^(-cond j / (n-1)), applied where cond != 0
  const double* row_scale = nullptr;        // rowscale: 10^(-max(cond, 4) i / (n-1))
  const double* clustered_scale = nullptr;  // clustered's column factors
  const double* diag_upper = nullptr;       // uppertri's diagonal: linspace(1, 0.25, n)
  const double* diag_band = nullptr;        // band's diagonal: linspace(1, 0.5, n)
  std::size_t n = 0;
  std::size_t rank = 0;    // rankdef, nearrank: columns from here on are replaced
  std::size_t band_w = 0;  // band: |i - j| <= band_w kept
  int cond = 0;            // decades of the column scaling (0: none)
};

// Whether a matrix of this profile reads the second, independent N(0,1) draw.
KJ_PROFILE_HD inline bool profile_needs_noise(profile_label l) {
  return l == profile_label::nearrank || l == profile_label::nearcollinear;
}

// Element (i, j) of a matrix of profile `l`, from the draw's a = z[i][j], first = z[i][0],
// back = z[i][j - rank] (read only where j >= rank) and the noise e = e[i][j] (read only where
// the profile needs noise). The values are those of the draw before any reshaping.
KJ_PROFILE_HD inline double shape_profile_element(const profile_shape& p, profile_label l, std::size_t i, std::size_t j,
                                                  double a, double first, double back, double e) {
  double v = a;
  switch (l) {
    case profile_label::dense:
      break;
    case profile_label::uppertri:
      if (i > j) v = 0.0;
      if (i == j) v = v + p.diag_upper[i];
      break;
    case profile_label::rankdef:
      if (j >= p.rank) v = 0.0;
      break;
    case profile_label::nearrank:
      if (j >= p.rank) v = back + 1e-5 * e;
      break;
    case profile_label::clustered:
      return v * p.clustered_scale[j];
    case profile_label::band:
      if ((i > j ? i - j : j - i) > p.band_w) v = 0.0;
      if (i == j) v = v + p.diag_band[i];
      break;
    case profile_label::rowscale:
      return v * p.row_scale[i];
    case profile_label::nearcollinear:
      v = first + 1e-4 * e;
      break;
  }
  return p.cond != 0 ? v * p.col_scale[j] : v;
}

}  // namespace kjudge

#undef KJ_PROFILE_HD
