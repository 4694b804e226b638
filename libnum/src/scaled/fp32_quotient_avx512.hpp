// Internal: the AVX-512 fp32-scale kernel's fast element rounding
// (fp32_scale_avx512.cpp): sixteen E4M3 or E5M2 codes of |x| / D from
// approximate quotients, where no lane lies near a rounding boundary
// (fp32_quotient_rule.hpp says why that is exact); 16 fp32 lanes instead of
// 8 double lanes and a division. Include after avx512_region.hpp.
#pragma once

#include <cstdint>

#include "fp32_quotient_rule.hpp"

namespace num::scaled_detail {
namespace {

/// The fast rounding of one element format and mode (not stochastic); its
/// constants are opaque members (avx512_region.hpp).
template <rounding Mode>
class fp32_quotient_rounding {
 public:
  static_assert(Mode != rounding::stochastic);

  /// The constants of k.quotient; reciprocal = RN32(RN64(1/D)).
  fp32_quotient_rounding(const fp32_kernel_setup& k, float reciprocal)
      : reciprocal_(_mm512_set1_ps(reciprocal)),
        cap_(opaque(splat(k.quotient.cap))),
        least_(opaque(splat(k.quotient.least))),
        near_offset_(opaque(splat(8))),
        near_bits_(opaque(splat(k.quotient.near_bits))),
        emin_bits_(opaque(splat(k.quotient.emin_bits))),
        exponent_(opaque(splat(0x7F800000))),
        c_offset_(opaque(splat(k.quotient.c_offset))),
        c_field_offset_(opaque(splat(k.quotient.c_field_offset))),
        max_code_(opaque(splat(k.max_code))),
        unit_(opaque(splat(1))),
        sign_code_(opaque(splat(0x80))),
        tiny_below_(splat(k.quotient.tiny_below)),
        tiny_below_up_(splat(k.quotient.tiny_below_up)),
        sure_above_(_mm512_set1_ps(k.quotient.sure_above)),
        normal_shift_(_mm_cvtsi32_si128(k.quotient.normal_shift)) {}

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
      const __m512i limit = _mm512_mask_mov_epi32(tiny_below_, magnitude_up, tiny_below_up_);
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

  const __m512 reciprocal_;
  const __m512i cap_, least_, near_offset_, near_bits_, emin_bits_, exponent_, c_offset_, c_field_offset_, max_code_,
      unit_, sign_code_, tiny_below_, tiny_below_up_;
  const __m512 sure_above_;
  const __m128i normal_shift_;
};

}  // namespace
}  // namespace num::scaled_detail
