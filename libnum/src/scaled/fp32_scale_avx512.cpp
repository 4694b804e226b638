// The AVX-512 element rounding under an fp32 block scale D (any 24-bit
// significand): eight elements per vector in double. y = RN(|x| / D) is
// within half an ulp of the quotient, and the FMA remainder |x| - y·D
// (exact) says on which side: the quotient is (m + t) · 2^(e - 52) with m
// y's 53-bit significand, or one less where the remainder is negative, and
// t in [0, 1) nonzero iff the remainder is (the bracket the scalar path's
// quotient_bracket makes). That is cut at the element's quantum with
// round_exact's decisions, the underflow flag worked out only until raised.
// That exact way is the fallback: most sixteen-lane vectors round from an
// approximate fp32 quotient instead (fp32_quotient_avx512.hpp) and go to it
// only where a lane lies within a few fp32 patterns of a boundary.
// Stochastic rounding always takes the exact way, its words drawn by the
// vectorised Philox4x32-10 (random_window.hpp) as the block kernels draw them.
#include <cstdint>
#include <optional>

#include "libnum/cpu_features.hpp"
#include "kernels/random_word_bits.hpp"
#include "fp32_scale_kernel.hpp"

// The AVX-512 region opens after every other header (see avx512_region.hpp).
#include "avx512_region.hpp"
#include "fp32_quotient_avx512.hpp"
#include "mode_dispatch.hpp"
#include "random_window.hpp"

namespace num::scaled_detail {
namespace {

constexpr int nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

NUMLAB_INLINE __m512i splat64(std::int64_t v) { return _mm512_set1_epi64(v); }

// Whether lanes round away from the kept part, cutting m (>= 1 bit cut,
// counts past 63 cut everything) at `shift`. Stochastic rounding rounds up
// where the word's top r bits (`words`, the rest cleared, zero-extended)
// and the cut fraction's top 32 bits carry out of 2^32; that fraction lies
// in m alone (shift >= 48 here: E4M3's p = 4) as round_exact's cut_at reads
// it from the quotient's bits, whatever lies below m (the sticky remainder).
template <rounding Mode>
NUMLAB_INLINE __mmask8 rounds_up(__m512i m, __mmask8 sticky, __m512i shift, __mmask8 negative, __m512i kept,
                                 __mmask8& inexact, __m512i words) {
  const __m512i one = splat64(1);
  const __m512i s1 = _mm512_sub_epi64(shift, one);
  const __mmask8 half = _mm512_test_epi64_mask(_mm512_srlv_epi64(m, s1), one);
  // Bits below the half bit: m << (64 - s1) != 0 (s1 >= 64: all of m).
  const __m512i low = _mm512_sllv_epi64(m, _mm512_sub_epi64(splat64(64), s1));
  const __mmask8 wide = _mm512_cmpge_epu64_mask(s1, splat64(64));
  const __mmask8 rest = sticky | _mm512_test_epi64_mask(low, low) | (wide & _mm512_test_epi64_mask(m, m));
  inexact = half | rest;
  if constexpr (Mode == rounding::nearest_even) return half & (rest | _mm512_test_epi64_mask(kept, one));
  if constexpr (Mode == rounding::nearest_away) return half;
  if constexpr (Mode == rounding::toward_positive) return static_cast<__mmask8>(~negative) & inexact;
  if constexpr (Mode == rounding::toward_negative) return negative & inexact;
  if constexpr (Mode == rounding::stochastic) {
    const __m512i low32 = splat64(0xFFFFFFFF);
    const __m512i fraction = _mm512_and_si512(_mm512_srlv_epi64(m, _mm512_sub_epi64(shift, splat64(32))), low32);
    // word > 2^32 - 1 - fraction (the word's cleared low bits make the
    // fraction's below its top r irrelevant).
    return _mm512_cmpgt_epu64_mask(words, _mm512_xor_si512(fraction, low32));
  }
  return 0;  // toward_zero; to_odd sets the low bit instead
}

template <rounding Mode>
class fp32_elements {
 public:
  explicit fp32_elements(const fp32_kernel_setup& k)
      : p_(k.precision),
        emin_(splat64(k.emin)),
        max_code_(splat64(k.max_code)),
        bound_(k.lone_scale_fits_above),
        after_rounding_(k.spec.tiny == tininess::after_rounding) {}

