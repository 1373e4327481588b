#include "inputs/poison.hpp"

#include <cstring>

namespace kjudge {

namespace {

template <typename T>
void fill_bits(void* data, std::size_t numel, T bits) {
  auto* p = static_cast<unsigned char*>(data);
  for (std::size_t i = 0; i < numel; ++i) std::memcpy(p + i * sizeof(T), &bits, sizeof(T));
}

template <typename T>
bool has_bits(const void* data, std::size_t i, T bits) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(data) + i * sizeof(T), sizeof(T));
  return v == bits;
}

}  // namespace

void poison_buffer(void* data, dtype t, std::size_t numel) {
  switch (t) {
    case dtype::f32:
      fill_bits(data, numel, poison_f32_bits);
      return;
    case dtype::f64:
      fill_bits(data, numel, poison_f64_bits);
      return;
    case dtype::f16:
    case dtype::bf16:
      fill_bits(data, numel, poison_16_bits);
      return;
    case dtype::i32:
    case dtype::i64:
    case dtype::u8:
    case dtype::boolean:
      std::memset(data, poison_int_byte, numel * dtype_size(t));
      return;
  }
}

bool is_poison(const void* data, dtype t, std::size_t i) {
  switch (t) {
    case dtype::f32:
      return has_bits(data, i, poison_f32_bits);
    case dtype::f64:
      return has_bits(data, i, poison_f64_bits);
    case dtype::f16:
    case dtype::bf16:
      return has_bits(data, i, poison_16_bits);
    case dtype::i32:
    case dtype::i64:
    case dtype::u8:
    case dtype::boolean: {
      const std::size_t size = dtype_size(t);
      const auto* p = static_cast<const unsigned char*>(data) + i * size;
      for (std::size_t b = 0; b < size; ++b) {
        if (p[b] != poison_int_byte) return false;
      }
      return true;
    }
  }
  return false;
}

}  // namespace kjudge
