// Internal: the NVFP4 kernel's stochastic element rounding
// (nvfp4_avx512.cpp), eight lanes at a time in double precision. Include
// after avx512_region.hpp.
//
// Stochastic rounding needs the discarded fraction's top r bits, which no
// comparison gives. The exact way divides: y = RN64(|x| / D), and the FMA
// remainder |x| - y·D (whose sign and zeroness are exact) says on which side
// of y the quotient Q = |x| / D lies. Its bracket (m + t) · 2^e, m = y's
// significand or one less, t in [0, 1) nonzero iff the remainder is, is cut
// at E2M1's quantum as round_exact cuts it; the fraction's top 32 bits come
// from m alone (it has 53 bits, at least 48 of them below the quantum).
//
// The fast way multiplies instead (a vector division costs about as much as
// the rest of the block): y = RN64(|x| · RN64(1/D)). With 1/D rounded to
// nearest (relative error <= 2^-53) and the product rounded to nearest
// (again <= 2^-53), |y - Q| <= (2^-52 + 2^-106)·Q, less than 3 units of
// y's last place even where Q lies just above a power of two that y does not
// reach. Every decision is a comparison of Q with a multiple of one cut unit
// U = 2^(q - 33) (q = max(lead, 0) - 1 the quantum's exponent; U one bit
// finer than the 32 fraction bits, for the after-rounding tininess test):
// the kept bits, the fraction's top r <= 32 bits, exactness (Q a multiple of
// the quantum), and the powers of two where the leading bit's use changes
// (every one from 1/2 up; below 1/2 the quantum is fixed at 1/2 and lead
// only decides tininess, lead < 0 and lead = -1): each a multiple of U. U is
// at least 2^18 of y's units (y has 53 bits, U's exponent is at least
// lead - 34), so y's significand's bits below U are y's offset from the
// multiple of U below it. Where that offset is at least 4 units from every
// multiple (both neighbours), Q, within 3 units of y, lies strictly between
// the same two multiples: every truncation of Q equals y's, lead is y's
// exponent wherever it matters, and Q is no multiple of U, so inexact.
// Lanes nearer than that (about 2^-15 of random lanes, and every lane whose
// quotient is exact) go the exact way.
#pragma once

#include <cstdint>

