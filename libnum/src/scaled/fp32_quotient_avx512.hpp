// Internal: the fp32-scale kernel's fast element rounding (fp32_scale_avx512.cpp):
// sixteen E4M3 or E5M2 codes of |x| / D from approximate quotients, where
// no lane lies near a rounding boundary. Include after avx512_region.hpp.
//
// Why an approximate quotient is enough (the argument of
// nvfp4_quotient_avx512.hpp, for any element precision p). Every decision
// of the rounding of Q = |x| / D is a comparison of Q with a boundary B of
// at most p + 1 significant bits: a grid point (exactness), a midpoint, the
// saturation midpoint (E4M3 464, E5M2 61440) or a tininess point (2^emin,
// (1 - 2^-p) · 2^emin, (1 - 2^-(p+1)) · 2^emin). B's fp32 pattern is a
// multiple of 2^(23 - p). The quotient y = RN32(|x| · RN32(RN64(1/D))) is
// within 2^-23 (relative), at most 4 fp32 patterns, of Q. A lane whose y
// lies more than 8 patterns from every multiple of 2^(23 - p) therefore
// lies on the same side of every boundary as Q, and Q lies on none: the
// lane rounds as Q does in every mode (nearest-away as nearest-even: no
// ties), is inexact, and is tiny exactly where y is below the mode's
// tininess point. Lanes of y below a quarter of the smallest subnormal lie
// far from every boundary (those below 2^-126 too, whatever fp32's
// subnormal quotient lost). A vector with a lane nearer than that (about
// 2^-14 of random vectors; every lane of data on the element grid) goes to
// the exact path instead, so the results are the same bit for bit, and 16
// fp32 lanes replace 8 double lanes and a division.
#pragma once

#include <cstdint>

#include "fp32_scale_kernel.hpp"
#include "libnum/rounding.hpp"

namespace num::scaled_detail {
namespace {

/// The fast rounding of one element format and mode (not stochastic); its
/// constants are opaque members (avx512_region.hpp).
template <rounding Mode>
class fp32_quotient_rounding {
 public:
  static_assert(Mode != rounding::stochastic);

  fp32_quotient_rounding(const fp32_kernel_setup& k, float reciprocal)
      : reciprocal_(_mm512_set1_ps(reciprocal)),
        cap_(opaque(splat(cap_pattern(k)))),
        least_(opaque(splat(static_cast<std::uint32_t>(127 + k.emin - k.precision - 1) << 23))),
        near_offset_(opaque(splat(8))),
        near_bits_(opaque(splat(((1u << (23 - k.precision)) - 1) & ~0xFu))),
        emin_bits_(opaque(splat(static_cast<std::uint32_t>(127 + k.emin) << 23))),
        exponent_(opaque(splat(0x7F800000))),
        c_offset_(opaque(splat(static_cast<std::uint32_t>(24 - k.precision) << 23))),
        c_field_offset_(opaque(splat(static_cast<std::uint32_t>(127 + k.emin + 24 - k.precision)
                                     << (k.precision - 1)))),
        max_code_(opaque(splat(k.max_code))),
        unit_(opaque(splat(1))),
        sign_code_(opaque(splat(0x80))),
        sure_above_(_mm512_set1_ps(rounded_down(k.lone_scale_fits_above))),
        normal_shift_(_mm_cvtsi32_si128(24 - k.precision)),
        tiny_below_(tininess_point(k)),
        tiny_below_up_(k.spec.tiny == tininess::after_rounding ? tininess_point_up(k) : tiny_below_) {}

  /// Whether reciprocal (RN32 of 1/D) is a normal fp32, as the error bound
  /// above needs.
  static bool usable(float reciprocal) {
    return __builtin_bit_cast(std::uint32_t, reciprocal) - 0x00800000u < 0x7F000000u;
  }

