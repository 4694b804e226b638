// num::any_non_finite: a branch-free OR over the exponent fields, which GCC
// and clang vectorise at -O2 and up for whatever SIMD width the target has.
#include <bit>
#include <cstdint>

#include "libnum/array.hpp"

namespace num {

bool any_non_finite(std::span<const float> values) {
  constexpr std::uint32_t exponent_field = 0x7F800000u;
  std::uint32_t hit = 0;
  for (const float v : values)
    hit |= static_cast<std::uint32_t>((std::bit_cast<std::uint32_t>(v) & exponent_field) == exponent_field);
  return hit != 0;
}

}  // namespace num
