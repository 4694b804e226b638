// Test data for comparing the scaled-format paths: blocks that exercise the
// kernels' fallbacks and rounding decisions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace scaled_test {

// Blocks of 32 values: short significands (ties and exact values), NaN/inf,
// fp32 subnormals, zero blocks, blocks whose scale leaves E8M0, flushed
// tiny values, beside ordinary blocks.
inline std::vector<float> path_data(std::size_t blocks, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> base(-130, 125), below(0, 40), kind(0, 99);
  std::uniform_int_distribution<std::uint32_t> mantissa(0, 0x7FFFFF);
  std::vector<float> v(blocks * 32);
  for (std::size_t b = 0; b < blocks; ++b) {
    const int e = base(gen);
    const int special = kind(gen);
    // Short significands in most blocks, so that ties and exact values occur.
    static constexpr std::uint32_t keep[] = {0x7FFFFF, 0x7F0000, 0x7C0000, 0x700000, 0x600000};
    const std::uint32_t mask = keep[b % 5];
    for (std::size_t j = 0; j < 32; ++j) {
      const int ej = std::max(-126, e - below(gen) / (b % 3 == 0 ? 1 : 8));
      float x = std::ldexp(1.0f + static_cast<float>(mantissa(gen) & mask) * 0x1p-23f, ej);
      if (gen() % 2) x = -x;
      if (gen() % 16 == 0) x = gen() % 2 ? 0.0f : -0.0f;
      v[b * 32 + j] = x;
    }
    if (special == 0) v[b * 32 + 3] = std::numeric_limits<float>::quiet_NaN();
    if (special == 1) v[b * 32 + 5] = -std::numeric_limits<float>::infinity();
    if (special == 2) v[b * 32 + 7] = 0x1p-140f;
    if (special == 4) {  // x / X far below 2^-126: fp32 cannot hold the quotient
      v[b * 32 + 9] = 0x1p120f;
      v[b * 32 + 10] = -0x1p-20f;
    }
    if (special == 3)
      std::fill(v.begin() + static_cast<std::ptrdiff_t>(b * 32), v.begin() + static_cast<std::ptrdiff_t>(b * 32 + 32),
                0.0f);
  }
  return v;
}

// NVFP4 data: the mixed blocks of path_data, and blocks on E2M1's half grid
// (ties, exact values, saturation) under scales that make D = S·s a power of
// two or a 4-bit significand.
inline std::vector<float> nvfp4_data(unsigned seed) {
  std::vector<float> v = path_data(60, seed);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> step(0, 32), exponent(-8, 8);
  for (int b = 0; b < 120; ++b) {
    const int e = exponent(gen);
    for (int j = 0; j < 16; ++j) {
      float x = std::ldexp(static_cast<float>(step(gen)) * 0.25f, e);
      if (b % 3 == 0) x *= 1.5f;
      v.push_back(gen() % 2 ? -x : x);
    }
    v[v.size() - 16] = std::ldexp(6.0f, e);  // amax on the grid
  }
  return v;
}

// What a trainer's operands look like to a block: one large value and the
// rest 2^-10 .. 2^-20 below it (subnormal in the element format or flushed
// by the block's scale), with zeros, an all-zero block every 7th and a block
// far below the rest (NVFP4's E4M3 scale rounds to zero) every 11th. Blocks
// are `block` values long, so rows of any width cut them anywhere.
inline std::vector<float> tiny_block_data(std::size_t n, std::size_t block, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> large(-10, 10), below(10, 20);
  std::uniform_int_distribution<std::uint32_t> mantissa(0, 0x7FFFFF);
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t b = i / block;
    const int e = large(gen) - (b % 11 == 5 ? 40 : 0);
    const float significand = 1.0f + static_cast<float>(mantissa(gen) & (gen() % 2 ? 0x7FFFFF : 0x600000)) * 0x1p-23f;
    float x = std::ldexp(significand, i % block == b % block ? e : e - below(gen));
    if (gen() % 2) x = -x;
    if (b % 7 == 3 || gen() % 13 == 0) x = gen() % 2 ? 0.0f : -0.0f;
    v[i] = x;
  }
  return v;
}

}  // namespace scaled_test
