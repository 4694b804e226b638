// Internal: the AVX2 NVFP4 kernel's stochastic element rounding
// (nvfp4_avx2.cpp), four lanes at a time in double precision: the AVX-512
// kernel's exact way (nvfp4_stochastic_avx512.hpp, which says why it gives
// the scalar path's results), on 256-bit registers. y = RN64(|x| / D) and
// the FMA remainder |x| - y·D (whose sign and zeroness are exact) bracket
// the quotient Q: (m + t) · 2^e, m = y's significand or one less, t in
// [0, 1) nonzero iff the remainder is; it is cut at E2M1's quantum as
// round_exact cuts it, the fraction's top 32 bits from m alone. The
// division and the FMA take the MXCSR's rounding, which the dispatch has
// checked is to nearest (nvfp4_avx2_usable). Include after avx2_region.hpp.
#pragma once

#include <cstdint>

namespace num::scaled_detail {
namespace {

/// The E2M1 rounding of four quotients, in 64-bit lanes: magnitude codes
/// 0..7, and all-ones lanes where inexact, saturated and tiny.
struct nvfp4_stochastic_lanes4 {
  __m256i code, inexact, saturated, tiny;
};

/// Lanes where a > b as unsigned 64-bit integers below 2^63 (the signed compare).
NUMLAB_INLINE __m256i greater64(__m256i a, __m256i b) { return _mm256_cmpgt_epi64(a, b); }

/// Stochastic E2M1 rounding of four |x| (`a_quarter`, fp32 patterns) under
/// the decode scale `dv` = D, with the 32-bit random words `word` (64-bit
/// lanes) of which the `top_bits` count; `tiny_wanted`: compute `tiny`
/// (tininess after rounding where `after_rounding`, else before).
NUMLAB_INLINE nvfp4_stochastic_lanes4 nvfp4_stochastic_quarter(__m128i a_quarter, __m256d dv, __m256i word,
                                                               __m256i top_bits, bool tiny_wanted,
                                                               bool after_rounding) {
  const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256(), all = _mm256_set1_epi64x(-1);
  const __m256i low32 = _mm256_set1_epi64x(0xFFFFFFFF);
  const __m256d ax = _mm256_cvtps_pd(_mm_castsi128_ps(a_quarter));
  const __m256i nonzero =
      _mm256_xor_si256(_mm256_castpd_si256(_mm256_cmp_pd(ax, _mm256_setzero_pd(), _CMP_EQ_OQ)), all);
  const __m256d y = _mm256_div_pd(ax, dv);
  const __m256d remainder = _mm256_fnmadd_pd(y, dv, ax);  // exact
  const __m256i y_bits = _mm256_castpd_si256(y);
  const __m256i hidden = _mm256_set1_epi64x(std::int64_t{1} << 52);
  // m = y's significand, one less where the quotient lies below y (an
  // all-ones lane is -1).
  __m256i m = _mm256_or_si256(_mm256_and_si256(y_bits, _mm256_set1_epi64x(0xFFFFFFFFFFFFF)), hidden);
  m = _mm256_add_epi64(m, _mm256_castpd_si256(_mm256_cmp_pd(remainder, _mm256_setzero_pd(), _CMP_LT_OQ)));
  const __m256i sticky = _mm256_castpd_si256(_mm256_cmp_pd(remainder, _mm256_setzero_pd(), _CMP_NEQ_OQ));
  const __m256i y_exponent = _mm256_sub_epi64(_mm256_srli_epi64(y_bits, 52), _mm256_set1_epi64x(1023));
  // The exponent of the quotient's leading bit (one less where m lost its top bit).
  const __m256i lead = _mm256_add_epi64(y_exponent, greater64(hidden, m));
  const __m256i normal_lead = _mm256_and_si256(lead, greater64(lead, zero));  // max(lead, 0)
  // Bits of m below the quantum 2^(max(lead, 0) - 1): m's unit is 2^(y_exponent - 52).
  const __m256i shift = _mm256_add_epi64(_mm256_sub_epi64(normal_lead, y_exponent), _mm256_set1_epi64x(51));
  const __m256i truncated = _mm256_srlv_epi64(m, shift);  // counts >= 64 give 0
  const __m256i fraction =
      _mm256_and_si256(_mm256_srlv_epi64(m, _mm256_sub_epi64(shift, _mm256_set1_epi64x(32))), low32);
  const __m256i cut_bits_lost = _mm256_xor_si256(_mm256_cmpeq_epi64(_mm256_sllv_epi64(truncated, shift), m), all);
  nvfp4_stochastic_lanes4 out;
  out.inexact = _mm256_and_si256(nonzero, _mm256_or_si256(sticky, cut_bits_lost));
  const __m256i w = _mm256_and_si256(word, top_bits);
  const __m256i up = greater64(w, _mm256_xor_si256(_mm256_and_si256(fraction, top_bits), low32));
  // code = max(lead, 0) · 2 + kept (E2M1: bias 1, p = 2), a carry landing
  // on the next binade.
  __m256i code = _mm256_sub_epi64(_mm256_add_epi64(_mm256_slli_epi64(normal_lead, 1), truncated), up);
  const __m256i seven = _mm256_set1_epi64x(7);
  const __m256i over = greater64(code, seven);
  out.saturated = _mm256_and_si256(nonzero, over);
  code = _mm256_blendv_epi8(code, seven, over);
  out.code = _mm256_and_si256(code, nonzero);
  out.inexact = _mm256_or_si256(out.inexact, out.saturated);
  out.tiny = zero;
  if (tiny_wanted) {
    // Below 1 = 2^emin and inexact; after rounding, not carried to 1 by
    // rounding at the quantum 2^(lead - 1) (only lead = -1 can carry).
    __m256i tiny = _mm256_and_si256(out.inexact, greater64(zero, lead));
    if (after_rounding) {
      const __m256i unbounded_shift = _mm256_sub_epi64(shift, one);
      const __m256i kept = _mm256_srlv_epi64(m, unbounded_shift);
      const __m256i unbounded_fraction =
          _mm256_and_si256(_mm256_srlv_epi64(m, _mm256_sub_epi64(unbounded_shift, _mm256_set1_epi64x(32))), low32);
      const __m256i unbounded_up =
          greater64(w, _mm256_xor_si256(_mm256_and_si256(unbounded_fraction, top_bits), low32));
      const __m256i carried =
          _mm256_and_si256(_mm256_and_si256(unbounded_up, _mm256_cmpeq_epi64(kept, _mm256_set1_epi64x(3))),
                           _mm256_cmpeq_epi64(lead, _mm256_set1_epi64x(-1)));
      tiny = _mm256_andnot_si256(carried, tiny);
    }
    out.tiny = tiny;
  }
  return out;
}

/// Two quarters' 64-bit lanes (each 0 or all ones, or codes below 2^32) as
/// one vector of eight 32-bit lanes, first's four first.
NUMLAB_INLINE __m256i join_quarters(__m256i first, __m256i second) {
  const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const __m256i a = _mm256_permutevar8x32_epi32(first, low_halves);
  const __m256i b = _mm256_permutevar8x32_epi32(second, low_halves);
  return _mm256_permute2x128_si256(a, b, 0x20);
}

}  // namespace
}  // namespace num::scaled_detail
