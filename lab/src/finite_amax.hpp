// The amax every libnum scale rule uses, for lab's scaled recipes. Internal to lab.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace lab {

// The largest finite |x| (0 for none): the amax every libnum scale rule uses.
// Compared as the bits of |x| (finite ones below those of +inf), an integer
// maximum the compiler vectorises where a float one would need -ffast-math.
inline float finite_amax(const float* x, std::size_t rows, std::size_t cols, std::size_t ld) {
  constexpr std::uint32_t magnitude = 0x7FFFFFFFu, infinity = 0x7F800000u;
  std::uint32_t amax = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x + r * ld;
    for (std::size_t c = 0; c < cols; ++c) {
      const std::uint32_t m = std::bit_cast<std::uint32_t>(row[c]) & magnitude;
      amax = std::max(amax, m < infinity ? m : 0u);
    }
  }
  return std::bit_cast<float>(amax);
}

}  // namespace lab