  // Eight elements: their codes (sign included) in 64-bit lanes; `words`:
  // stochastic rounding's (top r bits, zero-extended; else unused).
  NUMLAB_INLINE __m512i eight(__m256 x, __m512d d, fp32_segment_counts& counts, __m512i words) {
    const __m512d xd = _mm512_cvtps_pd(x);
    const __m512d ax = _mm512_abs_pd(xd);
    const __mmask8 negative = _mm512_movepi64_mask(_mm512_castpd_si512(xd));
    const __mmask8 nonzero = _mm512_cmp_pd_mask(ax, _mm512_setzero_pd(), _CMP_NEQ_OQ);
    const __m512d y = _mm512_div_round_pd(ax, d, nearest);
    const __m512d remainder = _mm512_fnmadd_pd(y, d, ax);  // exact
    const __m512i y_bits = _mm512_castpd_si512(y);
    const __m512i one = splat64(1);
    __m512i m = _mm512_or_si512(_mm512_and_si512(y_bits, splat64(0xFFFFFFFFFFFFF)), splat64(std::int64_t{1} << 52));
    m = _mm512_mask_sub_epi64(m, _mm512_cmp_pd_mask(remainder, _mm512_setzero_pd(), _CMP_LT_OQ), m, one);
    const __mmask8 sticky = _mm512_cmp_pd_mask(remainder, _mm512_setzero_pd(), _CMP_NEQ_OQ);
    const __m512i y_exponent = _mm512_sub_epi64(_mm512_srli_epi64(y_bits, 52), splat64(1023));
    // The quotient's leading exponent (one less where m lost its top bit).
    const __m512i lead =
        _mm512_mask_sub_epi64(y_exponent, _mm512_cmplt_epu64_mask(m, splat64(std::int64_t{1} << 52)), y_exponent, one);
    const __m512i bounded = _mm512_max_epi64(lead, emin_);
    // m's unit is 2^(y_exponent - 52); the quantum 2^(bounded - (p - 1)).
    const __m512i shift = _mm512_add_epi64(_mm512_sub_epi64(bounded, y_exponent), splat64(52 - (p_ - 1)));
    __m512i kept = _mm512_srlv_epi64(m, shift);
    __mmask8 inexact = 0;
    const __mmask8 up = rounds_up<Mode>(m, sticky, shift, negative, kept, inexact, words);
    inexact &= nonzero;
    if constexpr (Mode == rounding::to_odd) {
      kept = _mm512_mask_or_epi64(kept, inexact, kept, one);
    } else {
      kept = _mm512_mask_add_epi64(kept, up, kept, one);
    }
    // code = (max(lead, emin) - emin) · 2^(p-1) + kept, a carry landing on the next binade.
    __m512i code = _mm512_add_epi64(_mm512_slli_epi64(_mm512_sub_epi64(bounded, emin_), static_cast<unsigned>(p_ - 1)),
                                    kept);
    code = _mm512_maskz_mov_epi64(nonzero, code);
    const __mmask8 saturated = _mm512_cmpgt_epi64_mask(code, max_code_);
    code = _mm512_min_epi64(code, max_code_);
    const __mmask8 flushed = _mm512_mask_testn_epi64_mask(nonzero, code, code);
    counts.inexact += popcount(inexact | saturated);
    counts.saturated += popcount(saturated);
    counts.flushed += popcount(flushed);
    counts.flushed_sure += popcount(_mm512_mask_cmp_pd_mask(flushed, ax, _mm512_set1_pd(bound_), _CMP_GT_OQ));
    if (!counts.underflow && inexact != 0) {
      counts.underflow = any_tiny(m, sticky, lead, y_exponent, negative, inexact, words);
    }
    return _mm512_mask_or_epi64(code, negative, code, splat64(0x80));
  }

 private:
  static NUMLAB_INLINE std::uint64_t popcount(__mmask8 k) {
    return static_cast<std::uint64_t>(__builtin_popcount(static_cast<std::uint32_t>(k)));
  }

