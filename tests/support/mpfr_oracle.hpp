// The MPFR oracle: the correctly rounded value of an operation in any format
// and rounding mode, with the IEEE flags, computed by MPFR independently of
// libnum.
//
// Nearest-even and the directed modes are MPFR's own (mpfr_set_emin/emax for
// the format's exponent range, then mpfr_subnormalize). Nearest-away,
// round-to-odd and stochastic rounding are derived from MPFR's round-toward-
// zero result and a 256-bit toward-zero value of the exact result: every
// decision they need (a tie, a nonzero remainder, floor(f*2^r)) compares the
// exact value with a number of at most 57 bits, which the 256-bit toward-zero
// value decides exactly.
#pragma once

#include <mpfr.h>

#include <cmath>
#include <cstdint>

#include <libnum/format.hpp>
#include <libnum/rounding.hpp>

#include "reference_codec.hpp"

namespace oracle {

inline constexpr mpfr_prec_t wide_precision = 256;

/// An MPFR variable that frees itself.
class mp {
 public:
  explicit mp(mpfr_prec_t precision) { mpfr_init2(v_, precision); }
  mp(mpfr_prec_t precision, double x) : mp(precision) { mpfr_set_d(v_, x, MPFR_RNDN); }
  ~mp() { mpfr_clear(v_); }
  mp(const mp&) = delete;
  mp& operator=(const mp&) = delete;
  operator mpfr_ptr() { return v_; }
  operator mpfr_srcptr() const { return v_; }

 private:
  mpfr_t v_;
};

/// Sets MPFR's (thread-local) exponent range and restores the previous one.
class exponent_range {
 public:
  exponent_range(mpfr_exp_t emin, mpfr_exp_t emax) : saved_min_(mpfr_get_emin()), saved_max_(mpfr_get_emax()) {
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
  }
  ~exponent_range() {
    mpfr_set_emin(saved_min_);
    mpfr_set_emax(saved_max_);
  }
  exponent_range(const exponent_range&) = delete;
  exponent_range& operator=(const exponent_range&) = delete;

 private:
  mpfr_exp_t saved_min_, saved_max_;
};

/// The MPFR rounding of a mode MPFR implements itself.
inline bool mpfr_native(num::rounding m) {
  return m == num::rounding::nearest_even || m == num::rounding::toward_zero ||
         m == num::rounding::toward_positive || m == num::rounding::toward_negative;
}
inline mpfr_rnd_t to_mpfr(num::rounding m) {
  switch (m) {
    case num::rounding::toward_zero: return MPFR_RNDZ;
    case num::rounding::toward_positive: return MPFR_RNDU;
    case num::rounding::toward_negative: return MPFR_RNDD;
    default: return MPFR_RNDN;
  }
}

/// Spacing of f's grid at magnitude v (v on the grid or 0).
inline double grid_step(const num::format& f, double v) {
  if (v == 0) return std::ldexp(1.0, f.subnormals ? f.emin - f.precision + 1 : f.emin);
  const int e = std::ilogb(v);
  return std::ldexp(1.0, (e < f.emin ? f.emin : e) - f.precision + 1);
}

/// Whether a derived mode moves the toward-zero magnitude `rz` (grid step q)
/// one step away from zero, given wide = the exact |x| rounded toward zero to
/// 256 bits (wide_inexact: that rounding discarded something).
struct step_decision {
  bool away;
  bool inexact;
};
inline step_decision derived_step(num::rounding mode, int random_bits, std::uint32_t word, mpfr_srcptr wide,
                                  bool wide_inexact, double rz, double q) {
  mp f(wide_precision + 96);  // |wide| - rz is exact at this precision
  mpfr_abs(f, wide, MPFR_RNDN);
  mpfr_sub_d(f, f, rz, MPFR_RNDN);
  mpfr_mul_2si(f, f, -std::ilogb(q), MPFR_RNDN);  // the discarded fraction, in [0, 1)
  const bool inexact = !mpfr_zero_p(f) || wide_inexact;
  switch (mode) {
    case num::rounding::nearest_away: return {mpfr_cmp_d(f, 0.5) >= 0, inexact};
    case num::rounding::to_odd: return {inexact && std::fmod(rz / q, 2.0) == 0, inexact};
    case num::rounding::stochastic: {
      mpfr_mul_2si(f, f, random_bits, MPFR_RNDN);
      const std::uint64_t scaled = mpfr_get_ui(f, MPFR_RNDZ);  // floor(f * 2^r)
      const std::uint64_t draw = random_bits >= 32 ? word : word >> (32 - random_bits);
      return {scaled + draw >= (std::uint64_t{1} << random_bits), inexact};
    }
    default: return {false, inexact};
  }
}

/// What an operation must deliver in one rounding mode: either a fixed result
/// (NaN, an exact infinity or zero), or a magnitude on the format's grid
/// (above max when it overflows) with what decides its flags.
struct expected {
  bool fixed = false;
  num::rounded fixed_result{0, num::flags::none};
  bool negative = false;
  double magnitude = 0;
  bool inexact = false;
  bool tiny_before = false;  ///< 0 < |exact| < 2^emin
  bool tiny_after = false;   ///< rounded to p bits with unbounded exponent, still below 2^emin
  num::rounding mode = num::rounding::nearest_even;
  /// A converted infinity: ±max (overflow, inexact) when saturating, else ±inf,
  /// or NaN and invalid in a format without infinities (convert.hpp).
  bool converted_infinity = false;

