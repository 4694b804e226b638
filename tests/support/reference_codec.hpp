// An independent reading of the format contract (docs/NUMERICS.md, format.hpp's
// header comment) for the oracles: bit patterns to values and back, the NaN
// conventions, and the special values of a format. Written from the contract,
// not from libnum's codec, so the oracles never lean on the code under test.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <libnum/format.hpp>

namespace oracle {

/// The layout of format f: 1 sign bit, the narrowest exponent field that holds
/// the biased exponents 1..emax+bias (+1 for the inf/NaN field), p-1 fraction bits.
struct layout {
  int fraction_bits;
  int exponent_bits;
  int bias;
  std::uint32_t sign_mask;
  std::uint32_t exponent_ones;  ///< the exponent field all ones, as an unshifted value
  std::uint32_t quiet_bit;      ///< top fraction bit (IEEE-style NaNs)

  explicit layout(const num::format& f) : fraction_bits(f.precision - 1), bias(1 - f.emin) {
    const int top = f.emax + bias + (f.infinities ? 1 : 0);
    exponent_bits = 0;
    while ((1 << exponent_bits) <= top) ++exponent_bits;
    sign_mask = std::uint32_t{1} << (exponent_bits + fraction_bits);
    exponent_ones = (std::uint32_t{1} << exponent_bits) - 1;
    quiet_bit = std::uint32_t{1} << (fraction_bits - 1);
  }
  std::uint32_t exponent(std::uint32_t bits) const { return (bits >> fraction_bits) & exponent_ones; }
  std::uint32_t fraction(std::uint32_t bits) const { return bits & ((std::uint32_t{1} << fraction_bits) - 1); }
  std::uint32_t all_ones_magnitude() const { return sign_mask - 1; }
};

enum class kind { finite, infinite, quiet_nan, signaling_nan };

/// A decoded bit pattern: sign, kind, and for finite values the magnitude.
struct decoded {
  kind what;
  bool negative;
  double magnitude;  ///< exact (every supported value is a float)
  bool is_nan() const { return what == kind::quiet_nan || what == kind::signaling_nan; }
  double value() const {
    if (what == kind::infinite) return negative ? -HUGE_VAL : HUGE_VAL;
    return negative ? -magnitude : magnitude;
  }
};

/// Reads bits of format f.
inline decoded decode(const num::format& f, std::uint32_t bits) {
  const layout l(f);
  const bool negative = (bits & l.sign_mask) != 0;
  const std::uint32_t e = l.exponent(bits), m = l.fraction(bits);
  if (f.infinities && e == l.exponent_ones) {
    if (m == 0) return {kind::infinite, negative, HUGE_VAL};
    return {(m & l.quiet_bit) != 0 ? kind::quiet_nan : kind::signaling_nan, negative, 0};
  }
  if (!f.infinities && (bits & ~l.sign_mask) == l.all_ones_magnitude()) return {kind::quiet_nan, negative, 0};
  if (e == 0) {
    // Without subnormals the whole exponent-zero field reads as zero.
    const double magnitude = f.subnormals ? std::ldexp(m, f.emin - l.fraction_bits) : 0.0;
    return {kind::finite, negative, magnitude};
  }
  const double significand = 1.0 + std::ldexp(m, -l.fraction_bits);
  return {kind::finite, negative, std::ldexp(significand, static_cast<int>(e) - l.bias)};
}

/// The bit pattern of ±magnitude, which must lie on f's grid and not exceed its max.
inline std::uint32_t encode(const num::format& f, bool negative, double magnitude) {
  const layout l(f);
  const std::uint32_t sign = negative ? l.sign_mask : 0;
  if (magnitude == 0) return sign;
  const int e = std::ilogb(magnitude);
  double scaled = 0;
  std::uint32_t field = 0;
  if (e >= f.emin) {
    scaled = std::ldexp(magnitude, l.fraction_bits - e) - std::ldexp(1.0, l.fraction_bits);
    field = static_cast<std::uint32_t>(e + l.bias) << l.fraction_bits;
  } else {
    scaled = std::ldexp(magnitude, l.fraction_bits - f.emin);
  }
  if (scaled != std::floor(scaled) || (e < f.emin && !f.subnormals) || e > f.emax) {
    throw std::logic_error("oracle: " + std::to_string(magnitude) + " is not a value of " + num::format_name(f));
  }
  return sign | field | static_cast<std::uint32_t>(scaled);
}

/// Largest finite magnitude: all-ones significand at emax, one less without
/// infinities (S.1111.111 is NaN there).
inline double max_magnitude(const num::format& f) {
  const double all_ones = std::ldexp(1.0, f.precision) - (f.infinities ? 1 : 2);
  return std::ldexp(all_ones, f.emax - f.precision + 1);
}

/// The default quiet NaN (positive, quiet bit, no payload) and ±inf (NaN
/// with that sign in a format without infinities).
inline std::uint32_t default_nan(const num::format& f) {
  const layout l(f);
  if (!f.infinities) return l.all_ones_magnitude();
  return (l.exponent_ones << l.fraction_bits) | l.quiet_bit;
}
inline std::uint32_t infinity(const num::format& f, bool negative) {
  const layout l(f);
  const std::uint32_t sign = negative ? l.sign_mask : 0;
  return sign | (f.infinities ? l.exponent_ones << l.fraction_bits : l.all_ones_magnitude());
}
inline std::uint32_t max_finite(const num::format& f, bool negative) {
  return encode(f, negative, max_magnitude(f));
}

/// NaN `bits` of `from` made a quiet NaN of `to`: same sign, the top payload
/// bits that fit, quiet bit set (docs/NUMERICS.md: "keeps its sign and top payload bits").
inline std::uint32_t quiet_nan_from(const num::format& from, std::uint32_t bits, const num::format& to) {
  const layout lf(from), lt(to);
  const std::uint32_t sign = (bits & lf.sign_mask) != 0 ? lt.sign_mask : 0;
  if (!to.infinities) return sign | lt.all_ones_magnitude();
  std::uint32_t payload = from.infinities ? lf.fraction(bits) : 0;
  const int shift = lt.fraction_bits - lf.fraction_bits;
  payload = shift >= 0 ? payload << shift : payload >> -shift;
  return sign | (lt.exponent_ones << lt.fraction_bits) | lt.quiet_bit | payload;
}

/// How many bit patterns format f has.
inline std::uint64_t pattern_count(const num::format& f) {
  const layout l(f);
  return std::uint64_t{1} << (1 + l.exponent_bits + l.fraction_bits);
}

/// The special values the binary-op tests cross with each other: ±0, ±min
/// subnormal, ±max subnormal, ±min normal, ±1, ±max, ±inf, a quiet and a
/// signalling NaN (those that exist in f).
inline std::vector<std::uint32_t> special_values(const num::format& f) {
  const layout l(f);
  std::vector<std::uint32_t> magnitudes = {0, encode(f, false, std::ldexp(1.0, f.emin)), encode(f, false, 1.0),
                                           encode(f, false, max_magnitude(f))};
  if (f.subnormals) {
    magnitudes.push_back(1);                               // min subnormal
    magnitudes.push_back((std::uint32_t{1} << l.fraction_bits) - 1);  // max subnormal
  }
  if (f.infinities) magnitudes.push_back(infinity(f, false));
  std::vector<std::uint32_t> values;
  for (std::uint32_t m : magnitudes) {
    values.push_back(m);
    values.push_back(m | l.sign_mask);
  }
  values.push_back(default_nan(f));
  if (f.infinities) values.push_back((l.exponent_ones << l.fraction_bits) | 1);  // signalling
  return values;
}

/// Whether a binary16 pattern is a NaN: exponent field all ones, fraction nonzero.
inline bool is_f16_nan(std::uint32_t bits) { return (bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0; }

}  // namespace oracle
