// Internal: the AVX2 MX kernel's underflow flag (mx_block_avx2.cpp), the
// AVX2 copy of mx_underflow_avx512.hpp. Tininess after rounding needs a
// second rounding of the inexact lanes at the normal quantum, with an
// unbounded exponent; the kernel runs it only until the flag is raised,
// since a flag is raised once per call. Masks are all-ones lanes. Include
// after avx2_region.hpp.
#pragma once

#include "mx_block_kernel.hpp"
#include "kernels/random_word_bits.hpp"

namespace num::scaled_detail {
namespace {

// Lanes that round away from the kept part (m cut at s bits, s >= 1).
__m256i rounds_up_at8(const round_spec& spec, __m256i m, __m256i s, __m256i negative, __m256i words) {
  const __m256i one = splat8(1), zero = _mm256_setzero_si256(), all = _mm256_set1_epi32(-1);
  auto set = [&](__m256i v) { return _mm256_xor_si256(_mm256_cmpeq_epi32(v, zero), all); };
  const __m256i s1 = _mm256_sub_epi32(s, one);
  const __m256i kept = _mm256_srlv_epi32(m, s);
  const __m256i half = set(_mm256_and_si256(_mm256_srlv_epi32(m, s1), one));
  const __m256i rest = set(_mm256_and_si256(m, _mm256_sub_epi32(_mm256_sllv_epi32(one, s1), one)));
  const __m256i inexact = _mm256_or_si256(half, rest);
  const __m256i kept_odd = set(_mm256_and_si256(kept, one));
  switch (spec.mode) {
    case rounding::nearest_even: return _mm256_and_si256(half, _mm256_or_si256(rest, kept_odd));
    case rounding::nearest_away: return half;
    case rounding::toward_zero: return zero;
    case rounding::to_odd: return _mm256_andnot_si256(kept_odd, inexact);  // an even kept part becomes odd
    case rounding::toward_positive: return _mm256_andnot_si256(negative, inexact);
    case rounding::toward_negative: return _mm256_and_si256(negative, inexact);
    case rounding::stochastic: {
      const __m256i top32 = _mm256_or_si256(_mm256_sllv_epi32(m, _mm256_sub_epi32(splat8(32), s)),
                                            _mm256_srlv_epi32(m, _mm256_sub_epi32(s, splat8(32))));
      const __m256i top = splat8(kernels::random_word_top_bits(spec.random_bits));
      return greater_unsigned(_mm256_and_si256(words, top), _mm256_xor_si256(_mm256_and_si256(top32, top), all));
    }
  }
  return zero;
}

// Whether a lane of `below` (inexact lanes below 2^emin) is tiny after
// rounding: not carried to 2^emin by rounding at the normal quantum with an
// unbounded exponent (only the binade just below 2^emin can carry). Out of
// line: any_tiny8() calls it only when some lane lies below 2^emin.
bool tiny_among8(const mx_kernel_setup& k, __m256i x, __m256i biased, __m256i below, __m256i emin_field,
                 __m256i words) {
  const __m256i may_carry =
      _mm256_and_si256(below, _mm256_cmpeq_epi32(biased, _mm256_sub_epi32(emin_field, splat8(1))));
  if (_mm256_testz_si256(may_carry, may_carry)) return true;
  const __m256i a = _mm256_and_si256(x, splat8(0x7FFFFFFF));
  const __m256i m = _mm256_and_si256(_mm256_or_si256(_mm256_and_si256(a, splat8(0x7FFFFF)), splat8(0x800000)), below);
  const __m256i normal_shift = splat8(static_cast<std::uint32_t>(24 - k.precision));
  const __m256i up = rounds_up_at8(k.spec, m, normal_shift, _mm256_srai_epi32(x, 31), words);
  // Rounding up carries iff the kept part is all ones, i.e. m's top p bits are.
  const __m256i kept = _mm256_srlv_epi32(m, normal_shift);
  const __m256i carried = _mm256_and_si256(up, _mm256_cmpeq_epi32(kept, splat8((1u << k.precision) - 1)));
  const __m256i tiny = _mm256_andnot_si256(_mm256_and_si256(may_carry, carried), below);
  return !_mm256_testz_si256(tiny, tiny);
}

// Whether a lane is tiny: inexact and below 2^emin, and under tininess
// after rounding also not carried to 2^emin (tiny_among8). The first test
// is inline, as in the AVX-512 kernel: most inexact lanes lie at or above
// 2^emin.
NUMLAB_INLINE bool any_tiny8(const mx_kernel_setup& k, __m256i x, __m256i inexact, __m256i emin_field, __m256i words) {
  const __m256i biased = _mm256_srli_epi32(_mm256_and_si256(x, splat8(0x7FFFFFFF)), 23);
  const __m256i below = _mm256_and_si256(inexact, _mm256_cmpgt_epi32(emin_field, biased));
  return !_mm256_testz_si256(below, below) &&
         (k.spec.tiny == tininess::before_rounding || tiny_among8(k, x, biased, below, emin_field, words));
}

}  // namespace
}  // namespace num::scaled_detail
