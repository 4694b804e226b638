// The MPFR oracle applied to libnum's operations on encoded values: the
// arithmetic, conversions, integer rounding and comparisons, with the NaN
// conventions of the contract (arithmetic.hpp, convert.hpp): a NaN operand
// gives a quiet NaN carrying the first NaN operand's sign and payload, a
// signalling one raises invalid, invalid operations give the default NaN.
#pragma once

#include <mpfr.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <libnum/format.hpp>
#include <libnum/rounding.hpp>

#include "mpfr_oracle.hpp"
#include "reference_codec.hpp"

namespace oracle {

/// Up to three encoded operands (unused ones ignored).
using operands3 = std::array<std::uint32_t, 3>;

/// The operations the oracle knows.
enum class operation { add, sub, mul, div, fma, sqrt };
inline const char* operation_name(operation o) {
  constexpr const char* names[] = {"add", "sub", "mul", "div", "fma", "sqrt"};
  return names[static_cast<int>(o)];
}
inline int arity(operation o) { return o == operation::sqrt ? 1 : (o == operation::fma ? 3 : 2); }

/// One rounding mode with its stochastic parameters.
struct mode_choice {
  num::rounding mode = num::rounding::nearest_even;
  int random_bits = 32;
  std::uint32_t word = 0;
};

/// An operand as MPFR sees it (NaN operands never reach MPFR).
inline void set_operand(mpfr_ptr target, const decoded& d) {
  if (d.what == kind::infinite) {
    mpfr_set_inf(target, d.negative ? -1 : 1);
  } else {
    mpfr_set_d(target, d.magnitude, MPFR_RNDN);
    if (d.negative) mpfr_neg(target, target, MPFR_RNDN);
  }
}

/// The result of a NaN operand, or nullopt-like `fixed == false` when no operand is NaN.
inline expected nan_rule(const num::format& f, operation op, const operands3& operands) {
  const int n = arity(op);
  bool any_signaling = false;
  for (int i = 0; i < n; ++i) any_signaling |= decode(f, operands[i]).what == kind::signaling_nan;
  const num::flags signaled = any_signaling ? num::flags::invalid : num::flags::none;
  const int first_pair = n == 3 ? 2 : n;  // fma: a and b come first, then c
  for (int i = 0; i < first_pair; ++i) {
    if (decode(f, operands[i]).is_nan()) return expected::exactly(quiet_nan_from(f, operands[i], f), signaled);
  }
  if (n == 3 && decode(f, operands[2]).is_nan()) {
    const decoded a = decode(f, operands[0]), b = decode(f, operands[1]);
    const bool zero_times_inf = (a.what == kind::infinite && b.magnitude == 0 && b.what == kind::finite) ||
                                (b.what == kind::infinite && a.magnitude == 0 && a.what == kind::finite);
    // Berkeley SoftFloat: 0 * inf + qNaN is invalid too (IEEE 754 7.2(c) leaves it open).
    return expected::exactly(quiet_nan_from(f, operands[2], f), zero_times_inf ? num::flags::invalid : signaled);
  }
  return {};
}

/// op applied to encoded operands of f, rounded once in `m`.
inline expected arithmetic(const num::format& f, operation op, const operands3& operands, const mode_choice& m) {
  const expected nan = nan_rule(f, op, operands);
  if (nan.fixed) return nan;
  mp a(64), b(64), c(64);
  set_operand(a, decode(f, operands[0]));
  if (arity(op) >= 2) set_operand(b, decode(f, operands[1]));
  if (arity(op) == 3) set_operand(c, decode(f, operands[2]));
  return round_result(f, m.mode, m.random_bits, m.word, [&](mpfr_ptr r, mpfr_rnd_t rnd) {
    switch (op) {
      case operation::add: return mpfr_add(r, a, b, rnd);
      case operation::sub: return mpfr_sub(r, a, b, rnd);
      case operation::mul: return mpfr_mul(r, a, b, rnd);
      case operation::div: return mpfr_div(r, a, b, rnd);
      case operation::fma: return mpfr_fma(r, a, b, c, rnd);
      case operation::sqrt: return mpfr_sqrt(r, a, rnd);
    }
    return 0;
  });
}

/// A finite or infinite value (a double, a float or an encoding) rounded into f.
inline expected from_value(const num::format& f, double x, const mode_choice& m) {
  if (std::isinf(x)) {
    expected e;
    e.converted_infinity = true;
    e.negative = x < 0;
    return e;
  }
  mp v(64, x);
  return round_result(f, m.mode, m.random_bits, m.word,
                      [&](mpfr_ptr r, mpfr_rnd_t rnd) { return mpfr_set(r, v, rnd); });
}

/// An encoding of `from` converted into `to`.
inline expected convert(const num::format& from, std::uint32_t bits, const num::format& to, const mode_choice& m) {
  const decoded d = decode(from, bits);
  if (d.is_nan()) {
    return expected::exactly(quiet_nan_from(from, bits, to),
                             d.what == kind::signaling_nan ? num::flags::invalid : num::flags::none);
  }
  return from_value(to, d.value(), m);
}

/// A decimal (or any strtofr-readable) string rounded into f.
inline expected from_text(const num::format& f, const char* text, const mode_choice& m) {
  return round_result(f, m.mode, m.random_bits, m.word,
                      [&](mpfr_ptr r, mpfr_rnd_t rnd) { return mpfr_strtofr(r, text, nullptr, 10, rnd); });
}

/// A finite value rounded to an integral value in `m`: its signed value and
/// whether that discarded anything.
struct integral {
  double value;  ///< integral, sign of x kept on zero
  bool inexact;
};
inline integral round_to_integer(double x, const mode_choice& m) {
  mp v(64, x), r(wide_precision);
  bool inexact = !mpfr_integer_p(v);
  switch (m.mode) {
    case num::rounding::nearest_away: mpfr_round(r, v); break;
    case num::rounding::to_odd:
    case num::rounding::stochastic: {
      mpfr_trunc(r, v);
      mp fraction(wide_precision);
      mpfr_sub(fraction, v, r, MPFR_RNDN);  // exact
      mpfr_abs(fraction, fraction, MPFR_RNDN);
      bool away = false;
      if (m.mode == num::rounding::to_odd) {
        away = inexact && std::fmod(mpfr_get_d(r, MPFR_RNDN), 2.0) == 0;  // |x| < 2^24 here
      } else {
        mpfr_mul_2si(fraction, fraction, m.random_bits, MPFR_RNDN);
        const std::uint64_t draw = m.random_bits >= 32 ? m.word : m.word >> (32 - m.random_bits);
        away = mpfr_get_ui(fraction, MPFR_RNDZ) + draw >= (std::uint64_t{1} << m.random_bits);
      }
      if (away) mpfr_add_si(r, r, x < 0 ? -1 : 1, MPFR_RNDN);
      break;
    }
    default: mpfr_rint(r, v, to_mpfr(m.mode)); break;
  }
  double value = mpfr_get_d(r, MPFR_RNDN);
  if (value == 0) value = std::copysign(0.0, x);
  return {value, inexact};
}

/// IEEE roundToIntegralExact of an encoding of f (inexact raised).
inline num::rounded round_to_integral(const num::format& f, std::uint32_t bits, const mode_choice& m) {
  const decoded d = decode(f, bits);
  if (d.is_nan()) {
    return {quiet_nan_from(f, bits, f), d.what == kind::signaling_nan ? num::flags::invalid : num::flags::none};
  }
  if (d.what == kind::infinite) return {bits, num::flags::none};
  const integral i = round_to_integer(d.value(), m);
  return {encode(f, std::signbit(i.value), std::fabs(i.value)), i.inexact ? num::flags::inexact : num::flags::none};
}

/// An encoding of f rounded to a signed integer of `width` bits: NaN, infinity
/// and out-of-range give the minimum integer with invalid (x86 convention).
struct integer {
  std::int64_t value;
  num::flags raised;
  friend bool operator==(const integer&, const integer&) = default;
};
inline integer to_integer(const num::format& f, std::uint32_t bits, const mode_choice& m, int width) {
  const std::int64_t minimum = width == 32 ? std::numeric_limits<std::int32_t>::min()
                                           : std::numeric_limits<std::int64_t>::min();
  const decoded d = decode(f, bits);
  if (d.what != kind::finite) return {minimum, num::flags::invalid};
  const integral i = round_to_integer(d.value(), m);
  const double limit = std::ldexp(1.0, width - 1);
  if (i.value >= limit || i.value < -limit) return {minimum, num::flags::invalid};
  return {static_cast<std::int64_t>(i.value), i.inexact ? num::flags::inexact : num::flags::none};
}

/// The truth of a comparison of two encodings, by MPFR.
enum class relation { eq, lt, le, unordered };
inline bool compare(const num::format& f, std::uint32_t a, std::uint32_t b, relation rel) {
  const decoded x = decode(f, a), y = decode(f, b);
  mp u(64), v(64);
  if (x.is_nan()) mpfr_set_nan(u); else set_operand(u, x);
  if (y.is_nan()) mpfr_set_nan(v); else set_operand(v, y);
  switch (rel) {
    case relation::eq: return mpfr_equal_p(u, v) != 0;
    case relation::lt: return mpfr_less_p(u, v) != 0;
    case relation::le: return mpfr_lessequal_p(u, v) != 0;
    case relation::unordered: return mpfr_unordered_p(u, v) != 0;
  }
  return false;
}

}  // namespace oracle
