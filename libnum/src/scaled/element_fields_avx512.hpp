// Internal: an element code's value from its fields, sixteen lanes at a
// time, for the AVX-512 kernels that decode (decode_avx512.cpp,
// mx_block_avx512.cpp's values). Include after avx512_region.hpp.
#pragma once

#include <cstdint>

namespace num::scaled_detail {
namespace {

/// The constants of one floating-point element format's fields.
class element_fields {
 public:
  /// `bits` wide codes (sign in the top bit), `fraction_bits`, exponent `bias`.
  element_fields(int bits, int fraction_bits, int bias)
      : magnitude_mask_(splat((1u << (bits - 1)) - 1)),
        fraction_shift_(_mm_cvtsi32_si128(23 - fraction_bits)),
        rebias_(splat(static_cast<std::uint32_t>(127 - bias) << 23)),
        first_normal_(splat(1u << fraction_bits)),
        subnormal_unit_(
            _mm512_castsi512_ps(splat(static_cast<std::uint32_t>(127 + 1 - bias - fraction_bits) << 23))),
        sign_shift_(_mm_cvtsi32_si128(32 - bits)) {}

  /// The magnitude field of each lane's code.
  NUMLAB_INLINE __m512i magnitude(__m512i code) const { return _mm512_and_si512(code, magnitude_mask_); }

  /// Each lane's value, for finite codes: a normal code by moving its fields
  /// into fp32's and rebiasing the exponent, a subnormal one as the integer
  /// fraction times the smallest subnormal, the sign bit moved to fp32's.
  /// Every step is exact and meets no fp32 subnormal, so the MXCSR does not matter.
  NUMLAB_INLINE __m512 value(__m512i code) const {
    const __m512i m = magnitude(code);
    const __m512i normal = _mm512_add_epi32(_mm512_sll_epi32(m, fraction_shift_), rebias_);
    const __m512 subnormal = _mm512_mul_ps(_mm512_cvtepi32_ps(m), subnormal_unit_);
    const __m512 v =
        _mm512_mask_blend_ps(_mm512_cmplt_epi32_mask(m, first_normal_), _mm512_castsi512_ps(normal), subnormal);
    return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(v), _mm512_sll_epi32(code, sign_shift_),
                                                         splat(0x80000000), 0xF8));
  }

 private:
  __m512i magnitude_mask_;
  __m128i fraction_shift_;
  __m512i rebias_, first_normal_;
  __m512 subnormal_unit_;
  __m128i sign_shift_;
};

/// MX INT8 codes (two's complement in each lane's low byte) to their values,
/// the integer times 2^-6 (exact).
NUMLAB_INLINE __m512 int8_value(__m512i code) {
  const __m512i integer = _mm512_srai_epi32(_mm512_slli_epi32(code, 24), 24);
  return _mm512_mul_ps(_mm512_cvtepi32_ps(integer), _mm512_set1_ps(0x1p-6f));
}

}  // namespace
}  // namespace num::scaled_detail
