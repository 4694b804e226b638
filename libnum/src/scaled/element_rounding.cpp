// Element rounding for the scaled formats: the exact quotient x / scale is
// rounded once by libnum's round_exact (floating elements) or
// round_to_integer (MX INT8), so every rounding mode behaves exactly as for
// the per-element formats.
#include "element_rounding.hpp"

#include <bit>
#include <cmath>

#include "libnum/codec.hpp"
#include "libnum/convert.hpp"

namespace num::scaled_detail {
namespace {

// Extra quotient bits: the float's 24 bits shifted by 100 leave at least 72
// significant bits after dividing by a divisor below 2^40 (>= 64 as required).
constexpr int quotient_shift = 100;

// The element code of a rounding into the element's value grid: E4M3/E5M2
// are the grid itself; the others drop the grid's unused infinity exponent
// bit, keeping magnitude bits and moving the sign to the element's top bit.
std::uint32_t code_from_grid(element_type t, const format& grid, std::uint32_t bits) {
  if (element_has_specials(t)) return bits;
  const std::uint32_t magnitude = bits & (grid.sign_mask() - 1);
  const std::uint32_t sign = (bits & grid.sign_mask()) != 0 ? std::uint32_t{1} << (element_bits(t) - 1) : 0;
  return sign | magnitude;
}

std::uint32_t grid_from_code(element_type t, const format& grid, std::uint32_t code) {
  if (element_has_specials(t)) return code;
  const std::uint32_t sign_bit = std::uint32_t{1} << (element_bits(t) - 1);
  return ((code & sign_bit) != 0 ? grid.sign_mask() : 0) | (code & (sign_bit - 1));
}

int bit_length(uint128 v) {
  const auto high = static_cast<std::uint64_t>(v >> 64);
  return high != 0 ? 128 - std::countl_zero(high) : 64 - std::countl_zero(static_cast<std::uint64_t>(v));
}

element_result round_int8(const exact_value& q, const round_spec& spec, std::uint32_t word, bool symmetric) {
  // MX INT8 is k · 2^-6: round q · 2^6 to an integer k.
  exact_value scaled = q;
  scaled.exponent += 6;
  const std::uint64_t limit = q.negative && !symmetric ? 128 : 127;
  element_result out;
  // At 2^8 and above the integer is past every limit (and round_to_integer's
  // 128 bits could not hold its shift): saturate without rounding.
  if (q.significand != 0 && scaled.exponent + bit_length(q.significand) - 1 >= 8) {
    out.saturated = true;
    out.raised = flags::overflow | flags::inexact;
    out.code = static_cast<std::uint32_t>(q.negative ? 0u - static_cast<std::uint32_t>(limit)
                                                     : static_cast<std::uint32_t>(limit)) &
               0xFFu;
    return out;
  }
  const integral_rounding r = round_to_integer(scaled, spec, word);
  std::uint64_t magnitude = 0;
  if (r.magnitude > limit) {
    magnitude = limit;
    out.saturated = true;
    out.raised = flags::overflow | flags::inexact;
  } else {
    magnitude = static_cast<std::uint64_t>(r.magnitude);
    out.raised = r.inexact ? flags::inexact : flags::none;
  }
  out.zero = magnitude == 0;
  const auto k = q.negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
  out.code = static_cast<std::uint32_t>(k) & 0xFFu;
  return out;
}

}  // namespace

divisor make_divisor(std::uint64_t d, int k) {
  const int zeros = std::countr_zero(d);
  return {d >> zeros, k + zeros, std::ldexp(static_cast<double>(d), k)};
}

divisor divisor_of(float positive) {
  int e = 0;
  const float m = std::frexp(positive, &e);  // positive = m · 2^e, m in [0.5, 1)
  return make_divisor(static_cast<std::uint64_t>(std::ldexp(m, 24)), e - 24);
}

divisor operator*(divisor a, divisor b) { return make_divisor(a.odd * b.odd, a.exponent + b.exponent); }

exact_value exact_quotient(float x, divisor by) {
  exact_value v;
  v.negative = std::signbit(x);
  if (x == 0) return v;
  int e = 0;
  const float m = std::frexp(std::fabs(x), &e);
  const auto significand = static_cast<std::uint64_t>(std::ldexp(m, 24));
  if (by.odd == 1) {
    v.significand = significand;
    v.exponent = e - 24 - by.exponent;
    return v;
  }
  const uint128 numerator = static_cast<uint128>(significand) << quotient_shift;
  v.significand = numerator / by.odd;
  v.sticky = numerator % by.odd != 0;
  v.exponent = e - 24 - quotient_shift - by.exponent;
  return v;
}

element_result round_element(element_type t, const exact_value& q, const round_spec& spec, std::uint32_t random_word,
                             bool int8_symmetric) {
  if (t == element_type::int8) return round_int8(q, spec, random_word, int8_symmetric);
  const format grid = *element_value_grid(t);
  const rounded r = round_exact(q, grid, spec, random_word);
  element_result out;
  out.raised = r.raised;
  out.saturated = any(r.raised, flags::overflow);
  if (out.saturated && !element_has_specials(t)) {
    // The grid's largest code: exponent field emax + bias, fraction all ones.
    out.code = (q.negative ? std::uint32_t{1} << (element_bits(t) - 1) : 0) |
               (static_cast<std::uint32_t>(grid.emax + grid.bias()) << grid.fraction_bits()) | grid.fraction_mask();
    return out;
  }
  out.code = code_from_grid(t, grid, r.bits);
  out.zero = (r.bits & (grid.sign_mask() - 1)) == 0;
  return out;
}

element_result special_element(element_type t, float x, const round_spec& spec) {
  const rounded r = from_float(*element_value_grid(t), x, spec);
  element_result out;
  out.code = r.bits;
  out.raised = r.raised;
  out.saturated = std::isinf(x) && any(r.raised, flags::overflow);
  return out;
}

double decode_element(element_type t, std::uint32_t code) {
  if (t == element_type::int8) return static_cast<double>(static_cast<std::int8_t>(code & 0xFFu)) / 64.0;
  const format grid = *element_value_grid(t);
  const std::uint32_t mask = (std::uint32_t{1} << element_bits(t)) - 1;
  return to_double(grid, grid_from_code(t, grid, code & mask));
}

}  // namespace num::scaled_detail
