// The single rounding step every libnum operation ends with, inline: the
// arithmetic compiles it into per-format instances where the format's
// parameters are constants (core/arithmetic.cpp), and round_exact.cpp makes
// the out-of-line round_exact of it.
#pragma once

#include "core/exact_value.hpp"
#include "libnum/codec.hpp"

namespace num::rounding_step {

// Bits [lo, lo + n) of v, n <= 32; bits at 128 and above are zero.
inline std::uint64_t bits_of(uint128 v, int lo, int n) {
  if (lo >= 128) return 0;
  return static_cast<std::uint64_t>(v >> lo) & ((std::uint64_t{1} << n) - 1);
}

// |x| cut at the quantum 2^(x.exponent + shift): the kept integer and what the
// discarded fraction f looks like to each rounding mode.
struct cut {
  uint128 kept = 0;
  bool half = false;       // f >= 1/2
  bool rest = false;       // f is not 0 or 1/2 exactly below the half bit
  std::uint64_t top = 0;   // floor(f * 2^r)
  bool inexact() const { return half || rest; }
};

inline cut cut_at(const exact_value& x, int shift, int r) {
  cut c;
  if (shift <= 0) {
    // Producers guarantee sticky values carry >= 64 bits, so this only
    // happens for exact values, where nothing is discarded.
    c.kept = x.significand << -shift;
    c.rest = x.sticky;
    return c;
  }
  c.kept = shift >= 128 ? 0 : x.significand >> shift;
  c.half = bits_of(x.significand, shift - 1, 1) != 0;
  const int below = shift - 1;
  const uint128 low_mask = below >= 128 ? ~uint128{0} : (uint128{1} << below) - 1;
  c.rest = (x.significand & low_mask) != 0 || x.sticky;
  if (shift >= r) {
    c.top = bits_of(x.significand, shift - r, r);
  } else {
    c.top = bits_of(x.significand, 0, shift) << (r - shift);
  }
  return c;
}

// Whether to add one unit to the kept integer (round-to-odd is handled apart).
inline bool rounds_up(const round_spec& spec, bool negative, const cut& c, std::uint32_t word) {
  switch (spec.mode) {
    case rounding::nearest_even: return c.half && (c.rest || (c.kept & 1) != 0);
    case rounding::nearest_away: return c.half;
    case rounding::toward_zero: return false;
    case rounding::toward_positive: return !negative && c.inexact();
    case rounding::toward_negative: return negative && c.inexact();
    case rounding::to_odd: return false;
    case rounding::stochastic:
      return c.top + random_draw(word, spec.random_bits) >= (std::uint64_t{1} << spec.random_bits);
  }
  return false;
}

inline uint128 apply_rounding(const round_spec& spec, bool negative, const cut& c, std::uint32_t word) {
  if (spec.mode == rounding::to_odd) return c.inexact() ? (c.kept | 1) : c.kept;
  return c.kept + (rounds_up(spec, negative, c, word) ? 1 : 0);
}

inline std::uint32_t overflow_result(const format& f, bool negative, const round_spec& spec) {
  switch (spec.overflow) {
    case overflow_mode::saturate: return max_finite_bits(f, negative);
    case overflow_mode::nan: return default_nan_bits(f) | (negative ? f.sign_mask() : 0);
    case overflow_mode::ieee: break;
  }
  bool to_infinity = true;
  switch (spec.mode) {
    case rounding::toward_zero:
    case rounding::to_odd: to_infinity = false; break;
    case rounding::toward_positive: to_infinity = !negative; break;
    case rounding::toward_negative: to_infinity = negative; break;
    default: break;
  }
  return to_infinity ? infinity_bits(f, negative) : max_finite_bits(f, negative);
}

}  // namespace num::rounding_step

namespace num {

/// round_exact's result with the flags under both tininess rules (spec.tiny
/// is not read): the one computation behind round_exact and the arithmetic's
/// *_per_tininess calls.
inline rounded_per_tininess round_exact_per_tininess(const exact_value& x, const format& f,
                                                     const round_spec& spec, std::uint32_t random_word) {
  using namespace rounding_step;
  const std::uint32_t sign = x.negative ? f.sign_mask() : 0;
  if (x.is_zero()) return {sign, flags::none, flags::none};
  const int p = f.precision;
  const int r = spec.random_bits;
  const int lead = x.exponent + bit_length(x.significand) - 1;  // |x| in [2^lead, 2^(lead+1))
  int quantum = lead >= f.emin ? lead - (p - 1) : (f.subnormals ? f.emin - (p - 1) : f.emin);

  const cut c = cut_at(x, quantum - x.exponent, r);
  uint128 kept = apply_rounding(spec, x.negative, c, random_word);
  if ((kept >> p) != 0) {  // carried into the next binade: kept == 2^p exactly
    kept >>= 1;
    ++quantum;
  }

  const flags raised = c.inexact() ? flags::inexact : flags::none;
  flags after = raised, before = raised;
  // Underflow is tiny and inexact (IEEE 754 7.5); tiny before rounding is
  // |x| < 2^emin.
  if (lead < f.emin && c.inexact()) {
    before |= flags::underflow;
    // Tiny after rounding: rounded to p bits with an unbounded exponent, still below 2^emin.
    const cut u = cut_at(x, lead - (p - 1) - x.exponent, r);
    const bool carried = (apply_rounding(spec, x.negative, u, random_word) >> p) != 0;
    if (!(carried && lead + 1 >= f.emin)) after |= flags::underflow;
  }
  if (kept == 0) return {sign, after, before};

  const int length = bit_length(kept);
  const int result_lead = quantum + length - 1;
  const auto normalized = static_cast<std::uint32_t>(kept << (p - length));
  if (result_lead > f.emax || (result_lead == f.emax && normalized > f.max_significand())) {
    const flags overflowed = flags::overflow | flags::inexact;
    return {overflow_result(f, x.negative, spec), after | overflowed, before | overflowed};
  }
  std::uint32_t bits = sign;
  if (result_lead >= f.emin) {
    const auto biased = static_cast<std::uint32_t>(result_lead + f.bias());
    bits |= (biased << f.fraction_bits()) | (normalized & f.fraction_mask());
  } else {
    bits |= static_cast<std::uint32_t>(kept);  // subnormal: quantum is emin - (p - 1)
  }
  return {bits, after, before};
}

}  // namespace num
