// Internal: the exact rounding of four quotients |x| / D onto a
// floating-point element grid, in double lanes on AVX2: the algorithm of
// fp32_scale_avx512.cpp (whose header says why it is exact) for the AVX2
// fp32-scale kernel (fp32_scale_avx2.cpp) and, in nvfp4_avx2.cpp, the AVX2
// NVFP4 kernel's stochastic rounding (nvfp4_stochastic_avx512.hpp's exact
// way) and its blocks with a lane near a rounding boundary. y = RN64(|x|
// / D) and the FMA remainder |x| - y·D (exact) bracket the quotient: (m + t)
// · 2^(e - 52), m y's significand or one less, t in [0, 1) nonzero iff the
// remainder is; that is cut at the element's quantum with round_exact's
// decisions. The division and the FMA take the MXCSR's rounding, which the
// callers have checked is to nearest. Include after avx2_region.hpp. AVX2
// has no masks and no 64-bit min/max or unsigned compares: lane masks are
// all-ones lanes, and every 64-bit quantity compared lies below 2^63.
#pragma once

#include <cstdint>

#include "libnum/rounding.hpp"

namespace num::scaled_detail {
namespace {

NUMLAB_INLINE __m256i splat64(std::int64_t v) { return _mm256_set1_epi64x(v); }
NUMLAB_INLINE __m256i is_nonzero64(__m256i v) {
  return _mm256_xor_si256(_mm256_cmpeq_epi64(v, _mm256_setzero_si256()), _mm256_set1_epi64x(-1));
}
NUMLAB_INLINE __m256i max64(__m256i a, __m256i b) { return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b)); }
NUMLAB_INLINE __m256i min64(__m256i a, __m256i b) { return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b)); }

/// An element format's grid: `precision` significant bits, smallest normal
/// exponent `emin`, largest finite magnitude code `max_code`; tininess after
/// rounding or before.
struct element_grid4 {
  int precision;
  __m256i emin, max_code;
  bool after_rounding;

  NUMLAB_INLINE element_grid4(int p, int e, std::uint32_t max, bool after)
      : precision(p), emin(splat64(e)), max_code(splat64(max)), after_rounding(after) {}
};

/// Stochastic rounding's random bits for four lanes: each lane's 32-bit
/// word (in its 64-bit lane) with all but its top r bits cleared.
struct random_bits4 {
  __m256i word;
};

/// Four quotients rounded: magnitude codes (saturated at max_code), and the
/// all-ones lanes where nonzero, inexact (saturated ones not included) and
/// saturated; `tiny`: whether an inexact lane is tiny (worked out only where
/// asked).
struct rounded_quotients4 {
  __m256i code, nonzero, inexact, saturated;
  bool tiny;
};

// The lanes that round away from the kept part, cutting m (>= 1 bit cut,
// counts past 63 cut everything) at `shift` (fp32_scale_avx512.cpp's
// rounds_up on all-ones lanes). Stochastic rounding (`random`) rounds up
// where word + the cut fraction's top r bits reach 2^32, the fraction's top
// 32 bits taken from m alone (shift >= 32 here: E2M1's p = 2).
template <rounding Mode>
NUMLAB_INLINE __m256i rounds_up(__m256i m, __m256i sticky, __m256i shift, __m256i negative, __m256i kept,
                                __m256i& inexact, const random_bits4* random) {
  if constexpr (Mode == rounding::nearest_even || Mode == rounding::nearest_away) {
    const __m256i one = splat64(1);
    const __m256i s1 = _mm256_sub_epi64(shift, one);
    const __m256i half = is_nonzero64(_mm256_and_si256(_mm256_srlv_epi64(m, s1), one));
    // Bits below the half bit: m << (64 - s1) != 0 (s1 >= 64: all of m).
    const __m256i low = _mm256_sllv_epi64(m, _mm256_sub_epi64(splat64(64), s1));
    const __m256i wide = _mm256_cmpgt_epi64(s1, splat64(63));
    const __m256i rest =
        _mm256_or_si256(_mm256_or_si256(sticky, is_nonzero64(low)), _mm256_and_si256(wide, is_nonzero64(m)));
    inexact = _mm256_or_si256(half, rest);
    if constexpr (Mode == rounding::nearest_away) return half;
    return _mm256_and_si256(half, _mm256_or_si256(rest, is_nonzero64(_mm256_and_si256(kept, one))));
  }
  // The other modes need only whether anything was cut: kept << shift != m
  // (counts past 63 give 0, and m is never 0).
  inexact = _mm256_or_si256(sticky, _mm256_xor_si256(_mm256_cmpeq_epi64(_mm256_sllv_epi64(kept, shift), m),
                                                     _mm256_set1_epi64x(-1)));
  if constexpr (Mode == rounding::toward_positive) {
    return _mm256_andnot_si256(negative, inexact);
  } else if constexpr (Mode == rounding::toward_negative) {
    return _mm256_and_si256(negative, inexact);
  } else if constexpr (Mode == rounding::stochastic) {
    const __m256i low32 = splat64(0xFFFFFFFF);
    const __m256i fraction = _mm256_and_si256(_mm256_srlv_epi64(m, _mm256_sub_epi64(shift, splat64(32))), low32);
    // word > 2^32 - 1 - fraction; word's bits below its top r are zero, so
    // the fraction's are irrelevant (they make the right side no smaller
    // than the word's cleared bits).
    return _mm256_cmpgt_epi64(random->word, _mm256_xor_si256(fraction, low32));
  } else {
    return _mm256_setzero_si256();  // toward_zero; to_odd sets the low bit instead
  }
}

