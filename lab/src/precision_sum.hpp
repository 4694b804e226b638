// One exact addition prepared for a single rounding into a narrow format.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace lab::detail {

/// x + y rounded to odd in double: the exact sum where double holds it, else
/// the neighbour with an odd last bit (TwoSum gives the exact error). Double
/// has 53 >= p + 2 bits for every format libnum supports, so rounding this
/// value once more into the format, in any mode (stochastic with r <= 32
/// random bits included), equals rounding the exact sum x + y.
inline double sum_to_odd(double x, double y) {
  const double s = x + y;
  if (!std::isfinite(s)) return s;
  const double bb = s - x;
  const double e = (x - (s - bb)) + (y - bb);
  auto bits = std::bit_cast<std::uint64_t>(s);
  if (e != 0.0 && (bits & 1u) == 0) bits += (std::signbit(e) == std::signbit(s)) ? 1 : ~std::uint64_t{0};
  return std::bit_cast<double>(bits);
}

}  // namespace lab::detail
