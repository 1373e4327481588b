// Element types shared by the controller and the workers; mirrors kj_dtype of the candidate ABI.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "kjudge/candidate.h"

namespace kjudge {

enum class dtype : int {
  f32 = KJ_F32,
  f64 = KJ_F64,
  f16 = KJ_F16,
  bf16 = KJ_BF16,
  i32 = KJ_I32,
  i64 = KJ_I64,
  u8 = KJ_U8,
  boolean = KJ_BOOL
};

std::string_view dtype_name(dtype t);                     // "f32", "bf16", ...
std::optional<dtype> parse_dtype(std::string_view name);  // accepts the names above
std::size_t dtype_size(dtype t);                          // bytes per element
bool is_float(dtype t);
// Unit roundoff (half an ulp at 1.0) of a floating type; 0 for integers.
double dtype_epsilon(dtype t);

// Round-to-nearest-even conversions; NaN stays NaN (quiet).
std::uint16_t float_to_bf16(float f);
// Exact (bf16 is the upper half of an f32); inline because the oracle's loops call it per element.
inline float bf16_to_float(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}
std::uint16_t float_to_f16(float f);
float f16_to_float(std::uint16_t h);

// Reads element i of a buffer of type t as double, and writes a double (rounded to t).
double load_as_double(const void* data, dtype t, std::size_t i);
void store_from_double(void* data, dtype t, std::size_t i, double v);

}  // namespace kjudge
