// Internal: the maxima of sixteen vectors at once, for the AVX-512 block
// kernels' amaxes (mx_block_avx512.cpp, nvfp4_avx512.cpp). Include after
// avx512_region.hpp.
#pragma once

namespace num::scaled_detail {
namespace {

/// Lane j = the largest of v[j]'s sixteen lanes, as unsigned 32-bit
/// integers (fp32 magnitudes' patterns order as their values): pairs of
/// 32-bit lanes, then of 64-bit lanes, then of 128-bit chunks, each step
/// halving the vectors. 45 vector operations for sixteen reductions, where
/// a butterfly takes eight for one.
NUMLAB_INLINE __m512i transposed_max(const __m512i* v) {
  __m512i t[8], u[4];
  for (int k = 0; k < 8; ++k) {
    t[k] = _mm512_max_epu32(_mm512_unpacklo_epi32(v[2 * k], v[2 * k + 1]),
                            _mm512_unpackhi_epi32(v[2 * k], v[2 * k + 1]));
  }
  for (int k = 0; k < 4; ++k) {
    u[k] = _mm512_max_epu32(_mm512_unpacklo_epi64(t[2 * k], t[2 * k + 1]),
                            _mm512_unpackhi_epi64(t[2 * k], t[2 * k + 1]));
  }
  // Chunk c of u[k] holds blocks 4k..4k+3 over chunk c's elements.
  const __m512i w0 = _mm512_max_epu32(_mm512_shuffle_i32x4(u[0], u[1], 0x88), _mm512_shuffle_i32x4(u[0], u[1], 0xDD));
  const __m512i w1 = _mm512_max_epu32(_mm512_shuffle_i32x4(u[2], u[3], 0x88), _mm512_shuffle_i32x4(u[2], u[3], 0xDD));
  return _mm512_max_epu32(_mm512_shuffle_i32x4(w0, w1, 0x88), _mm512_shuffle_i32x4(w0, w1, 0xDD));
}

}  // namespace
}  // namespace num::scaled_detail
