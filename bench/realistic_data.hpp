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

// A scaled-recipe trainer's GEMM operands as their blocks see them: in each
// run of 32 values one large value (magnitude 2^-10 .. 2^10) and the rest
// 2^-10 .. 2^-20 below it, subnormal in the element format or flushed by the
// block's scale; one value in 8 is zero (ReLU). realistic_size values.
inline const std::vector<float>& operand_data() {
  static const std::vector<float> data = [] {
    std::mt19937 rng(2025);
    std::uniform_real_distribution<double> large(-10.0, 10.0), below(10.0, 20.0);
    std::vector<float> v(realistic_size);
    double top = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i % 32 == 0) top = large(rng);
      const double e = i % 32 == rng() % 32 ? top : top - below(rng);
      const double sign = rng() % 2 ? -1.0 : 1.0;
      v[i] = rng() % 8 == 0 ? 0.0f : static_cast<float>(sign * std::exp2(e));
    }
    return v;
  }();
  return data;
}

}  // namespace bench
