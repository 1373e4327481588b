// Poison: the bit patterns written into every output element before a call, so that an element
// never written is seen afterwards (the worker writes them; the oracle looks for them).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dtype.hpp"

namespace kjudge {

// Bit pattern written into every float output element before a call; an element still holding
// it afterwards was never written. A quiet NaN with a payload no arithmetic produces.
inline constexpr std::uint32_t poison_f32_bits = 0x7fc0dead;
inline constexpr std::uint64_t poison_f64_bits = 0x7ff80000deadbeefULL;
inline constexpr std::uint16_t poison_16_bits = 0x7fd7;  // bf16 and f16 quiet NaN, payload
inline constexpr std::uint8_t poison_int_byte = 0xa5;    // every byte of integer outputs
void poison_buffer(void* data, dtype t, std::size_t numel);
bool is_poison(const void* data, dtype t, std::size_t i);

}  // namespace kjudge