  // Inexact lanes below 2^emin are tiny; after rounding, not those that
  // rounding at p bits with an unbounded exponent carries up to 2^emin (only
  // lead = emin - 1 can).
  NUMLAB_INLINE bool any_tiny(__m512i m, __mmask8 sticky, __m512i lead, __m512i y_exponent, __mmask8 negative,
                              __mmask8 inexact, __m512i words) const {
    __mmask8 tiny = _mm512_mask_cmplt_epi64_mask(inexact, lead, emin_);
    if (tiny == 0 || !after_rounding_) return tiny != 0;
    const __m512i shift = _mm512_add_epi64(_mm512_sub_epi64(lead, y_exponent), splat64(52 - (p_ - 1)));
    const __m512i kept = _mm512_srlv_epi64(m, shift);
    __mmask8 unused = 0;
    __mmask8 up = rounds_up<Mode>(m, sticky, shift, negative, kept, unused, words);
    if constexpr (Mode == rounding::to_odd) up = 0;  // to odd never carries into a new binade
    const __mmask8 carried = up & _mm512_cmpeq_epi64_mask(kept, splat64((std::int64_t{1} << p_) - 1)) &
                             _mm512_cmpeq_epi64_mask(lead, _mm512_sub_epi64(emin_, splat64(1)));
    return (tiny & static_cast<__mmask8>(~carried)) != 0;
  }

  const int p_;
  const __m512i emin_, max_code_;
  const double bound_;
  const bool after_rounding_;
};

template <rounding Mode>
void run(const fp32_kernel_setup& k, const float* in, std::uint8_t* codes, std::size_t n, double d,
         fp32_segment_counts& counts, std::uint64_t first_word) {
  fp32_elements<Mode> kernel(k);
  const __m512d dv = _mm512_set1_pd(d);
  std::size_t i = 0;
  // Stochastic rounding's words: element i takes word first_word + i.
  std::optional<random_window> random;
  if constexpr (Mode == rounding::stochastic) random.emplace(k.seed, k.stream, first_word);
  const __m512i top = _mm512_set1_epi64(kernels::random_word_top_bits(k.spec.random_bits));
  auto words_at = [&](std::size_t j, __mmask8 lanes) {
    if constexpr (Mode == rounding::stochastic) {
      const std::uint32_t* w = random->cover(first_word + j, 8);
      return _mm512_and_si512(_mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(lanes, w)), top);
    } else {
      return _mm512_setzero_si512();
    }
  };
  auto exact_eight = [&](std::size_t j) {
    const __m512i code = kernel.eight(_mm256_loadu_ps(in + j), dv, counts, words_at(j, 0xFF));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(codes + j), _mm512_cvtepi64_epi8(code));
  };
  if constexpr (Mode != rounding::stochastic) {
    // Sixteen lanes from the approximate quotient where none is near a
    // boundary, else eight and eight on the exact way.
    const float reciprocal = _mm_cvtss_f32(
        _mm_cvt_roundsd_ss(_mm_setzero_ps(), _mm_div_round_sd(_mm_set_sd(1.0), _mm_set_sd(d), nearest), nearest));
    if (n >= 16 && fp32_quotient_rule::usable(reciprocal)) {
      const fp32_quotient_rounding<Mode> fast(k, reciprocal);
      for (; i + 16 <= n; i += 16) {
        if (fast.sixteen(_mm512_loadu_si512(in + i), codes + i, counts)) continue;
        exact_eight(i);
        exact_eight(i + 8);
      }
    }
  }
  for (; i + 8 <= n; i += 8) exact_eight(i);
  if (i < n) {
    const auto tail = static_cast<__mmask8>((1u << (n - i)) - 1);
    const __m512i code = kernel.eight(_mm256_maskz_loadu_ps(tail, in + i), dv, counts, words_at(i, tail));
    _mm_mask_storeu_epi8(codes + i, tail, _mm512_cvtepi64_epi8(code));
  }
}

}  // namespace

bool fp32_kernel_usable() { return !mxcsr_flushes_subnormals(); }

void fp32_scaled_elements_avx512(const fp32_kernel_setup& k, const float* in, std::uint8_t* codes, std::size_t n,
                                 double d, fp32_segment_counts& counts, std::uint64_t first_word) {
  with_mode(k.spec.mode, [&](auto mode) { run<mode.value>(k, in, codes, n, d, counts, first_word); });
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
