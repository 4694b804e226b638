// The AVX2 body of scaled_stats_of's element pass, for CPUs without
// AVX-512 (where the tracer's statistics of every traced operand ran the
// scalar loop, about 11% of a traced MXFP8 training run's samples on an AMD
// EPYC): eight elements at a time, the low four into partial sums 0-3 and
// the high four into 4-7, the scalar loop's order (element i into lane
// i mod 8), separate products and sums, so the same bits.
#include <cstddef>
#include <cstdint>

#include "scaled_stats_kernel.hpp"

// The AVX2 region opens after every other header (see avx2_region.hpp).
#include "avx2_region.hpp"

namespace num::scaled_detail {
namespace {

// The lanes' x² and (x - back)² where `counted` (all-ones 64-bit lanes),
// else 0, as the scalar loop's selects.
NUMLAB_INLINE void add_quarter(__m128 x4, __m128 back4, __m256i counted, __m256d& signal, __m256d& noise) {
  const __m256d x = _mm256_and_pd(_mm256_cvtps_pd(x4), _mm256_castsi256_pd(counted));
  const __m256d back = _mm256_and_pd(_mm256_cvtps_pd(back4), _mm256_castsi256_pd(counted));
  const __m256d error = _mm256_sub_pd(x, back);
  signal = _mm256_add_pd(signal, _mm256_mul_pd(x, x));
  noise = _mm256_add_pd(noise, _mm256_mul_pd(error, error));
}

NUMLAB_INLINE std::uint64_t lanes_set(__m256i mask) {
  const auto bits = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(mask)));
  return static_cast<std::uint64_t>(__builtin_popcount(bits));
}

}  // namespace

std::size_t add_elements_avx2(const float* in, const float* dequantized, std::size_t n, element_sums& sums) {
  const std::size_t whole = n - n % 8;
  __m256d signal_low = _mm256_loadu_pd(sums.signal), signal_high = _mm256_loadu_pd(sums.signal + 4);
  __m256d noise_low = _mm256_loadu_pd(sums.noise), noise_high = _mm256_loadu_pd(sums.noise + 4);
  // Magnitudes lie below 2^31, so the signed maximum and compare order them.
  __m256i amax = splat8(sums.amax_bits);
  std::uint64_t finite = 0, nonzero = 0;
  for (std::size_t i = 0; i < whole; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i), back = _mm256_loadu_ps(dequantized + i);
    const __m256i m = _mm256_and_si256(_mm256_castps_si256(x), splat8(0x7FFFFFFFu));
    const __m256i is_finite = _mm256_cmpgt_epi32(splat8(0x7F800000u), m);
    finite += lanes_set(is_finite);
    nonzero += lanes_set(_mm256_andnot_si256(_mm256_cmpeq_epi32(m, _mm256_setzero_si256()), is_finite));
    amax = _mm256_max_epi32(amax, _mm256_and_si256(m, is_finite));
    // A NaN-scale block (dequantized NaN) carries no signal.
    const __m256i ordered = _mm256_castps_si256(_mm256_cmp_ps(back, back, _CMP_ORD_Q));
    const __m256i counted = _mm256_and_si256(is_finite, ordered);
    add_quarter(_mm256_castps256_ps128(x), _mm256_castps256_ps128(back),
                _mm256_cvtepi32_epi64(_mm256_castsi256_si128(counted)), signal_low, noise_low);
    add_quarter(_mm256_extractf128_ps(x, 1), _mm256_extractf128_ps(back, 1),
                _mm256_cvtepi32_epi64(_mm256_extracti128_si256(counted, 1)), signal_high, noise_high);
  }
  _mm256_storeu_pd(sums.signal, signal_low);
  _mm256_storeu_pd(sums.signal + 4, signal_high);
  _mm256_storeu_pd(sums.noise, noise_low);
  _mm256_storeu_pd(sums.noise + 4, noise_high);
  sums.finite += finite;
  sums.nonzero += nonzero;
  alignas(32) std::uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), amax);
  for (const std::uint32_t lane : lanes) sums.amax_bits = lane > sums.amax_bits ? lane : sums.amax_bits;
  return whole;
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
