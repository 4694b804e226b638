// Internal: the MX kernel's underflow flag (mx_block_avx512.cpp), under
// either tininess rule (IEEE 754 §7.5). Tininess after rounding needs a
// second rounding of the inexact lanes at the normal quantum, with an
// unbounded exponent; the kernel runs it only until the flag is raised,
// since a flag is raised once per call. Include after avx512_region.hpp.
#pragma once

#include "mx_block_kernel.hpp"
#include "kernels/random_word_bits.hpp"

namespace num::scaled_detail {
namespace {

// Lanes that round away from the kept part (m cut at s bits, s >= 1).
__mmask16 rounds_up_at(const round_spec& spec, __m512i m, __m512i s, __mmask16 negative, __m512i words) {
  const __m512i one = splat(1);
  const __m512i s1 = _mm512_sub_epi32(s, one);
  const __m512i kept = _mm512_srlv_epi32(m, s);
  const __mmask16 half = _mm512_test_epi32_mask(_mm512_srlv_epi32(m, s1), one);
  const __mmask16 rest = _mm512_test_epi32_mask(m, _mm512_sub_epi32(_mm512_sllv_epi32(one, s1), one));
  const __mmask16 inexact = half | rest;
  const __m512i top32 = _mm512_or_si512(_mm512_sllv_epi32(m, _mm512_sub_epi32(splat(32), s)),
                                        _mm512_srlv_epi32(m, _mm512_sub_epi32(s, splat(32))));
  switch (spec.mode) {
    case rounding::nearest_even: return half & (rest | _mm512_test_epi32_mask(kept, one));
    case rounding::nearest_away: return half;
    case rounding::toward_zero: return 0;
    case rounding::to_odd: return inexact & _mm512_testn_epi32_mask(kept, one);  // an even kept part becomes odd
    case rounding::toward_positive: return static_cast<__mmask16>(~negative & inexact);
    case rounding::toward_negative: return negative & inexact;
    case rounding::stochastic: {
      const __m512i top = splat(kernels::random_word_top_bits(spec.random_bits));
      return _mm512_cmpgt_epu32_mask(_mm512_and_si512(words, top), _mm512_ternarylogic_epi32(top32, top, top, 0x3F));
    }
  }
  return 0;
}

// Whether a lane of `below` (inexact lanes below 2^emin) is tiny after
// rounding: not carried to 2^emin by rounding at the normal quantum with an
// unbounded exponent (only the binade just below 2^emin can carry). Out of
// line: any_tiny() calls it only when some lane lies below 2^emin.
bool tiny_among(const mx_kernel_setup& k, __m512i x, __m512i biased, __mmask16 below, __m512i emin_field,
                __m512i words) {
  const __mmask16 may_carry = _mm512_mask_cmpeq_epi32_mask(below, biased, _mm512_sub_epi32(emin_field, splat(1)));
  if (may_carry == 0) return true;
  const __m512i a = _mm512_and_si512(x, splat(0x7FFFFFFF));
  const __m512i m = _mm512_maskz_ternarylogic_epi32(below, a, splat(0x7FFFFF), splat(0x800000), 0xEA);
  const __m512i normal_shift = splat(static_cast<std::uint32_t>(24 - k.precision));
  const __mmask16 up = rounds_up_at(k.spec, m, normal_shift, _mm512_movepi32_mask(x), words);
  // Rounding up carries iff the kept part is all ones, i.e. m's top p bits are.
  const __m512i kept = _mm512_srlv_epi32(m, normal_shift);
  const __mmask16 carried = up & _mm512_cmpeq_epi32_mask(kept, splat((1u << k.precision) - 1));
  return (below & static_cast<__mmask16>(~(may_carry & carried))) != 0;
}

// Whether a lane is tiny: inexact and below 2^emin (|x| / X, exact: X is a
// power of two), and under tininess after rounding also not carried to
// 2^emin (tiny_among). The first test is inline: in a trainer's operands
// most inexact lanes lie at or above 2^emin, and the call alone cost more
// than the test (bench/RESULTS.md, issue 15, session 9).
NUMLAB_INLINE bool any_tiny(const mx_kernel_setup& k, __m512i x, __mmask16 inexact, __m512i emin_field,
                            __m512i words) {
  const __m512i biased = _mm512_srli_epi32(_mm512_and_si512(x, splat(0x7FFFFFFF)), 23);
  const __mmask16 below = _mm512_mask_cmplt_epi32_mask(inexact, biased, emin_field);
  return below != 0 &&
         (k.spec.tiny == tininess::before_rounding || tiny_among(k, x, biased, below, emin_field, words));
}

}  // namespace
}  // namespace num::scaled_detail
