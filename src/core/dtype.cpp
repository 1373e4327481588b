#include "core/dtype.hpp"

#include <cmath>

namespace kjudge {

std::string_view dtype_name(dtype t) {
  switch (t) {
    case dtype::f32:
      return "f32";
    case dtype::f64:
      return "f64";
    case dtype::f16:
      return "f16";
    case dtype::bf16:
      return "bf16";
    case dtype::i32:
      return "i32";
    case dtype::i64:
      return "i64";
    case dtype::u8:
      return "u8";
    case dtype::boolean:
      return "bool";
  }
  return "?";
}

std::optional<dtype> parse_dtype(std::string_view n) {
  if (n == "f32" || n == "float32") return dtype::f32;
  if (n == "f64" || n == "float64") return dtype::f64;
  if (n == "f16" || n == "float16") return dtype::f16;
  if (n == "bf16" || n == "bfloat16") return dtype::bf16;
  if (n == "i32" || n == "int32") return dtype::i32;
  if (n == "i64" || n == "int64") return dtype::i64;
  if (n == "u8" || n == "uint8") return dtype::u8;
  if (n == "bool") return dtype::boolean;
  return std::nullopt;
}

std::size_t dtype_size(dtype t) {
  switch (t) {
    case dtype::f64:
    case dtype::i64:
      return 8;
    case dtype::f32:
    case dtype::i32:
      return 4;
    case dtype::f16:
    case dtype::bf16:
      return 2;
    case dtype::u8:
    case dtype::boolean:
      return 1;
  }
  return 0;
}

bool is_float(dtype t) {
  return t == dtype::f32 || t == dtype::f64 || t == dtype::f16 || t == dtype::bf16;
}

double dtype_epsilon(dtype t) {
  switch (t) {
    case dtype::f64:
      return 0x1p-53;
    case dtype::f32:
      return 0x1p-24;
    case dtype::f16:
      return 0x1p-11;
    case dtype::bf16:
      return 0x1p-8;
    default:
      return 0.0;
  }
}

std::uint16_t float_to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  const std::uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>((u + rounding) >> 16);
}

std::uint16_t float_to_f16(float f) {
  // IEEE binary16 with round-to-nearest-even, subnormals and overflow to infinity.
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);
  if (abs >= 0x47800000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65536 -> inf
  if (abs < 0x38800000u) {                   // below the smallest normal half: subnormal or zero
    const float a = std::fabs(f) * 0x1p24f;  // in units of the smallest subnormal
    const float r = std::nearbyint(a);       // current rounding mode: nearest-even
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(r));
  }
  const std::uint32_t mant_round = abs + 0xfffu + ((abs >> 13) & 1u);
  const std::uint32_t h = (mant_round - 0x38000000u) >> 13;
  return static_cast<std::uint16_t>(sign | (h > 0x7c00u ? 0x7c00u : h));
}

float f16_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  float out;
  if (exp == 0) {
    out = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -out : out;
  }
  std::uint32_t u;
  if (exp == 31)
    u = sign | 0x7f800000u | (mant << 13);
  else
    u = sign | ((exp + 112u) << 23) | (mant << 13);
  std::memcpy(&out, &u, 4);
  return out;
}

double load_as_double(const void* data, dtype t, std::size_t i) {
  switch (t) {
    case dtype::f32:
      return static_cast<const float*>(data)[i];
    case dtype::f64:
      return static_cast<const double*>(data)[i];
    case dtype::f16:
      return f16_to_float(static_cast<const std::uint16_t*>(data)[i]);
    case dtype::bf16:
      return bf16_to_float(static_cast<const std::uint16_t*>(data)[i]);
    case dtype::i32:
      return static_cast<const std::int32_t*>(data)[i];
    case dtype::i64:
      return static_cast<double>(static_cast<const std::int64_t*>(data)[i]);
    case dtype::u8:
      return static_cast<const std::uint8_t*>(data)[i];
    case dtype::boolean:
      return static_cast<const std::uint8_t*>(data)[i] ? 1.0 : 0.0;
  }
  return 0.0;
}

void store_from_double(void* data, dtype t, std::size_t i, double v) {
  switch (t) {
    case dtype::f32:
      static_cast<float*>(data)[i] = static_cast<float>(v);
      break;
    case dtype::f64:
      static_cast<double*>(data)[i] = v;
      break;
    case dtype::f16:
      static_cast<std::uint16_t*>(data)[i] = float_to_f16(static_cast<float>(v));
      break;
    case dtype::bf16:
      static_cast<std::uint16_t*>(data)[i] = float_to_bf16(static_cast<float>(v));
      break;
    case dtype::i32:
      static_cast<std::int32_t*>(data)[i] = static_cast<std::int32_t>(v);
      break;
    case dtype::i64:
      static_cast<std::int64_t*>(data)[i] = static_cast<std::int64_t>(v);
      break;
    case dtype::u8:
      static_cast<std::uint8_t*>(data)[i] = static_cast<std::uint8_t>(v);
      break;
    case dtype::boolean:
      static_cast<std::uint8_t*>(data)[i] = v != 0.0;
      break;
  }
}

}  // namespace kjudge
