// The exact value every operation computes before its single rounding, and
// that rounding. Internal to libnum: it exposes GCC's unsigned __int128, so
// it stays out of the public headers; callers outside libnum round through
// convert.hpp, arithmetic.hpp and text.hpp.
#pragma once

#include <cstdint>

#include "libnum/format.hpp"
#include "libnum/rounding.hpp"

namespace num {

__extension__ typedef unsigned __int128 uint128;

/// The number of significant bits of v (0 for v = 0).
inline int bit_length(uint128 v) {
  const auto hi = static_cast<std::uint64_t>(v >> 64);
  if (hi != 0) return 128 - __builtin_clzll(hi);
  const auto lo = static_cast<std::uint64_t>(v);
  return lo == 0 ? 0 : 64 - __builtin_clzll(lo);
}

/// A finite real number, exact or bracketed tightly enough to round it
/// correctly: |x| = (significand + t) * 2^exponent, where t = 0 when !sticky
/// and 0 < t < 1 when sticky. Producers that set `sticky` keep at least 64
/// significant bits in `significand`, so every rounding decision (including the
/// top 32 discarded bits stochastic rounding reads) is exact.
struct exact_value {
  bool negative = false;
  int exponent = 0;
  uint128 significand = 0;
  bool sticky = false;

  constexpr bool is_zero() const { return significand == 0 && !sticky; }
};

/// The exact value of a finite encoding of f (zeros included).
exact_value decode_finite(const format& f, std::uint32_t bits);

/// Rounds x once into format f as `spec` says, returning the encoding and the
/// flags raised (inexact, underflow, overflow). `random_word` supplies the
/// stochastic draw R = random_draw(random_word, spec.random_bits); other modes
/// ignore it. A zero x gives a zero of x's sign.
rounded round_exact(const exact_value& x, const format& f, const round_spec& spec,
                    std::uint32_t random_word);

/// The integer x rounded to an integral value as `spec` says (no overflow,
/// no flags): its magnitude and whether rounding discarded anything.
struct integral_rounding {
  uint128 magnitude;
  bool inexact;
};
integral_rounding round_to_integer(const exact_value& x, const round_spec& spec,
                                   std::uint32_t random_word);

}  // namespace num
