// Conversions: doubles, floats, other formats and integers, each rounded once.
#include "libnum/convert.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include "libnum/arithmetic.hpp"
#include "libnum/codec.hpp"
#include "core/exact_value.hpp"

namespace num {
namespace {

// An IEEE binary interchange value given by its fields.
struct ieee_fields {
  bool negative;
  std::uint64_t exponent_field;
  std::uint64_t fraction;
  int fraction_bits;
  int bias;
  std::uint64_t exponent_max;
};

// Saturating conversion clamps infinities too (as CUDA's __NV_SATFINITE and
// the OCP FP8 saturating mode do, verified on an H100).
rounded infinity_into(const format& f, bool negative, const round_spec& spec) {
  if (spec.overflow == overflow_mode::saturate) {
    return {max_finite_bits(f, negative), flags::overflow | flags::inexact};
  }
  if (f.infinities) return {infinity_bits(f, negative), flags::none};
  return {infinity_bits(f, negative), flags::invalid};
}

rounded from_ieee(const format& f, const ieee_fields& x, const round_spec& spec, std::uint32_t word) {
  if (x.exponent_field == x.exponent_max) {
    if (x.fraction == 0) return infinity_into(f, x.negative, spec);
    const std::uint64_t quiet_bit = std::uint64_t{1} << (x.fraction_bits - 1);
    const flags raised = (x.fraction & quiet_bit) == 0 ? flags::invalid : flags::none;
    const std::uint32_t sign = x.negative ? f.sign_mask() : 0;
    if (f.nans() == nan_encoding::all_ones) return {sign | default_nan_bits(f), raised};
    const auto payload = static_cast<std::uint32_t>(x.fraction >> (x.fraction_bits - f.fraction_bits()));
    return {sign | default_nan_bits(f) | (payload & f.fraction_mask()), raised};
  }
  exact_value v;
  v.negative = x.negative;
  if (x.exponent_field == 0) {
    v.significand = x.fraction;
    v.exponent = 1 - x.bias - x.fraction_bits;
  } else {
    v.significand = x.fraction | (std::uint64_t{1} << x.fraction_bits);
    v.exponent = static_cast<int>(x.exponent_field) - x.bias - x.fraction_bits;
  }
  return round_exact(v, f, spec, word);
}

integer_result to_integer(const format& f, std::uint32_t bits, const round_spec& spec,
                          std::uint32_t word, bool signal_inexact, int width) {
  const std::int64_t minimum = width == 32 ? std::numeric_limits<std::int32_t>::min()
                                           : std::numeric_limits<std::int64_t>::min();
  const value_class c = classify(f, bits);
  if (c == value_class::infinite || c == value_class::quiet_nan || c == value_class::signaling_nan) {
    return {minimum, flags::invalid};
  }
  const exact_value x = decode_finite(f, bits);
  const integral_rounding r = round_to_integer(x, spec, word);
  const uint128 limit = (uint128{1} << (width - 1)) - (x.negative ? 0 : 1);
  if (r.magnitude > limit) return {minimum, flags::invalid};
  const auto magnitude = static_cast<std::uint64_t>(r.magnitude);
  const std::int64_t value = x.negative ? static_cast<std::int64_t>(0 - magnitude)
                                        : static_cast<std::int64_t>(magnitude);
  return {value, r.inexact && signal_inexact ? flags::inexact : flags::none};
}

// A result as spec.nans delivers it (conversions keep a NaN's sign and top
// payload bits under first_operand and x86_sse). `from_infinity`: the value
// converted was an infinity, which a format without infinities makes a NaN
// standing for it, as an overflow does.
rounded delivered(const format& f, rounded r, const round_spec& spec, bool from_infinity) {
  const bool out_of_range = from_infinity || any(r.raised, flags::overflow);
  return {delivered_result_bits(f, r.bits, out_of_range, spec.nans), r.raised};
}

rounded convert_first_operand(const format& from, std::uint32_t bits, const format& to, const round_spec& spec,
                              std::uint32_t random_word) {
  switch (classify(from, bits)) {
    case value_class::quiet_nan: return {convert_nan(from, bits, to), flags::none};
    case value_class::signaling_nan: return {convert_nan(from, bits, to), flags::invalid};
    case value_class::infinite: return infinity_into(to, is_negative(from, bits), spec);
    default: return round_exact(decode_finite(from, bits), to, spec, random_word);
  }
}

}  // namespace

rounded from_double(const format& f, double x, const round_spec& spec, std::uint32_t random_word) {
  const auto b = std::bit_cast<std::uint64_t>(x);
  return delivered(
      f,
      from_ieee(f, {(b >> 63) != 0, (b >> 52) & 0x7FF, b & ((std::uint64_t{1} << 52) - 1), 52, 1023, 0x7FF}, spec,
                random_word),
      spec, std::isinf(x));
}

rounded from_float(const format& f, float x, const round_spec& spec, std::uint32_t random_word) {
  const auto b = std::bit_cast<std::uint32_t>(x);
  return delivered(f, from_ieee(f, {(b >> 31) != 0, (b >> 23) & 0xFF, b & 0x7FFFFF, 23, 127, 0xFF}, spec, random_word),
                   spec, std::isinf(x));
}

rounded convert(const format& from, std::uint32_t bits, const format& to, const round_spec& spec,
                std::uint32_t random_word) {
  // Only cuda_canonical asks whether the value was an infinity: no second classify otherwise.
  const bool from_infinity =
      spec.nans == nan_convention::cuda_canonical && classify(from, bits) == value_class::infinite;
  return delivered(to, convert_first_operand(from, bits, to, spec, random_word), spec, from_infinity);
}

rounded from_int64(const format& f, std::int64_t v, const round_spec& spec, std::uint32_t random_word) {
  exact_value x;
  x.negative = v < 0;
  x.significand = v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  return round_exact(x, f, spec, random_word);
}

integer_result to_int32(const format& f, std::uint32_t bits, const round_spec& spec,
                        std::uint32_t random_word, bool signal_inexact) {
  return to_integer(f, bits, spec, random_word, signal_inexact, 32);
}

integer_result to_int64(const format& f, std::uint32_t bits, const round_spec& spec,
                        std::uint32_t random_word, bool signal_inexact) {
  return to_integer(f, bits, spec, random_word, signal_inexact, 64);
}

rounded round_to_integral(const format& f, std::uint32_t bits, const round_spec& spec,
                          std::uint32_t random_word, bool signal_inexact) {
  const value_class c = classify(f, bits);
  if (c == value_class::quiet_nan || c == value_class::signaling_nan) return propagate_nan(f, bits, bits, spec.nans);
  if (c == value_class::infinite || c == value_class::zero) return {bits, flags::none};
  const exact_value x = decode_finite(f, bits);
  if (x.exponent >= 0) return {bits, flags::none};
  const integral_rounding r = round_to_integer(x, spec, random_word);
  const flags raised = r.inexact && signal_inexact ? flags::inexact : flags::none;
  if (r.magnitude == 0) return {zero_bits(f, x.negative), raised};
  // An integer no larger than 2^p: exact in f.
  const exact_value integral{x.negative, 0, r.magnitude, false};
  return {round_exact(integral, f, round_spec{}, 0).bits, raised};
}

}  // namespace num