  /// Sixteen codes (sign in bit 7) of x (fp32 patterns, finite) into
  /// `codes`, adding to `counts`; false, with nothing written or counted,
  /// where a lane lies near a boundary.
  NUMLAB_INLINE bool sixteen(__m512i x, std::uint8_t* codes, fp32_segment_counts& counts) const {
    constexpr int nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    constexpr int truncate = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
    constexpr bool nearest_mode = Mode == rounding::nearest_even || Mode == rounding::nearest_away;
    const __m512i a = _mm512_and_si512(x, splat(0x7FFFFFFF));
    // y, capped above every boundary (everything from the cap up saturates).
    const __m512i y = _mm512_min_epu32(
        _mm512_castps_si512(_mm512_mul_round_ps(_mm512_castsi512_ps(a), reciprocal_, nearest)), cap_);
    const __mmask16 large = _mm512_cmpge_epu32_mask(y, least_);
    if (_mm512_mask_testn_epi32_mask(large, _mm512_add_epi32(y, near_offset_), near_bits_) != 0) return false;
    // Round y at the element's quantum by adding C = 2^(23 + the quantum's
    // exponent), whose ulp that is (as the MX kernel's nearest_even16 does).
    const __m512i c = _mm512_add_epi32(_mm512_and_si512(_mm512_max_epu32(y, emin_bits_), exponent_), c_offset_);
    const __m512i sum = _mm512_castps_si512(
        _mm512_add_round_ps(_mm512_castsi512_ps(y), _mm512_castsi512_ps(c), nearest_mode ? nearest : truncate));
    // code = the quanta above C + (max(E_y, E_emin) - E_emin) · 2^(p-1), from C's field.
    __m512i code = _mm512_add_epi32(_mm512_sub_epi32(sum, c),
                                    _mm512_sub_epi32(_mm512_srl_epi32(c, normal_shift_), c_field_offset_));
    // Every nonzero lane is inexact here: the directed modes round the
    // truncated magnitude up where the sign says so, to-odd makes it odd.
    const __mmask16 nonzero = _mm512_test_epi32_mask(a, a);
    const __mmask16 negative = _mm512_movepi32_mask(x);
    __mmask16 magnitude_up = 0;
    if constexpr (Mode == rounding::toward_positive) {
      magnitude_up = nonzero & static_cast<__mmask16>(~negative);
    } else if constexpr (Mode == rounding::toward_negative) {
      magnitude_up = nonzero & negative;
    }
    if constexpr (Mode == rounding::to_odd) {
      code = _mm512_mask_or_epi32(code, nonzero, code, unit_);
    } else {
      code = _mm512_mask_add_epi32(code, magnitude_up, code, unit_);
    }
    const __mmask16 saturated = _mm512_cmpgt_epu32_mask(code, max_code_);
    code = _mm512_min_epu32(code, max_code_);
    const __mmask16 flushed = _mm512_mask_testn_epi32_mask(nonzero, code, code);
    counts.inexact += popcount(nonzero);
    counts.saturated += popcount(saturated);
    counts.flushed += popcount(flushed);
    counts.flushed_sure += popcount(_mm512_mask_cmp_ps_mask(flushed, _mm512_castsi512_ps(a), sure_above_, _CMP_GT_OQ));
    if (!counts.underflow && nonzero != 0) {
      const __m512i limit = _mm512_mask_mov_epi32(splat(tiny_below_), magnitude_up, splat(tiny_below_up_));
      counts.underflow = _mm512_mask_cmplt_epu32_mask(nonzero, y, limit) != 0;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(codes),
                     _mm512_cvtepi32_epi8(_mm512_mask_or_epi32(code, negative, code, sign_code_)));
    return true;
  }

 private:
  static std::uint64_t popcount(__mmask16 k) {
    return static_cast<std::uint64_t>(__builtin_popcount(static_cast<std::uint32_t>(k)));
  }

  // 2^(emax + 2), which saturates in every mode, moved half a boundary
  // spacing off the boundaries' multiples of 2^(23 - p).
  static std::uint32_t cap_pattern(const fp32_kernel_setup& k) {
    const int emax = static_cast<int>(k.max_code >> (k.precision - 1)) - k.bias;
    return (static_cast<std::uint32_t>(127 + emax + 2) << 23) + (1u << (22 - k.precision));
  }

  // The largest fp32 at most v (NaN stays NaN: no lane is above it).
  static float rounded_down(double v) {
    return _mm_cvtss_f32(_mm_cvt_roundsd_ss(_mm_setzero_ps(), _mm_set_sd(v), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
  }

  // The pattern y must stay below to be tiny: 2^emin before rounding; after
  // rounding, the point from which rounding at p bits with an unbounded
  // exponent carries to 2^emin: (1 - 2^-(p+1)) · 2^emin for the nearest
  // modes; toward zero and to odd never carry (magnitude-up lanes:
  // tininess_point_up).
  static std::uint32_t tininess_point(const fp32_kernel_setup& k) {
    const auto two_emin = static_cast<std::uint32_t>(127 + k.emin) << 23;
    if (k.spec.tiny == tininess::after_rounding &&
        (Mode == rounding::nearest_even || Mode == rounding::nearest_away)) {
      return two_emin - (1u << (23 - k.precision));  // (2 - 2^-p) · 2^(emin - 1)
    }
    return two_emin;
  }
  // Rounding the magnitude up carries from above (1 - 2^-p) · 2^emin.
  static std::uint32_t tininess_point_up(const fp32_kernel_setup& k) {
    return (static_cast<std::uint32_t>(127 + k.emin) << 23) - (1u << (24 - k.precision));
  }

  const __m512 reciprocal_;
  const __m512i cap_, least_, near_offset_, near_bits_, emin_bits_, exponent_, c_offset_, c_field_offset_, max_code_,
      unit_, sign_code_;
  const __m512 sure_above_;
  const __m128i normal_shift_;
  const std::uint32_t tiny_below_, tiny_below_up_;
};

}  // namespace
}  // namespace num::scaled_detail