// Inexact lanes below 2^emin are tiny; after rounding, not those that
// rounding at p bits with an unbounded exponent carries up to 2^emin (only
// lead = emin - 1 can).
template <rounding Mode>
NUMLAB_INLINE bool any_tiny(const element_grid4& g, __m256i m, __m256i sticky, __m256i lead, __m256i y_exponent,
                            __m256i negative, __m256i inexact, const random_bits4* random) {
  const __m256i tiny = _mm256_and_si256(inexact, _mm256_cmpgt_epi64(g.emin, lead));
  if (_mm256_testz_si256(tiny, tiny) || !g.after_rounding) return !_mm256_testz_si256(tiny, tiny);
  const __m256i shift = _mm256_add_epi64(_mm256_sub_epi64(lead, y_exponent), splat64(52 - (g.precision - 1)));
  const __m256i kept = _mm256_srlv_epi64(m, shift);
  __m256i unused;
  __m256i up = rounds_up<Mode>(m, sticky, shift, negative, kept, unused, random);
  if constexpr (Mode == rounding::to_odd) up = _mm256_setzero_si256();  // to odd never carries into a new binade
  const __m256i carried =
      _mm256_and_si256(_mm256_and_si256(up, _mm256_cmpeq_epi64(kept, splat64((std::int64_t{1} << g.precision) - 1))),
                       _mm256_cmpeq_epi64(lead, _mm256_sub_epi64(g.emin, splat64(1))));
  const __m256i left = _mm256_andnot_si256(carried, tiny);
  return !_mm256_testz_si256(left, left);
}

/// The rounding in `Mode` of |x| / d for four |x| (`ax`, finite, >= 0;
/// `negative`: the lanes whose x is negative) onto grid `g`; `random`: the
/// lanes' random bits (stochastic rounding only).
template <rounding Mode>
NUMLAB_INLINE rounded_quotients4 round_quotients4(__m256d ax, __m256i negative, __m256d d, const element_grid4& g,
                                                  bool tiny_wanted, const random_bits4* random = nullptr) {
  rounded_quotients4 out;
  out.nonzero = _mm256_castpd_si256(_mm256_cmp_pd(ax, _mm256_setzero_pd(), _CMP_NEQ_OQ));
  const __m256d y = _mm256_div_pd(ax, d);
  const __m256d remainder = _mm256_fnmadd_pd(y, d, ax);  // exact
  const __m256i y_bits = _mm256_castpd_si256(y);
  const __m256i one = splat64(1), hidden = splat64(std::int64_t{1} << 52);
  __m256i m = _mm256_or_si256(_mm256_and_si256(y_bits, splat64(0xFFFFFFFFFFFFF)), hidden);
  // One less where the quotient lies below y (an all-ones lane is -1).
  m = _mm256_add_epi64(m, _mm256_castpd_si256(_mm256_cmp_pd(remainder, _mm256_setzero_pd(), _CMP_LT_OQ)));
  const __m256i sticky = _mm256_castpd_si256(_mm256_cmp_pd(remainder, _mm256_setzero_pd(), _CMP_NEQ_OQ));
  const __m256i y_exponent = _mm256_sub_epi64(_mm256_srli_epi64(y_bits, 52), splat64(1023));
  // The quotient's leading exponent (one less where m lost its top bit).
  const __m256i lead = _mm256_add_epi64(y_exponent, _mm256_cmpgt_epi64(hidden, m));
  const __m256i bounded = max64(lead, g.emin);
  // m's unit is 2^(y_exponent - 52); the quantum 2^(bounded - (p - 1)).
  const __m256i shift = _mm256_add_epi64(_mm256_sub_epi64(bounded, y_exponent), splat64(52 - (g.precision - 1)));
  __m256i kept = _mm256_srlv_epi64(m, shift);
  const __m256i up = rounds_up<Mode>(m, sticky, shift, negative, kept, out.inexact, random);
  out.inexact = _mm256_and_si256(out.inexact, out.nonzero);
  if constexpr (Mode == rounding::to_odd) {
    kept = _mm256_or_si256(kept, _mm256_and_si256(out.inexact, one));
  } else {
    kept = _mm256_sub_epi64(kept, up);
  }
  // code = (max(lead, emin) - emin) · 2^(p-1) + kept, a carry landing on the next binade.
  __m256i code = _mm256_add_epi64(
      _mm256_sll_epi64(_mm256_sub_epi64(bounded, g.emin), _mm_cvtsi32_si128(g.precision - 1)), kept);
  code = _mm256_and_si256(code, out.nonzero);
  out.saturated = _mm256_cmpgt_epi64(code, g.max_code);
  out.code = min64(code, g.max_code);
  out.tiny = tiny_wanted && !_mm256_testz_si256(out.inexact, out.inexact) &&
             any_tiny<Mode>(g, m, sticky, lead, y_exponent, negative, out.inexact, random);
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
