// The exact value every operation computes before its single rounding, and
// that rounding. Internal to libnum: it exposes GCC's unsigned __int128, so
// it stays out of the public headers; callers outside libnum round through
// convert.hpp, arithmetic.hpp and text.hpp.
#pragma once

#include <cstdint>

#include "libnum/codec.hpp"
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

/// The exact value of a finite encoding of f (zeros included). Inline, like
/// classify, so that the arithmetic's per-format instances fold f's fields.
inline exact_value decode_finite(const format& f, std::uint32_t bits) {
  exact_value x;
  x.negative = is_negative(f, bits);
  const std::uint32_t e = (bits >> f.fraction_bits()) & f.exponent_field_max();
  const std::uint32_t frac = bits & f.fraction_mask();
  if (e == 0) {
    x.significand = f.subnormals ? frac : 0;
    x.exponent = f.emin - f.fraction_bits();
  } else {
    x.significand = (std::uint32_t{1} << f.fraction_bits()) | frac;
    x.exponent = static_cast<int>(e) - f.bias() - f.fraction_bits();
  }
  return x;
}

/// Rounds x once into format f as `spec` says, returning the encoding and the
/// flags raised (inexact, underflow, overflow). Its body is
/// round_exact_per_tininess (core/rounding_step.hpp). `random_word` supplies the
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
