// Encoding, decoding and classification of format bit patterns.
#include "libnum/codec.hpp"

#include <bit>
#include <cmath>

#include "core/exact_value.hpp"

namespace num {
namespace {

std::uint32_t all_ones_nan(const format& f) { return f.sign_mask() - 1; }

}  // namespace

double to_double(const format& f, std::uint32_t bits) {
  const bool negative = is_negative(f, bits);
  switch (classify(f, bits)) {
    case value_class::infinite: return negative ? -HUGE_VAL : HUGE_VAL;
    case value_class::quiet_nan:
    case value_class::signaling_nan: {
      const std::uint64_t payload =
          f.nans() == nan_encoding::ieee
              ? static_cast<std::uint64_t>(bits & f.fraction_mask()) << (52 - f.fraction_bits())
              : 0;
      const std::uint64_t d = (negative ? std::uint64_t{1} << 63 : 0) |
                              (std::uint64_t{0x7FF} << 52) | (std::uint64_t{1} << 51) | payload;
      return std::bit_cast<double>(d);
    }
    default: break;
  }
  const exact_value x = decode_finite(f, bits);
  const double magnitude = std::ldexp(static_cast<double>(static_cast<std::uint64_t>(x.significand)), x.exponent);
  return negative ? -magnitude : magnitude;
}

float to_float(const format& f, std::uint32_t bits) {
  if (is_nan(f, bits)) {
    const std::uint32_t payload =
        f.nans() == nan_encoding::ieee ? (bits & f.fraction_mask()) << (23 - f.fraction_bits()) : 0;
    return std::bit_cast<float>((is_negative(f, bits) ? 0x80000000u : 0u) | 0x7FC00000u | payload);
  }
  return static_cast<float>(to_double(f, bits));  // exact: every value of f is a float
}

std::uint32_t zero_bits(const format& f, bool negative) { return negative ? f.sign_mask() : 0; }

std::uint32_t infinity_bits(const format& f, bool negative) {
  const std::uint32_t sign = negative ? f.sign_mask() : 0;
  if (!f.infinities) return sign | all_ones_nan(f);
  return sign | (f.exponent_field_max() << f.fraction_bits());
}

std::uint32_t max_finite_bits(const format& f, bool negative) {
  const std::uint32_t sign = negative ? f.sign_mask() : 0;
  if (!f.infinities) return sign | (all_ones_nan(f) - 1);
  return sign | (((f.exponent_field_max() - 1) << f.fraction_bits()) | f.fraction_mask());
}

std::uint32_t default_nan_bits(const format& f) {
  if (f.nans() == nan_encoding::all_ones) return all_ones_nan(f);
  return (f.exponent_field_max() << f.fraction_bits()) |
         (std::uint32_t{1} << (f.fraction_bits() - 1));
}

std::uint32_t convert_nan(const format& from, std::uint32_t bits, const format& to) {
  const std::uint32_t sign = is_negative(from, bits) ? to.sign_mask() : 0;
  if (to.nans() == nan_encoding::all_ones) return sign | all_ones_nan(to);
  std::uint32_t payload = from.nans() == nan_encoding::ieee ? bits & from.fraction_mask() : 0;
  const int shift = to.fraction_bits() - from.fraction_bits();
  payload = shift >= 0 ? payload << shift : payload >> -shift;
  return sign | default_nan_bits(to) | (payload & to.fraction_mask());
}

std::uint32_t invalid_nan_bits(const format& f, nan_convention c) {
  switch (c) {
    case nan_convention::x86_sse: return f.sign_mask() | default_nan_bits(f);
    case nan_convention::cuda_canonical: return all_ones_nan(f);
    case nan_convention::first_operand:
    case nan_convention::arm_default_nan: break;
  }
  return default_nan_bits(f);
}

std::uint32_t nan_result_bits(const format& f, std::uint32_t bits, nan_convention c) {
  if (c == nan_convention::first_operand || c == nan_convention::x86_sse || !is_nan(f, bits)) return bits;
  return c == nan_convention::arm_default_nan ? default_nan_bits(f) : all_ones_nan(f);
}

std::uint32_t delivered_result_bits(const format& f, std::uint32_t bits, bool out_of_range, nan_convention c) {
  if (c == nan_convention::cuda_canonical && out_of_range) return bits;
  return nan_result_bits(f, bits, c);
}

}  // namespace num
