// The amax scan on AVX2 (scan_amax_avx512 in nvfp4_avx512.cpp on AVX-512):
// NVFP4's tensor amax and every long block's amax (FP8 per-tensor, 1x128 and
// 128x128 tiles), a pass over the whole tensor, so it is worth its eight
// lanes; hand-written SIMD, the product itself, for CPUs without AVX-512.
#include "nvfp4_block_kernel.hpp"

// The AVX2 region opens after every other header (see avx2_region.hpp).
#include "avx2_region.hpp"

namespace num::scaled_detail {

amax_scan scan_amax_avx2(const float* in, std::size_t n) {
  const __m256i magnitude = splat8(0x7FFFFFFF), infinity = splat8(0x7F800000);
  // Two accumulators: each maximum waits on the previous one of its chain.
  __m256i amax[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
  __m256i all_finite = _mm256_set1_epi32(-1);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int h = 0; h < 2; ++h) {
      const __m256i a =
          _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 8 * h)), magnitude);
      // NaN and inf patterns (>= infinity's) count as 0.
      const __m256i finite = _mm256_cmpgt_epi32(infinity, a);
      amax[h] = _mm256_max_epi32(amax[h], _mm256_and_si256(a, finite));
      all_finite = _mm256_and_si256(all_finite, finite);
    }
  }
  alignas(32) std::uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_max_epi32(amax[0], amax[1]));
  std::uint32_t result = 0;
  for (const std::uint32_t lane : lanes) result = lane > result ? lane : result;
  bool special = _mm256_movemask_epi8(all_finite) != -1;
  for (; i < n; ++i) {
    const std::uint32_t a = __builtin_bit_cast(std::uint32_t, in[i]) & 0x7FFFFFFFu;
    const bool finite = a < 0x7F800000u;
    result = finite && a > result ? a : result;
    special |= !finite;
  }
  return {__builtin_bit_cast(float, result), special};
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
