// Encoding and decoding of format bit patterns; classification; NaN handling.
#pragma once

#include <cstdint>

#include "format.hpp"
#include "rounding.hpp"

namespace num {

/// The class of an encoded value.
enum class value_class : std::uint8_t { zero, subnormal, normal, infinite, quiet_nan, signaling_nan };

/// Classifies an encoding of format f. (Inline: the scalar arithmetic asks
/// several times per operation, and folds it for its fixed-format instances.)
inline value_class classify(const format& f, std::uint32_t bits) {
  const std::uint32_t e = (bits >> f.fraction_bits()) & f.exponent_field_max();
  const std::uint32_t frac = bits & f.fraction_mask();
  if (f.nans() == nan_encoding::all_ones) {
    if ((bits & ~f.sign_mask()) == f.sign_mask() - 1) return value_class::quiet_nan;  // S.1...1.1...1
  } else if (e == f.exponent_field_max()) {
    if (frac == 0) return value_class::infinite;
    const std::uint32_t quiet_bit = std::uint32_t{1} << (f.fraction_bits() - 1);
    return (frac & quiet_bit) != 0 ? value_class::quiet_nan : value_class::signaling_nan;
  }
  if (e == 0) {
    if (frac == 0 || !f.subnormals) return value_class::zero;
    return value_class::subnormal;
  }
  return value_class::normal;
}
inline bool is_nan(const format& f, std::uint32_t bits) {
  const value_class c = classify(f, bits);
  return c == value_class::quiet_nan || c == value_class::signaling_nan;
}
inline bool is_signaling_nan(const format& f, std::uint32_t bits) {
  return classify(f, bits) == value_class::signaling_nan;
}
inline bool is_negative(const format& f, std::uint32_t bits) { return (bits & f.sign_mask()) != 0; }

/// The value of an encoding as a double / float: exact for every supported format.
double to_double(const format& f, std::uint32_t bits);
float to_float(const format& f, std::uint32_t bits);

/// Encodings of special values.
std::uint32_t zero_bits(const format& f, bool negative);
std::uint32_t infinity_bits(const format& f, bool negative);  ///< NaN if f has no infinities
std::uint32_t max_finite_bits(const format& f, bool negative);
/// The default quiet NaN: positive, quiet bit set, no payload.
std::uint32_t default_nan_bits(const format& f);

/// A NaN of format `to` for a NaN `bits` of format `from`: keeps the sign and
/// the top payload bits, and is quiet.
std::uint32_t convert_nan(const format& from, std::uint32_t bits, const format& to);

/// The NaN an invalid operation without NaN operands (inf - inf, 0 * inf,
/// sqrt(-1)) creates in f under convention c (see nan_convention).
std::uint32_t invalid_nan_bits(const format& f, nan_convention c);
/// A result `bits` of f as convention c delivers it: a NaN becomes the
/// default NaN (arm_default_nan) or the canonical NaN (cuda_canonical);
/// anything else, and every NaN under first_operand and x86_sse, unchanged.
std::uint32_t nan_result_bits(const format& f, std::uint32_t bits, nan_convention c);
/// An operation's or conversion's result as convention c delivers it:
/// nan_result_bits, except that under cuda_canonical a NaN that stands for a
/// value out of the format's range (`out_of_range`: an overflow in a format
/// without infinities or under overflow_mode::nan, or an infinity converted
/// into a format without infinities) keeps that value's sign, as an H100's
/// E4M3 conversions without saturation do (-1000 and -inf -> 0xFF; tests/device).
std::uint32_t delivered_result_bits(const format& f, std::uint32_t bits, bool out_of_range, nan_convention c);

}  // namespace num
