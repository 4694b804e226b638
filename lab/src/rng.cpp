// xoshiro256** by Blackman and Vigna (public domain reference algorithm).
#include "lab/rng.hpp"

#include <cmath>
#include <cstdint>
#include <numbers>

#include "mixing.hpp"

namespace lab {
namespace {

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

rng::rng(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
  for (auto& w : s_) {
    w = splitmix64(x);
    x += splitmix64_increment;
  }
}

std::uint64_t rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

float rng::uniform() { return static_cast<float>(next_u64() >> 40) * 0x1.0p-24f; }

float rng::normal() {
  // 1 - u keeps the logarithm's argument in (0, 1].
  const double u1 = 1.0 - static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
  const double u2 = static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
}

std::uint64_t rng::below(std::uint64_t n) {
  // Reject the top partial block of 2^64 so every residue is equally likely.
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  while (true) {
    const std::uint64_t x = next_u64();
    if (x < limit) return x % n;
  }
}

}  // namespace lab
