// The AVX-512 body of scaled_stats_of's element pass: sixteen elements at a
// time, the low eight and then the high eight added to the eight partial
// sums, which is the scalar loop's order (element i into lane i mod 8).
#include <cstddef>
#include <cstdint>

#include "scaled_stats_kernel.hpp"

// The AVX-512 region opens after every other header (see avx512_region.hpp).
#include "avx512_region.hpp"

namespace num::scaled_detail {
namespace {

// The lane's x² and (x - back)² where `counted`, else 0 (as the scalar
// loop's selects): separate products and sums, no fused multiply-add.
NUMLAB_INLINE void add_half(__m256 x8, __m256 back8, __mmask8 counted, __m512d& signal, __m512d& noise) {
  const __m512d x = _mm512_maskz_mov_pd(counted, _mm512_cvtps_pd(x8));
  const __m512d error = _mm512_maskz_sub_pd(counted, x, _mm512_cvtps_pd(back8));
  signal = _mm512_add_pd(signal, _mm512_mul_pd(x, x));
  noise = _mm512_add_pd(noise, _mm512_mul_pd(error, error));
}

}  // namespace

std::size_t add_elements_avx512(const float* in, const float* dequantized, std::size_t n, element_sums& sums) {
  const std::size_t whole = n - n % 16;
  __m512d signal = _mm512_loadu_pd(sums.signal), noise = _mm512_loadu_pd(sums.noise);
  __m512i amax = _mm512_set1_epi32(static_cast<int>(sums.amax_bits));
  std::uint64_t finite = 0, nonzero = 0;
  for (std::size_t i = 0; i < whole; i += 16) {
    const __m512 x = _mm512_loadu_ps(in + i), back = _mm512_loadu_ps(dequantized + i);
    const __m512i m = _mm512_and_si512(_mm512_castps_si512(x), splat(0x7FFFFFFFu));
    const __mmask16 is_finite = _mm512_cmplt_epu32_mask(m, splat(0x7F800000u));
    finite += static_cast<std::uint64_t>(_mm_popcnt_u32(is_finite));
    nonzero += static_cast<std::uint64_t>(_mm_popcnt_u32(_mm512_mask_test_epi32_mask(is_finite, m, m)));
    amax = _mm512_mask_max_epu32(amax, is_finite, amax, m);
    // A NaN-scale block (dequantized NaN) carries no signal.
    const __mmask16 counted = _mm512_mask_cmp_ps_mask(is_finite, back, back, _CMP_ORD_Q);
    add_half(_mm512_castps512_ps256(x), _mm512_castps512_ps256(back), static_cast<__mmask8>(counted), signal,
             noise);
    add_half(_mm512_extractf32x8_ps(x, 1), _mm512_extractf32x8_ps(back, 1), static_cast<__mmask8>(counted >> 8),
             signal, noise);
  }
  _mm512_storeu_pd(sums.signal, signal);
  _mm512_storeu_pd(sums.noise, noise);
  sums.finite += finite;
  sums.nonzero += nonzero;
  sums.amax_bits = static_cast<std::uint32_t>(_mm512_reduce_max_epu32(amax));
  return whole;
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
