// The tensor amax of NVFP4's per-tensor scale on AVX2 (finite_amax_avx512
// in nvfp4_avx512.cpp on AVX-512): hand-written SIMD, the product itself, for
// CPUs without AVX-512; a pass over the whole tensor, so it is worth its
// eight lanes.
#include "nvfp4_block_kernel.hpp"

// The AVX2 region opens after every other header (see avx2_region.hpp).
#include "avx2_region.hpp"

namespace num::scaled_detail {

float finite_amax_avx2(const float* in, std::size_t n) {
  const __m256i magnitude = splat8(0x7FFFFFFF), infinity = splat8(0x7F800000);
  // Two accumulators: each maximum waits on the previous one of its chain.
  __m256i amax[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int h = 0; h < 2; ++h) {
      const __m256i a =
          _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 8 * h)), magnitude);
      // NaN and inf patterns (>= infinity's) count as 0.
      amax[h] = _mm256_max_epi32(amax[h], _mm256_and_si256(a, _mm256_cmpgt_epi32(infinity, a)));
    }
  }
  alignas(32) std::uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_max_epi32(amax[0], amax[1]));
  std::uint32_t result = 0;
  for (const std::uint32_t lane : lanes) result = lane > result ? lane : result;
  for (; i < n; ++i) {
    const std::uint32_t a = __builtin_bit_cast(std::uint32_t, in[i]) & 0x7FFFFFFFu;
    result = a < 0x7F800000u && a > result ? a : result;
  }
  return __builtin_bit_cast(float, result);
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
