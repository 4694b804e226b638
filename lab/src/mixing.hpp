// The hash and bit-mixing functions lab derives random streams, generator
// seeds and checksums from. Internal to lab. Changing either changes every
// stochastic result and every checkpoint checksum, so both are fixed here once.
#pragma once

#include <cstdint>
#include <string_view>

namespace lab {

/// SplitMix64's output for state x (Steele, Lea, Flood 2014): the state
/// advanced by the golden-ratio increment, then Stafford's variant 13 mix.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The increment splitmix64 adds to its state per output.
inline constexpr std::uint64_t splitmix64_increment = 0x9E3779B97F4A7C15ull;

/// FNV-1a's 64-bit offset basis (the hash of no bytes).
inline constexpr std::uint64_t fnv1a_basis = 0xCBF29CE484222325ull;

/// 64-bit FNV-1a of `bytes`, continuing from hash `h`.
constexpr std::uint64_t fnv1a(std::uint64_t h, std::string_view bytes) {
  for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  return h;
}

// Published test vectors: SplitMix64's first output from state 0, and FNV-1a
// of "a" and "foobar" (Fowler, Noll, Vo's reference table).
static_assert(splitmix64(0) == 0xE220A8397B1DCDAFull);
static_assert(fnv1a(fnv1a_basis, "a") == 0xAF63DC4C8601EC8Cull);
static_assert(fnv1a(fnv1a_basis, "foobar") == 0x85944171F73967E8ull);

}  // namespace lab
