// Internal: NVFP4's E4M3 block scale S = RNE_E4M3(amax / (6·s)),
// saturating at 448, for the AVX-512 kernel (nvfp4_avx512.cpp): one block,
// or eight at once. Include after avx512_region.hpp.
#pragma once

#include <cstdint>

namespace num::scaled_detail {
namespace {

constexpr int scale_nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

/// A block's E4M3 scale: its code, its value, whether it saturated.
struct block_scale_result {
  std::uint32_t code = 0;
  double value = 0;  // 0: the scale rounded to zero (the scalar path's case)
  bool overflowed = false;
};

/// S of one block from its amax (finite, > 0) and 6·s.
NUMLAB_INLINE block_scale_result e4m3_block_scale(double amax, double six_s) {
  const double y = _mm_cvtsd_f64(_mm_div_round_sd(_mm_set_sd(amax), _mm_set_sd(six_s), scale_nearest));
  // 464 is the midpoint of 448 and 480; its tie goes to even 448.
  if (y > 464.0) return {0x7E, 448.0, true};
  // Round y at E4M3's quantum 2^(max(e, -6) - 3) by adding 2^52 quanta.
  const auto y_bits = __builtin_bit_cast(std::uint64_t, y);
  const int e = static_cast<int>(y_bits >> 52) - 1023;
  const int quantum = (e > -6 ? e : -6) - 3;
  const __m128d c = _mm_set_sd(__builtin_bit_cast(double, static_cast<std::uint64_t>(quantum + 52 + 1023) << 52));
  const double r = _mm_cvtsd_f64(_mm_sub_round_sd(_mm_add_round_sd(_mm_set_sd(y), c, scale_nearest), c, scale_nearest));
  if (r == 0) return {};
  const auto r_bits = __builtin_bit_cast(std::uint64_t, r);
  const int er = static_cast<int>(r_bits >> 52) - 1023;
  const auto code = er < -6 ? static_cast<std::uint32_t>(r * 512.0)  // subnormal: multiples of 2^-9
                            : static_cast<std::uint32_t>(((er + 7) << 3) | static_cast<int>((r_bits >> 49) & 7));
  return {code, r, false};
}

/// e4m3_block_scale on eight lanes: the scale values (0 where `zero`),
/// `over` where it saturated, and the codes.
NUMLAB_INLINE __m512d e4m3_block_scales(__m512d amax, double six_s, __mmask8& zero, __mmask8& over, __m256i& codes) {
  const __m512d y = _mm512_div_round_pd(amax, _mm512_set1_pd(six_s), scale_nearest);
  over = _mm512_cmp_pd_mask(y, _mm512_set1_pd(464.0), _CMP_GT_OQ);
  // C = 2^(max(e, -6) - 3 + 52): biased max(e, -6) + 49, as a pattern.
  const __m512i biased = _mm512_max_epi64(_mm512_srli_epi64(_mm512_castpd_si512(y), 52), _mm512_set1_epi64(1017));
  const __m512d c = _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(biased, _mm512_set1_epi64(49)), 52));
  __m512d r = _mm512_sub_round_pd(_mm512_add_round_pd(y, c, scale_nearest), c, scale_nearest);
  zero = _mm512_cmp_pd_mask(r, _mm512_setzero_pd(), _CMP_EQ_OQ);
  r = _mm512_mask_blend_pd(over, r, _mm512_set1_pd(448.0));
  const __m512i bits = _mm512_castpd_si512(r);
  const __m512i field = _mm512_srli_epi64(bits, 52);
  // Normal: (e + 7) · 8 + the top three fraction bits; below 2^-6: r · 2^9.
  const __m512i normal = _mm512_or_si512(_mm512_slli_epi64(_mm512_sub_epi64(field, _mm512_set1_epi64(1016)), 3),
                                         _mm512_and_si512(_mm512_srli_epi64(bits, 49), _mm512_set1_epi64(7)));
  const __mmask8 subnormal = _mm512_cmplt_epi64_mask(field, _mm512_set1_epi64(1017));
  const __m512i code =
      _mm512_mask_blend_epi64(subnormal, normal, _mm512_cvttpd_epi64(_mm512_mul_pd(r, _mm512_set1_pd(512.0))));
  codes = _mm512_cvtepi64_epi32(code);
  return r;
}

}  // namespace
}  // namespace num::scaled_detail
