// Encoding and decoding of format bit patterns; classification; NaN handling.
#pragma once

#include <cstdint>

#include "format.hpp"

namespace num {

/// The class of an encoded value.
enum class value_class : std::uint8_t { zero, subnormal, normal, infinite, quiet_nan, signaling_nan };

/// Classifies an encoding of format f.
value_class classify(const format& f, std::uint32_t bits);
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

}  // namespace num
