// add, sub, mul, div, fma and sqrt: the exact result, then one rounding.
#include "libnum/arithmetic.hpp"

#include <cmath>

#include "libnum/codec.hpp"
#include "core/exact_value.hpp"
#include "core/rounding_step.hpp"

namespace num {
namespace {

// Sign of an exact zero sum of operands with opposite signs (IEEE 754 6.3).
bool zero_sum_is_negative(const round_spec& spec) { return spec.mode == rounding::toward_negative; }

// The exact sum of two nonzero exact values whose significands are < 2^60.
// The larger operand is aligned with its leading bit at bit 120; bits of the
// smaller one below bit 0 are folded into `sticky` (they are then far below
// every rounding position).
exact_value exact_sum(const exact_value& a, const exact_value& b) {
  constexpr int top = 120;
  const int lead_a = a.exponent + bit_length(a.significand) - 1;
  const int lead_b = b.exponent + bit_length(b.significand) - 1;
  const exact_value& big = lead_a >= lead_b ? a : b;
  const exact_value& small = lead_a >= lead_b ? b : a;
  const int base = std::max(lead_a, lead_b) - top;
  const uint128 big_aligned = big.significand << (big.exponent - base);
  uint128 small_aligned = 0;
  bool sticky = false;
  const int shift = small.exponent - base;
  if (shift >= 0) {
    small_aligned = small.significand << shift;
  } else if (-shift < 128) {
    small_aligned = small.significand >> -shift;
    sticky = (small.significand & ((uint128{1} << -shift) - 1)) != 0;
  } else {
    sticky = true;
  }
  exact_value r;
  r.exponent = base;
  r.sticky = sticky;
  if (big.negative == small.negative) {
    r.negative = big.negative;
    r.significand = big_aligned + small_aligned;
  } else if (sticky) {
    // big - (small_aligned + t) = (big - small_aligned - 1) + (1 - t), 0 < 1 - t < 1.
    r.negative = big.negative;
    r.significand = big_aligned - small_aligned - 1;
  } else if (big_aligned >= small_aligned) {
    r.negative = big.negative;
    r.significand = big_aligned - small_aligned;
  } else {
    r.negative = small.negative;
    r.significand = small_aligned - big_aligned;
  }
  return r;
}

std::uint32_t quiet(const format& f, std::uint32_t nan_bits) { return convert_nan(f, nan_bits, f); }

// A result the tininess rule cannot change: exact, special or NaN.
rounded_per_tininess either_rule(std::uint32_t bits, flags raised) { return {bits, raised, raised}; }
rounded_per_tininess either_rule(rounded r) { return {r.bits, r.raised, r.raised}; }

rounded_per_tininess special_sum(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                                 std::uint32_t random_word) {
  const value_class ca = classify(f, a), cb = classify(f, b);
  const bool na = is_negative(f, a), nb = is_negative(f, b);
  if (ca == value_class::infinite || cb == value_class::infinite) {
    if (ca == value_class::infinite && cb == value_class::infinite && na != nb) {
      return either_rule(invalid_nan_bits(f, spec.nans), flags::invalid);
    }
    return either_rule(ca == value_class::infinite ? a : b, flags::none);
  }
  if (ca == value_class::zero && cb == value_class::zero) {
    const bool negative = na == nb ? na : zero_sum_is_negative(spec);
    return either_rule(zero_bits(f, negative), flags::none);
  }
  // One zero: the other operand, re-rounded (it is exact, so unchanged).
  const std::uint32_t other = ca == value_class::zero ? b : a;
  return round_exact_per_tininess(decode_finite(f, other), f, spec, random_word);
}

}  // namespace

rounded propagate_nan(const format& f, std::uint32_t a, std::uint32_t b, nan_convention c) {
  const flags raised = is_signaling_nan(f, a) || is_signaling_nan(f, b) ? flags::invalid : flags::none;
  return {nan_result_bits(f, quiet(f, is_nan(f, a) ? a : b), c), raised};
}

namespace {

rounded_per_tininess add_core(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                              std::uint32_t random_word) {
  if (is_nan(f, a) || is_nan(f, b)) return either_rule(propagate_nan(f, a, b, spec.nans));
  const value_class ca = classify(f, a), cb = classify(f, b);
  if (ca == value_class::infinite || cb == value_class::infinite || ca == value_class::zero ||
      cb == value_class::zero) {
    return special_sum(f, a, b, spec, random_word);
  }
  exact_value sum = exact_sum(decode_finite(f, a), decode_finite(f, b));
  if (sum.is_zero()) return either_rule(zero_bits(f, zero_sum_is_negative(spec)), flags::none);
  return round_exact_per_tininess(sum, f, spec, random_word);
}

rounded_per_tininess sub_core(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                              std::uint32_t random_word) {
  if (is_nan(f, a) || is_nan(f, b)) return either_rule(propagate_nan(f, a, b, spec.nans));
  return add_core(f, a, negate(f, b), spec, random_word);
}

rounded_per_tininess mul_core(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                              std::uint32_t random_word) {
  if (is_nan(f, a) || is_nan(f, b)) return either_rule(propagate_nan(f, a, b, spec.nans));
  const value_class ca = classify(f, a), cb = classify(f, b);
  const bool negative = is_negative(f, a) != is_negative(f, b);
  const bool a_inf = ca == value_class::infinite, b_inf = cb == value_class::infinite;
  const bool a_zero = ca == value_class::zero, b_zero = cb == value_class::zero;
  if ((a_inf && b_zero) || (b_inf && a_zero)) return either_rule(invalid_nan_bits(f, spec.nans), flags::invalid);
  if (a_inf || b_inf) return either_rule(infinity_bits(f, negative), flags::none);
  if (a_zero || b_zero) return either_rule(zero_bits(f, negative), flags::none);
  const exact_value x = decode_finite(f, a), y = decode_finite(f, b);
  exact_value product{negative, x.exponent + y.exponent, x.significand * y.significand, false};
  return round_exact_per_tininess(product, f, spec, random_word);
}

rounded_per_tininess div_core(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                              std::uint32_t random_word) {
  if (is_nan(f, a) || is_nan(f, b)) return either_rule(propagate_nan(f, a, b, spec.nans));
  const value_class ca = classify(f, a), cb = classify(f, b);
  const bool negative = is_negative(f, a) != is_negative(f, b);
  const bool a_inf = ca == value_class::infinite, b_inf = cb == value_class::infinite;
  const bool a_zero = ca == value_class::zero, b_zero = cb == value_class::zero;
  if ((a_inf && b_inf) || (a_zero && b_zero)) return either_rule(invalid_nan_bits(f, spec.nans), flags::invalid);
  if (a_inf) return either_rule(infinity_bits(f, negative), flags::none);
  if (b_inf || a_zero) return either_rule(zero_bits(f, negative), flags::none);
  if (b_zero) return either_rule(infinity_bits(f, negative), flags::divide_by_zero);
  const exact_value x = decode_finite(f, a), y = decode_finite(f, b);
  // Long division in two 64-bit steps, inline (a 128-bit division is a call
  // into libgcc). Significands are < 2^24: the dividend's,
  // moved to the top of 64 bits, over the divisor's gives >= 40 quotient bits
  // and a remainder < 2^24, which still fits 64 bits moved up by 40 for the
  // next 40 bits. So the quotient has >= 79 bits, and a nonzero last
  // remainder is the sticky bit.
  const int lift = 64 - bit_length(x.significand);
  const std::uint64_t dividend = static_cast<std::uint64_t>(x.significand) << lift;
  const auto divisor = static_cast<std::uint64_t>(y.significand);
  constexpr int step = 40;
  const std::uint64_t partial = (dividend % divisor) << step;
  const exact_value q{negative, x.exponent - lift - y.exponent - step,
                      (uint128{dividend / divisor} << step) | (partial / divisor), partial % divisor != 0};
  return round_exact_per_tininess(q, f, spec, random_word);
}

rounded_per_tininess fma_core(const format& f, std::uint32_t a, std::uint32_t b, std::uint32_t c,
                              const round_spec& spec, std::uint32_t random_word) {
  const value_class ca = classify(f, a), cb = classify(f, b), cc = classify(f, c);
  const bool any_signaling = ca == value_class::signaling_nan || cb == value_class::signaling_nan ||
                             cc == value_class::signaling_nan;
  const flags signaled = any_signaling ? flags::invalid : flags::none;
  if (is_nan(f, a) || is_nan(f, b)) return either_rule(quiet(f, is_nan(f, a) ? a : b), signaled);
  const bool a_inf = ca == value_class::infinite, b_inf = cb == value_class::infinite;
  const bool a_zero = ca == value_class::zero, b_zero = cb == value_class::zero;
  const bool product_negative = is_negative(f, a) != is_negative(f, b);
  if ((a_inf && b_zero) || (b_inf && a_zero)) {
    // Invalid even when c is a quiet NaN (SoftFloat's choice; IEEE leaves it open).
    return either_rule(is_nan(f, c) ? quiet(f, c) : invalid_nan_bits(f, spec.nans), flags::invalid);
  }
  if (is_nan(f, c)) return either_rule(quiet(f, c), signaled);
  const bool c_inf = cc == value_class::infinite;
  if (a_inf || b_inf) {
    if (c_inf && is_negative(f, c) != product_negative) {
      return either_rule(invalid_nan_bits(f, spec.nans), flags::invalid);
    }
    return either_rule(infinity_bits(f, product_negative), flags::none);
  }
  if (c_inf) return either_rule(c, flags::none);
  if (a_zero || b_zero) {
    if (cc == value_class::zero) {
      const bool cn = is_negative(f, c);
      const bool negative = cn == product_negative ? cn : zero_sum_is_negative(spec);
      return either_rule(zero_bits(f, negative), flags::none);
    }
    return round_exact_per_tininess(decode_finite(f, c), f, spec, random_word);
  }
  const exact_value x = decode_finite(f, a), y = decode_finite(f, b);
  const exact_value product{product_negative, x.exponent + y.exponent,
                            x.significand * y.significand, false};
  if (cc == value_class::zero) return round_exact_per_tininess(product, f, spec, random_word);
  const exact_value sum = exact_sum(product, decode_finite(f, c));
  if (sum.is_zero()) return either_rule(zero_bits(f, zero_sum_is_negative(spec)), flags::none);
  return round_exact_per_tininess(sum, f, spec, random_word);
}

namespace {

// floor(sqrt(n)) for n < 2^128.
std::uint64_t integer_sqrt(uint128 n) {
  auto s = static_cast<uint128>(std::sqrt(static_cast<long double>(n)));
  if (s != 0) s = (s + n / s) / 2;  // one Newton step: within one of the root
  while (s * s > n) --s;
  while ((s + 1) * (s + 1) <= n) ++s;
  return static_cast<std::uint64_t>(s);
}

}  // namespace

rounded_per_tininess sqrt_core(const format& f, std::uint32_t a, const round_spec& spec, std::uint32_t random_word) {
  const value_class ca = classify(f, a);
  if (ca == value_class::quiet_nan || ca == value_class::signaling_nan) {
    return either_rule(propagate_nan(f, a, a, spec.nans));
  }
  if (ca == value_class::zero) return either_rule(a, flags::none);
  if (is_negative(f, a)) return either_rule(invalid_nan_bits(f, spec.nans), flags::invalid);
  if (ca == value_class::infinite) return either_rule(a, flags::none);
  const exact_value x = decode_finite(f, a);
  // Scale the significand to [2^126, 2^128) with an even exponent: the root has 64 bits.
  int shift = 128 - bit_length(x.significand);
  if (((x.exponent - shift) & 1) != 0) --shift;
  const uint128 n = x.significand << shift;
  const std::uint64_t root = integer_sqrt(n);
  const exact_value r{false, (x.exponent - shift) / 2, root, static_cast<uint128>(root) * root != n};
  return round_exact_per_tininess(r, f, spec, random_word);
}

// The cores follow first_operand propagation (x86_sse differs only in the
// NaN invalid operations create, which they take from spec); the wrappers
// below deliver a NaN result as spec.nans says.
rounded_per_tininess delivered(const format& f, rounded_per_tininess r, const round_spec& spec) {
  // Overflow does not depend on the tininess rule: either flag set will do.
  return {delivered_result_bits(f, r.bits, any(r.after_rounding, flags::overflow), spec.nans), r.after_rounding,
          r.before_rounding};
}

// Runs `operation(g)` with g = f, where g is binary16 or bfloat16_format
// itself when f equals one of them. The *_per_tininess functions below are
// flattened (every call inlined), so in those two instances the compiler
// folds every mask, shift and exponent bound of the format into constants:
// the same code, faster, for the two formats that `numlab certify` sweeps
// exhaustively (docs/certify.md, "libnum's side"; bench/RESULTS.md).
template <typename Operation>
rounded_per_tininess with_format_constants(const format& f, Operation operation) {
  if (f == binary16) return operation(binary16);
  if (f == bfloat16_format) return operation(bfloat16_format);
  return operation(f);
}

}  // namespace

[[gnu::flatten]]
rounded_per_tininess add_per_tininess(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                                      std::uint32_t random_word) {
  return with_format_constants(
      f, [&](const format& g) { return delivered(g, add_core(g, a, b, spec, random_word), spec); });
}
[[gnu::flatten]]
rounded_per_tininess sub_per_tininess(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                                      std::uint32_t random_word) {
  return with_format_constants(
      f, [&](const format& g) { return delivered(g, sub_core(g, a, b, spec, random_word), spec); });
}
[[gnu::flatten]]
rounded_per_tininess mul_per_tininess(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                                      std::uint32_t random_word) {
  return with_format_constants(
      f, [&](const format& g) { return delivered(g, mul_core(g, a, b, spec, random_word), spec); });
}
[[gnu::flatten]]
rounded_per_tininess div_per_tininess(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                                      std::uint32_t random_word) {
  return with_format_constants(
      f, [&](const format& g) { return delivered(g, div_core(g, a, b, spec, random_word), spec); });
}
[[gnu::flatten]]
rounded_per_tininess fma_per_tininess(const format& f, std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                      const round_spec& spec, std::uint32_t random_word) {
  return with_format_constants(
      f, [&](const format& g) { return delivered(g, fma_core(g, a, b, c, spec, random_word), spec); });
}
[[gnu::flatten]]
rounded_per_tininess sqrt_per_tininess(const format& f, std::uint32_t a, const round_spec& spec,
                                       std::uint32_t random_word) {
  return with_format_constants(
      f, [&](const format& g) { return delivered(g, sqrt_core(g, a, spec, random_word), spec); });
}

rounded add(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec, std::uint32_t random_word) {
  return add_per_tininess(f, a, b, spec, random_word).under(spec.tiny);
}
rounded sub(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec, std::uint32_t random_word) {
  return sub_per_tininess(f, a, b, spec, random_word).under(spec.tiny);
}
rounded mul(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec, std::uint32_t random_word) {
  return mul_per_tininess(f, a, b, spec, random_word).under(spec.tiny);
}
rounded div(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec, std::uint32_t random_word) {
  return div_per_tininess(f, a, b, spec, random_word).under(spec.tiny);
}
rounded fma(const format& f, std::uint32_t a, std::uint32_t b, std::uint32_t c, const round_spec& spec,
            std::uint32_t random_word) {
  return fma_per_tininess(f, a, b, c, spec, random_word).under(spec.tiny);
}
rounded sqrt(const format& f, std::uint32_t a, const round_spec& spec, std::uint32_t random_word) {
  return sqrt_per_tininess(f, a, spec, random_word).under(spec.tiny);
}

std::uint32_t negate(const format& f, std::uint32_t a) { return a ^ f.sign_mask(); }
std::uint32_t abs(const format& f, std::uint32_t a) { return a & ~f.sign_mask(); }

}  // namespace num