  static expected exactly(std::uint32_t bits, num::flags raised) {
    expected e;
    e.fixed = true;
    e.fixed_result = {bits, raised};
    return e;
  }

  /// The result and flags under spec's tininess and overflow behaviour.
  num::rounded under(const num::format& f, const num::round_spec& spec) const {
    using num::flags;
    if (converted_infinity) {
      if (spec.overflow == num::overflow_mode::saturate) {
        return {max_finite(f, negative), flags::overflow | flags::inexact};
      }
      return {infinity(f, negative), f.infinities ? flags::none : flags::invalid};
    }
    if (fixed) return fixed_result;
    if (magnitude > max_magnitude(f)) return {overflow_bits(f, spec), flags::overflow | flags::inexact};
    flags raised = inexact ? flags::inexact : flags::none;
    const bool tiny = spec.tiny == num::tininess::before_rounding ? tiny_before : tiny_after;
    if (tiny && inexact) raised |= flags::underflow;
    return {encode(f, negative, magnitude), raised};
  }

 private:
  // IEEE 754 7.4: ±inf in the nearest modes (and stochastic, whose overflow
  // point is max + ulp(max)); ±max where the direction points toward zero.
  std::uint32_t overflow_bits(const num::format& f, const num::round_spec& spec) const {
    switch (spec.overflow) {
      case num::overflow_mode::saturate: return max_finite(f, negative);
      case num::overflow_mode::nan: return default_nan(f) | (negative ? layout(f).sign_mask : 0);
      case num::overflow_mode::ieee: break;
    }
    bool to_infinity = true;
    if (mode == num::rounding::toward_zero || mode == num::rounding::to_odd) to_infinity = false;
    if (mode == num::rounding::toward_positive) to_infinity = !negative;
    if (mode == num::rounding::toward_negative) to_infinity = negative;
    return to_infinity ? infinity(f, negative) : max_finite(f, negative);
  }
};

/// Rounds the exact result of `op` into f. `op(rop, rnd)` writes the exact
/// result rounded to rop's precision by rnd (an MPFR function call) and
/// returns MPFR's ternary value. A NaN result means an invalid operation, an
/// infinite one is exact (divide-by-zero if MPFR raised it).
template <class Op>
expected round_result(const num::format& f, num::rounding mode, int random_bits, std::uint32_t word, Op&& op) {
  mpfr_clear_flags();
  mp wide(wide_precision);
  const bool wide_inexact = op(wide, MPFR_RNDZ) != 0;
  if (mpfr_nan_p(wide)) return expected::exactly(default_nan(f), num::flags::invalid);
  const bool negative = mpfr_signbit(wide) != 0;
  if (mpfr_inf_p(wide)) {
    return expected::exactly(infinity(f, negative),
                             mpfr_divby0_p() ? num::flags::divide_by_zero : num::flags::none);
  }
  const bool native = mpfr_native(mode);
  const mpfr_rnd_t rnd = native ? to_mpfr(mode) : MPFR_RNDZ;
  if (mpfr_zero_p(wide)) {  // an exact zero: its sign follows the direction (IEEE 754 6.3)
    op(wide, native ? rnd : MPFR_RNDN);
    return expected::exactly(encode(f, mpfr_signbit(wide) != 0, 0), num::flags::none);
  }
  expected e;
  e.mode = mode;
  e.negative = negative;
  mp rounded(f.precision);
  {
    // MPFR's operands must lie in its exponent range, so round in the wide
    // range first, then bring the result into f's range: mpfr_check_range and
    // mpfr_subnormalize take the first rounding's ternary value and so round
    // once. Smallest MPFR exponent: that of the smallest subnormal (of 2^emin
    // without subnormals); emax leaves room to see overflow past max.
    int t = op(rounded, rnd);
    exponent_range range(f.subnormals ? f.emin - f.precision + 2 : f.emin + 1, f.emax + 2);
    t = mpfr_check_range(rounded, t, rnd);
    if (f.subnormals) t = mpfr_subnormalize(rounded, t, rnd);
    e.inexact = t != 0;
  }
  e.magnitude = std::fabs(mpfr_get_d(rounded, MPFR_RNDZ));
  if (!native && std::isfinite(e.magnitude)) {
    const double q = grid_step(f, e.magnitude);
    const step_decision d = derived_step(mode, random_bits, word, wide, wide_inexact, e.magnitude, q);
    e.inexact = d.inexact;
    if (d.away) e.magnitude += q;
  }
  const double min_normal = std::ldexp(1.0, f.emin);
  e.tiny_before = mpfr_cmpabs(wide, mp(64, min_normal)) < 0;  // wide = RZ(x): exact comparison
  if (e.tiny_before) {
    mp unbounded(f.precision);
    op(unbounded, rnd);
    double u = std::fabs(mpfr_get_d(unbounded, MPFR_RNDZ));
    // One step away at most doubles u: below 2^(emin-1) it stays tiny (and
    // the step could fall below double's range).
    if (!native && u >= min_normal / 2) {
      const double q = std::ldexp(1.0, std::ilogb(u) - f.precision + 1);
      if (derived_step(mode, random_bits, word, wide, wide_inexact, u, q).away) u += q;
    }
    e.tiny_after = u < min_normal;
  }
  return e;
}

}  // namespace oracle
