// Internal: the AVX2 fp32-scale kernel's fast element rounding
// (fp32_scale_avx2.cpp): eight E4M3 or E5M2 codes of |x| / D from
// approximate quotients, where no lane lies near a rounding boundary
// (fp32_quotient_rule.hpp says why that is exact); 8 fp32 lanes instead of
// 2 × 4 double lanes and two divisions. The multiplication and addition
// take the MXCSR's rounding, which the caller has checked is to nearest:
// the truncating modes read the truncated magnitude off the nearest one.
// Every pattern compared lies below 2^31, so signed compares serve. Include
// after avx2_region.hpp.
#pragma once

#include <cstdint>

#include "fp32_quotient_rule.hpp"

namespace num::scaled_detail {
namespace {

/// The fast rounding of one element format and mode (not stochastic); its
/// constants are opaque members (avx2_region.hpp).
template <rounding Mode>
class fp32_quotient_rounding8 {
 public:
  static_assert(Mode != rounding::stochastic);

  /// The constants of k.quotient; reciprocal = RN32(RN64(1/D)).
  fp32_quotient_rounding8(const fp32_kernel_setup& k, float reciprocal)
      : reciprocal_(_mm256_set1_ps(reciprocal)),
        sure_above_(_mm256_set1_ps(k.quotient.sure_above)),
        cap_(opaque8(splat8(k.quotient.cap))),
        least_minus_one_(opaque8(splat8(k.quotient.least - 1))),
        near_offset_(opaque8(splat8(8))),
        near_bits_(opaque8(splat8(k.quotient.near_bits))),
        emin_bits_(opaque8(splat8(k.quotient.emin_bits))),
        exponent_(opaque8(splat8(0x7F800000))),
        c_offset_(opaque8(splat8(k.quotient.c_offset))),
        c_field_offset_(opaque8(splat8(k.quotient.c_field_offset))),
        max_code_(opaque8(splat8(k.max_code))),
        not_sign_(opaque8(splat8(0x7FFFFFFF))),
        all_ones_(opaque8(splat8(0xFFFFFFFF))),
        one_(opaque8(splat8(1))),
        sign_code_(opaque8(splat8(0x80))),
        tiny_below_(splat8(k.quotient.tiny_below)),
        tiny_below_up_(splat8(k.quotient.tiny_below_up)),
        gather_bytes_(_mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1,
                                       -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)),
        pick_words_(_mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1)),
        normal_shift_(_mm_cvtsi32_si128(k.quotient.normal_shift)) {}

  /// Eight codes (sign in bit 7) of x (fp32 patterns, finite) into `codes`,
  /// adding to `counts` and `underflow`; false, with nothing written or
  /// counted, where a lane lies near a boundary.
  NUMLAB_INLINE bool eight(__m256i x, std::uint8_t* codes, fp32_segment_counts& counts, bool& underflow) const {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i a = _mm256_and_si256(x, not_sign_);
    // y, capped above every boundary (everything from the cap up saturates).
    const __m256i y = _mm256_min_epi32(_mm256_castps_si256(_mm256_mul_ps(_mm256_castsi256_ps(a), reciprocal_)), cap_);
    const __m256i near = _mm256_and_si256(
        _mm256_cmpgt_epi32(y, least_minus_one_),
        _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_add_epi32(y, near_offset_), near_bits_), zero));
    if (!_mm256_testz_si256(near, near)) return false;
    // Round y at the element's quantum by adding C = 2^(23 + the quantum's
    // exponent), whose ulp that is (as the MX kernel's nearest_even8 does).
    const __m256i c = _mm256_add_epi32(_mm256_and_si256(_mm256_max_epi32(y, emin_bits_), exponent_), c_offset_);
    const __m256 sum = _mm256_add_ps(_mm256_castsi256_ps(y), _mm256_castsi256_ps(c));
    // code = the quanta above C + (max(E_y, E_emin) - E_emin) · 2^(p-1), from C's field.
    __m256i code = _mm256_add_epi32(_mm256_sub_epi32(_mm256_castps_si256(sum), c),
                                    _mm256_sub_epi32(_mm256_srl_epi32(c, normal_shift_), c_field_offset_));
    const __m256i nonzero = _mm256_xor_si256(_mm256_cmpeq_epi32(a, zero), all_ones_);
    const __m256i negative = _mm256_srai_epi32(x, 31);
    __m256i magnitude_up = zero;
    if constexpr (Mode != rounding::nearest_even && Mode != rounding::nearest_away) {
      // The truncated magnitude: one less where nearest rounded up (an
      // all-ones lane is -1). Every nonzero lane is inexact here: the
      // directed modes round it up where the sign says so, to-odd makes it odd.
      const __m256 rounded = _mm256_sub_ps(sum, _mm256_castsi256_ps(c));  // exact
      code = _mm256_add_epi32(code, _mm256_castps_si256(_mm256_cmp_ps(rounded, _mm256_castsi256_ps(y), _CMP_GT_OQ)));
      if constexpr (Mode == rounding::toward_positive) magnitude_up = _mm256_andnot_si256(negative, nonzero);
      if constexpr (Mode == rounding::toward_negative) magnitude_up = _mm256_and_si256(negative, nonzero);
      if constexpr (Mode == rounding::to_odd) {
        code = _mm256_or_si256(code, _mm256_and_si256(nonzero, one_));
      } else {
        code = _mm256_sub_epi32(code, magnitude_up);
      }
    }
    const __m256i saturated = _mm256_cmpgt_epi32(code, max_code_);
    code = _mm256_min_epi32(code, max_code_);
    const __m256i flushed = _mm256_and_si256(nonzero, _mm256_cmpeq_epi32(code, zero));
    counts.inexact += lanes(nonzero);
    counts.saturated += lanes(saturated);
    counts.flushed += lanes(flushed);
    counts.flushed_sure +=
        lanes(_mm256_and_si256(flushed, _mm256_castps_si256(_mm256_cmp_ps(_mm256_castsi256_ps(a), sure_above_,
                                                                          _CMP_GT_OQ))));
    if (!underflow) {
      const __m256i limit = _mm256_blendv_epi8(tiny_below_, tiny_below_up_, magnitude_up);
      underflow = lanes(_mm256_and_si256(nonzero, _mm256_cmpgt_epi32(limit, y))) != 0;
    }
    // Byte 0 of each lane, gathered into the low eight bytes.
    const __m256i signed_code = _mm256_or_si256(code, _mm256_and_si256(negative, sign_code_));
    const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(signed_code, gather_bytes_), pick_words_);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(codes), _mm256_castsi256_si128(bytes));
    return true;
  }

 private:
  // The all-ones lanes of a mask.
  static NUMLAB_INLINE std::uint64_t lanes(__m256i mask) {
    return static_cast<std::uint64_t>(__builtin_popcount(static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(mask)))));
  }

  const __m256 reciprocal_, sure_above_;
  const __m256i cap_, least_minus_one_, near_offset_, near_bits_, emin_bits_, exponent_, c_offset_, c_field_offset_,
      max_code_, not_sign_, all_ones_, one_, sign_code_, tiny_below_, tiny_below_up_, gather_bytes_, pick_words_;
  const __m128i normal_shift_;
};

}  // namespace
}  // namespace num::scaled_detail
