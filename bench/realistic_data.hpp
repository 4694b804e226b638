// The input the conversion benchmarks share: 16M fp32 values whose magnitudes
// are log-uniform over 2^-30 .. 2^10 with random signs, so every rounding path
// (normal, subnormal, underflow, overflow of the small formats) is exercised.
// Generated once per process, outside any timed loop.
#pragma once

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace bench {

inline constexpr std::size_t realistic_size = std::size_t{1} << 24;

inline const std::vector<float>& realistic_data() {
  static const std::vector<float> data = [] {
    std::mt19937 rng(2024);
    std::uniform_real_distribution<double> exponent(-30.0, 10.0);
    std::vector<float> v(realistic_size);
    for (float& x : v) x = static_cast<float>((rng() % 2 ? -1.0 : 1.0) * std::exp2(exponent(rng)));
    return v;
  }();
  return data;
}

}  // namespace bench
