// Internal: an element code's value from its fields, eight lanes at a time,
// for the AVX2 MX kernel's values (mx_block_avx2.cpp); the AVX2 copy of
// element_fields_avx512.hpp. Include after avx2_region.hpp.
#pragma once

#include <cstdint>

namespace num::scaled_detail {
namespace {

/// The constants of one floating-point element format's fields.
class element_fields8 {
 public:
  /// `bits` wide codes (sign in the top bit), `fraction_bits`, exponent `bias`.
  element_fields8(int bits, int fraction_bits, int bias)
      : magnitude_mask_(splat8((1u << (bits - 1)) - 1)),
        fraction_shift_(_mm_cvtsi32_si128(23 - fraction_bits)),
        rebias_(splat8(static_cast<std::uint32_t>(127 - bias) << 23)),
        first_normal_(splat8(1u << fraction_bits)),
        subnormal_unit_(_mm256_castsi256_ps(splat8(static_cast<std::uint32_t>(127 + 1 - bias - fraction_bits) << 23))),
        sign_shift_(_mm_cvtsi32_si128(32 - bits)) {}

  /// Each lane's value, for finite codes: a normal code by moving its fields
  /// into fp32's and rebiasing the exponent, a subnormal one as the integer
  /// fraction times the smallest subnormal, the sign bit moved to fp32's.
  /// Every step is exact and meets no fp32 subnormal, so the MXCSR does not matter.
  NUMLAB_INLINE __m256 value(__m256i code) const {
    const __m256i m = _mm256_and_si256(code, magnitude_mask_);
    const __m256i normal = _mm256_add_epi32(_mm256_sll_epi32(m, fraction_shift_), rebias_);
    const __m256 subnormal = _mm256_mul_ps(_mm256_cvtepi32_ps(m), subnormal_unit_);
    const __m256 v = _mm256_blendv_ps(_mm256_castsi256_ps(normal), subnormal,
                                      _mm256_castsi256_ps(_mm256_cmpgt_epi32(first_normal_, m)));
    const __m256i sign = _mm256_and_si256(_mm256_sll_epi32(code, sign_shift_), splat8(0x80000000u));
    return _mm256_castsi256_ps(_mm256_or_si256(_mm256_castps_si256(v), sign));
  }

 private:
  __m256i magnitude_mask_;
  __m128i fraction_shift_;
  __m256i rebias_, first_normal_;
  __m256 subnormal_unit_;
  __m128i sign_shift_;
};

/// MX INT8 codes (two's complement in each lane's low byte) to their values,
/// the integer times 2^-6 (exact).
NUMLAB_INLINE __m256 int8_value8(__m256i code) {
  const __m256i integer = _mm256_srai_epi32(_mm256_slli_epi32(code, 24), 24);
  return _mm256_mul_ps(_mm256_cvtepi32_ps(integer), _mm256_set1_ps(0x1p-6f));
}

}  // namespace
}  // namespace num::scaled_detail
