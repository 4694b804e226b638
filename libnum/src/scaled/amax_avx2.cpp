// The amax scan on AVX2 (scan_amax_avx512 in nvfp4_avx512.cpp on AVX-512):
// NVFP4's tensor amax and every long block's amax (FP8 per-tensor, 1x128 and
// 128x128 tiles), a pass over the whole tensor, so it is worth its eight
// lanes; hand-written SIMD, the product itself, for CPUs without AVX-512.
#include <algorithm>

#include "nvfp4_block_kernel.hpp"

// The AVX2 region opens after every other header (see avx2_region.hpp).
#include "avx2_region.hpp"

namespace num::scaled_detail {

namespace {
// The largest of eight lanes' patterns (each below 2^31).
std::uint32_t lane_max8(__m256i v) {
  __m128i m = _mm_max_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4E));
  m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xB1));
  return static_cast<std::uint32_t>(_mm_cvtsi128_si32(m));
}

// The largest finite |x| of in[0..n) (0 when none), NaN and inf patterns
// counting as 0: the slow loop, run only on a tensor holding NaN or inf.
std::uint32_t finite_amax_masked(const float* in, std::size_t n) {
  const __m256i magnitude = splat8(0x7FFFFFFF), infinity = splat8(0x7F800000);
  __m256i amax = _mm256_setzero_si256();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i a = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)), magnitude);
    amax = _mm256_max_epi32(amax, _mm256_and_si256(a, _mm256_cmpgt_epi32(infinity, a)));
  }
  std::uint32_t result = 0;
  for (; i < n; ++i) {
    const std::uint32_t a = __builtin_bit_cast(std::uint32_t, in[i]) & 0x7FFFFFFFu;
    result = a < 0x7F800000u && a > result ? a : result;
  }
  return std::max(result, lane_max8(amax));
}
}  // namespace

amax_scan scan_amax_avx2(const float* in, std::size_t n) {
  // The common case, a tensor without NaN or inf, needs only the maximum of
  // the |x| patterns (NaN and inf patterns exceed every finite one, and
  // compare as positive 32-bit integers); four independent maxima keep
  // loads in flight (scan_amax_avx512's measurement).
  const __m256i magnitude = splat8(0x7FFFFFFF);
  __m256i amax[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k)
      amax[k] = _mm256_max_epi32(
          amax[k], _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 8 * k)), magnitude));
  for (; i + 8 <= n; i += 8)
    amax[0] = _mm256_max_epi32(
        amax[0], _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)), magnitude));
  std::uint32_t largest =
      lane_max8(_mm256_max_epi32(_mm256_max_epi32(amax[0], amax[1]), _mm256_max_epi32(amax[2], amax[3])));
  for (; i < n; ++i) largest = std::max(largest, __builtin_bit_cast(std::uint32_t, in[i]) & 0x7FFFFFFFu);
  if (largest >= 0x7F800000u) return {__builtin_bit_cast(float, finite_amax_masked(in, n)), true};
  return {__builtin_bit_cast(float, largest), false};
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
