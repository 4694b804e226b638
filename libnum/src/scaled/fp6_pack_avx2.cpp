// AVX2 packing of FP6 codes for packed_fp6_bands.cpp: 32 codes (one per
// byte) to 24 bytes a step, the steps of pack_eight (packed_fp6_bands.cpp)
// on four 64-bit lanes at once and one byte shuffle to close the gaps. The
// scalar loop took about as long as the MX kernel's quantization itself.
#include "element_packing.hpp"

// The AVX2 region opens after every other header (see avx2_region.hpp).
#include "avx2_region.hpp"

namespace num::scaled_detail {

std::size_t pack_fp6_avx2(const std::uint8_t* codes, std::size_t n, std::uint8_t* out) {
  const __m256i low6 = _mm256_set1_epi64x(0x003F003F003F003Fll), high6 = _mm256_set1_epi64x(0x3F003F003F003F00ll);
  const __m256i low12 = _mm256_set1_epi64x(0x00000FFF00000FFFll), high12 = _mm256_set1_epi64x(0x0FFF00000FFF0000ll);
  const __m256i low24 = _mm256_set1_epi64x(0x0000000000FFFFFFll), high24 = _mm256_set1_epi64x(0x00FFFFFF00000000ll);
  // In each 128-bit lane, the two 64-bit lanes' six bytes side by side.
  const __m256i gather = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, -1, -1, -1, -1,  //
                                          0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, -1, -1, -1, -1);
  std::size_t k = 0;
  // Each step's second store writes 4 bytes past its 24: the next step's, or
  // the caller's next group of eight (k + 40 <= n leaves one).
  for (; k + 40 <= n; k += 32, out += 24) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + k));
    v = _mm256_or_si256(_mm256_and_si256(v, low6), _mm256_srli_epi64(_mm256_and_si256(v, high6), 2));
    v = _mm256_or_si256(_mm256_and_si256(v, low12), _mm256_srli_epi64(_mm256_and_si256(v, high12), 4));
    v = _mm256_or_si256(_mm256_and_si256(v, low24), _mm256_srli_epi64(_mm256_and_si256(v, high24), 8));
    v = _mm256_shuffle_epi8(v, gather);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(v));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 12), _mm256_extracti128_si256(v, 1));
  }
  return k;
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