namespace num::scaled_detail {
namespace {

/// The E2M1 rounding of eight quotients.
struct nvfp4_stochastic_lanes {
  __m256i code;  ///< magnitude codes 0..7
  __mmask8 inexact = 0, saturated = 0, tiny = 0;
};

/// RN64(1 / d), the fast way's reciprocal, rounded to nearest whatever the
/// MXCSR's rounding mode.
NUMLAB_INLINE double nvfp4_reciprocal64(double d) {
  constexpr int nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  return _mm_cvtsd_f64(_mm_div_round_sd(_mm_set_sd(1.0), _mm_set_sd(d), nearest));
}

/// Stochastic E2M1 rounding of eight |x| (`a_half`, fp32 patterns) under
/// the decode scale `dv` = D (its reciprocal `rv` = RN64(1/D) for the fast
/// way), with the 32-bit random words `word` (64-bit lanes) of which the
/// `top_bits` count; `tiny_wanted`: compute `tiny` (tininess after rounding
/// where `after_rounding`, else before). Fast (Exact false): false, with
/// `out` unset, where a lane lies near a cut and needs the exact way.
template <bool Exact>
NUMLAB_INLINE bool nvfp4_stochastic_half(__m256i a_half, __m512d dv, __m512d rv, __m512i word, __m512i top_bits,
                                         bool tiny_wanted, bool after_rounding, nvfp4_stochastic_lanes& out) {
  constexpr int nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  const __m512i one = _mm512_set1_epi64(1);
  const __m512d ax = _mm512_cvtps_pd(_mm256_castsi256_ps(a_half));
  const __mmask8 nonzero = _mm256_test_epi32_mask(a_half, a_half);
  __m512i y_bits, m, lead;
  __mmask8 sticky;
  const __m512i significand = _mm512_set1_epi64(0xFFFFFFFFFFFFF), hidden = _mm512_set1_epi64(std::int64_t{1} << 52);
  if constexpr (Exact) {
    const __m512d y = _mm512_div_round_pd(ax, dv, nearest);
    const __m512d remainder = _mm512_fnmadd_pd(y, dv, ax);  // exact
    y_bits = _mm512_castpd_si512(y);
    m = _mm512_or_si512(_mm512_and_si512(y_bits, significand), hidden);
    m = _mm512_mask_sub_epi64(m, _mm512_cmp_pd_mask(remainder, _mm512_setzero_pd(), _CMP_LT_OQ), m, one);
    sticky = _mm512_cmp_pd_mask(remainder, _mm512_setzero_pd(), _CMP_NEQ_OQ);
  } else {
    y_bits = _mm512_castpd_si512(_mm512_mul_round_pd(ax, rv, nearest));
    m = _mm512_or_si512(_mm512_and_si512(y_bits, significand), hidden);
    sticky = nonzero;  // Q lies strictly between two multiples of U
  }
  const __m512i y_exponent = _mm512_sub_epi64(_mm512_srli_epi64(y_bits, 52), _mm512_set1_epi64(1023));
  // The exponent of the quotient's leading bit (one less where m lost its top bit).
  lead = _mm512_mask_sub_epi64(y_exponent, _mm512_cmplt_epu64_mask(m, hidden), y_exponent, one);
  const __m512i normal_lead = _mm512_max_epi64(lead, _mm512_setzero_si512());
  // Bits of m below the quantum 2^(max(lead, 0) - 1): m's unit is 2^(y_exponent - 52).
  const __m512i shift = _mm512_add_epi64(_mm512_sub_epi64(normal_lead, y_exponent), _mm512_set1_epi64(51));
  if constexpr (!Exact) {
    // m's bits below U = 2^(q - 33): shift - 33 of them (counts >= 64 keep all of m).
    const __m512i below_cut =
        _mm512_sub_epi64(_mm512_sllv_epi64(one, _mm512_sub_epi64(shift, _mm512_set1_epi64(33))), one);
    const __m512i offset = _mm512_and_si512(_mm512_add_epi64(m, _mm512_set1_epi64(4)), below_cut);
    if (_mm512_mask_cmplt_epu64_mask(nonzero, offset, _mm512_set1_epi64(8)) != 0) return false;
  }
  const __m512i truncated = _mm512_srlv_epi64(m, shift);  // counts >= 64 give 0
  const __m512i fraction = _mm512_and_si512(_mm512_srlv_epi64(m, _mm512_sub_epi64(shift, _mm512_set1_epi64(32))),
                                            _mm512_set1_epi64(0xFFFFFFFF));
  const __mmask8 inexact = nonzero & (sticky | _mm512_cmpneq_epi64_mask(_mm512_sllv_epi64(truncated, shift), m));
  const __mmask8 up =
      _mm512_cmpgt_epu64_mask(_mm512_and_si512(word, top_bits),
                              _mm512_xor_si512(_mm512_and_si512(fraction, top_bits), _mm512_set1_epi64(0xFFFFFFFF)));
  // code = max(lead, 0) · 2 + kept (E2M1: bias 1, p = 2), a carry landing on the next binade.
  __m512i code =
      _mm512_add_epi64(_mm512_slli_epi64(normal_lead, 1), _mm512_mask_add_epi64(truncated, up, truncated, one));
  out.saturated = nonzero & _mm512_cmpgt_epi64_mask(code, _mm512_set1_epi64(7));
  code = _mm512_maskz_min_epi64(nonzero, code, _mm512_set1_epi64(7));
  out.code = _mm512_cvtepi64_epi32(code);
  out.inexact = inexact | out.saturated;
  out.tiny = 0;
  if (tiny_wanted) {
    // Below 1 = 2^emin and inexact; after rounding, not carried to 1 by
    // rounding at the quantum 2^(lead - 1) (only lead = -1 can carry).
    __mmask8 tiny = inexact & _mm512_cmplt_epi64_mask(lead, _mm512_setzero_si512());
    if (after_rounding) {
      const __m512i unbounded_shift = _mm512_sub_epi64(shift, one);
      const __m512i kept = _mm512_srlv_epi64(m, unbounded_shift);
      const __m512i unbounded_fraction =
          _mm512_and_si512(_mm512_srlv_epi64(m, _mm512_sub_epi64(unbounded_shift, _mm512_set1_epi64(32))),
                           _mm512_set1_epi64(0xFFFFFFFF));
      const __mmask8 unbounded_up = _mm512_cmpgt_epu64_mask(
          _mm512_and_si512(word, top_bits),
          _mm512_xor_si512(_mm512_and_si512(unbounded_fraction, top_bits), _mm512_set1_epi64(0xFFFFFFFF)));
      const __mmask8 carried = unbounded_up & _mm512_cmpeq_epi64_mask(kept, _mm512_set1_epi64(3)) &
                               _mm512_cmpeq_epi64_mask(lead, _mm512_set1_epi64(-1));
      tiny &= static_cast<__mmask8>(~carried);
    }
    out.tiny = tiny;
  }
  return true;
}

}  // namespace
}  // namespace num::scaled_detail
