// Block scales: the MX E8M0 rules (OCP MX v1.0 §6.3 and torchao's RCEIL and
// EVEN variants), NVFP4's two-level E4M3 × fp32 scale, and fp32 scales.
#include "block_scale.hpp"

#include <bit>
#include <cfenv>
#include <cmath>
#include <limits>

#include "fast_element_rounding.hpp"
#include "libnum/codec.hpp"

namespace num::scaled_detail {
namespace {

constexpr round_spec nearest_even_saturating{rounding::nearest_even, 32, tininess::after_rounding,
                                             overflow_mode::saturate};

// The element's largest value as a divisor: 6 = 3·2, 7.5 = 15·2^-1, ...
divisor element_max_divisor(element_type t) {
  if (t == element_type::int8) return make_divisor(127, -6);
  const format g = *element_value_grid(t);
  return make_divisor(g.max_significand(), g.emax - g.fraction_bits());
}

// Bits of the element's significand (INT8: its 7 magnitude bits), for EVEN.
int element_precision(element_type t) { return t == element_type::int8 ? 7 : element_value_grid(t)->precision; }

// amax rounded (ties away) to p significant bits: its exponent after the carry.
int exponent_rounded_to(float amax, int p) {
  int e = 0;
  const float m = std::frexp(amax, &e);  // amax = m · 2^e, m in [0.5, 1)
  const auto bits = static_cast<std::uint64_t>(std::ldexp(m, 24));
  const std::uint64_t half = p >= 24 ? 0 : std::uint64_t{1} << (24 - p - 1);
  return (bits + half) >> 24 != 0 ? e : e - 1;  // ilogb of the rounded amax
}

block_scale e8m0_scale(int wanted) {
  block_scale s;
  if (wanted < -127) {
    wanted = -127;
    s.fit = scale_fit::underflowed;
  } else if (wanted > 127) {
    wanted = 127;
    s.fit = scale_fit::overflowed;
  }
  s.code = static_cast<std::uint32_t>(wanted + 127);
  s.by = make_divisor(1, wanted);
  return s;
}

// Smallest w with max_elem · 2^w >= amax · 2^margin (amax > 0).
int ceil_exponent(element_type t, float amax, int margin) {
  const int w0 = std::ilogb(amax) + margin - element_emax(t);
  return std::ldexp(static_cast<double>(amax), margin) > std::ldexp(element_max(t), w0) ? w0 + 1 : w0;
}

float fp32_of(const exact_value& v) {
  return std::bit_cast<float>(round_exact(v, binary32, nearest_even_saturating, 0).bits);
}

block_scale fp32_scale(float value, scale_fit fit) {
  block_scale s;
  s.code = std::bit_cast<std::uint32_t>(value);
  s.by = divisor_of(value);
  s.fit = fit;
  return s;
}

// amax · 2^margin / max_elem rounded once to fp32 (nearest even), saturating.
block_scale fp32_amax_exact(const scale_context& c, float amax) {
  exact_value wanted = exact_quotient(amax, element_max_divisor(c.element));
  wanted.exponent += c.margin;
  const rounded r = round_exact(wanted, binary32, nearest_even_saturating, 0);
  if (any(r.raised, flags::overflow)) return fp32_scale(std::numeric_limits<float>::max(), scale_fit::overflowed);
  if ((r.bits & 0x7FFFFFFFu) == 0) {
    return fp32_scale(std::numeric_limits<float>::denorm_min(), scale_fit::underflowed);
  }
  return fp32_scale(std::bit_cast<float>(r.bits), scale_fit::fits);
}

// The same from a double division where that is exact: max_elem = odd · 2^k
// with odd <= 127, so a quotient that does not terminate lies at least
// 2^-32 (relative) from every fp32 rounding boundary (a 25-bit dyadic B
// gives |M/odd - B| >= 1/(odd · 2^t) against B < 2^(25-t)), far beyond the
// double's 2^-53 error, and one that terminates has at most 24 bits and is
// exact in double; the conversion to fp32 is then the one rounding. Taken
// only under round-to-nearest with amax and the result normal fp32, so that
// neither the rounding mode nor FTZ/DAZ can change it; else exactly.
block_scale fp32_amax_scale(const scale_context& c, float amax) {
  const double wanted = std::ldexp(static_cast<double>(amax) / element_max(c.element), c.margin);
  const auto value = static_cast<float>(wanted);
  const bool normal = amax >= std::numeric_limits<float>::min() && value >= std::numeric_limits<float>::min() &&
                      value <= std::numeric_limits<float>::max();
  if (normal && std::fegetround() == FE_TONEAREST) return fp32_scale(value, scale_fit::fits);
  return fp32_amax_exact(c, amax);
}

block_scale fp32_pow2_scale(const scale_context& c, float amax) {
  const int w = ceil_exponent(c.element, amax, c.margin);
  if (w > 127) return fp32_scale(std::ldexp(1.0f, 127), scale_fit::overflowed);
  if (w < -149) return fp32_scale(std::numeric_limits<float>::denorm_min(), scale_fit::underflowed);
  return fp32_scale(std::ldexp(1.0f, w), scale_fit::fits);
}

block_scale nvfp4_scale(const scale_context& c, float amax) {
  // S = amax / (6 · s) rounded once into E4M3 (nearest even, saturating at 448).
  static const element_params e4m3(element_type::e4m3);
  const divisor six_s = make_divisor(3, 1) * divisor_of(c.tensor_scale);
  const bracket q = quotient_bracket(amax, six_s);
  element_result r;
  round_element_fast(e4m3, false, q.m, q.exponent, q.sticky, nearest_even_saturating, 0, false, r);
  block_scale s;
  s.code = r.code;
  if (r.saturated) s.fit = scale_fit::overflowed;
  if (s.code == 0) {
    s.zero = true;
    s.fit = scale_fit::underflowed;
    return s;
  }
  const exact_value v = decode_finite(fp8_e4m3, s.code);
  s.by = make_divisor(static_cast<std::uint64_t>(v.significand), v.exponent) * divisor_of(c.tensor_scale);
  return s;
}

}  // namespace

block_scale scale_for(const scale_context& c, float amax) {
  const bool empty = amax == 0;
  switch (c.rule) {
    case scale_rule::mx_floor:
      // §6.3: floor(log2(amax)) - emax_elem; an all-zero block takes the
      // smallest scale (the log is -inf, clamped to E8M0's range).
      if (empty) return e8m0_scale(-127);
      return e8m0_scale(std::ilogb(amax) - element_emax(c.element));
    case scale_rule::mx_rceil:
      if (empty) return e8m0_scale(-127);
      return e8m0_scale(ceil_exponent(c.element, amax, 0));
    case scale_rule::mx_even:
      if (empty) return e8m0_scale(-127);
      return e8m0_scale(exponent_rounded_to(amax, element_precision(c.element)) - element_emax(c.element));
    case scale_rule::nvfp4: {
      if (empty) {
        block_scale s;
        s.zero = true;
        return s;
      }
      return nvfp4_scale(c, amax);
    }
    case scale_rule::fp32_amax:
      if (empty) return fp32_scale(1.0f, scale_fit::fits);
      return fp32_amax_scale(c, amax);
    case scale_rule::fp32_amax_pow2:
      if (empty) return fp32_scale(1.0f, scale_fit::fits);
      return fp32_pow2_scale(c, amax);
    case scale_rule::fp32_given: return fp32_scale(c.given_scale, scale_fit::fits);
  }
  return {};
}

float nvfp4_tensor_scale(float tensor_amax) {
  if (tensor_amax == 0) return 1.0f;
  const float s = fp32_of(exact_quotient(tensor_amax, make_divisor(448 * 6, 0)));
  return s == 0 ? std::numeric_limits<float>::denorm_min() : s;
}

std::uint32_t nan_scale_code(scale_type t) {
  switch (t) {
    case scale_type::e8m0: return 0xFFu;
    case scale_type::ue4m3: return 0x7Fu;
    case scale_type::fp32: return 0x7FC00000u;
  }
  return 0;
}

}  // namespace num::scaled_detail
