// The AVX2 row kernel of dequantization, for CPUs without AVX-512 (where
// dequantize() and the FP8 recipes' quantize-dequantize ran the scalar
// loop): eight codes at a time looked up in the call's value table with one
// gather, then multiplied by the block scale (and the tensor scale), the
// scalar loop's fp32 operations in its order, so the same bits
// (element_decoder.hpp). One gather serves every element width: the
// simplest form, and measured enough (16M MXFP8 codes 19.5 -> 14.2 ms
// against the scalar loop); the AVX-512 kernel's permutes and field
// decoding were not tried on AVX2.
#include <cstdint>

#include "element_decoder.hpp"

// The AVX2 region opens after every other header (see avx2_region.hpp).
#include "avx2_region.hpp"

namespace num::scaled_detail {
namespace {

// Eight codes starting at element `first` of the row (count of them valid,
// the rest read as code 0), masked to the element width.
NUMLAB_INLINE __m256i load_codes(const std::uint8_t* codes, std::size_t first, std::size_t count, bool packed_fp4,
                                 __m256i mask) {
  __m128i bytes;
  if (!packed_fp4) {
    if (count >= 8) {
      bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes + first));
    } else {
      std::uint64_t buffer = 0;
      __builtin_memcpy(&buffer, codes + first, count);
      bytes = _mm_cvtsi64_si128(static_cast<long long>(buffer));
    }
  } else {
    // Element 2k in the low nibble of byte k (first is even: blocks start on bytes).
    std::uint32_t packed = 0;
    __builtin_memcpy(&packed, codes + first / 2, count >= 8 ? 4 : (count + 1) / 2);
    const __m128i b = _mm_cvtsi32_si128(static_cast<int>(packed));
    const __m128i low = _mm_and_si128(b, _mm_set1_epi8(0x0F));
    const __m128i high = _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(0x0F));
    bytes = _mm_unpacklo_epi8(low, high);
  }
  return _mm256_and_si256(_mm256_cvtepu8_epi32(bytes), mask);
}

template <bool TimesTensorScale>
void decode(const decode_row& k, const std::uint8_t* codes, const float* block_scales, std::size_t cols, float* out) {
  const __m256i mask = splat8((1u << k.element_bits) - 1);
  const __m256 tensor_scale = _mm256_set1_ps(k.tensor_scale);
  const std::size_t width = k.block_cols;
  for (std::size_t start = 0, block = 0; start < cols; start += width, ++block) {
    const std::size_t end = cols - start > width ? start + width : cols;
    const __m256 scale = _mm256_set1_ps(block_scales[block]);
    for (std::size_t c = start; c < end; c += 8) {
      const std::size_t count = end - c;
      const __m256 value = _mm256_i32gather_ps(k.table, load_codes(codes, c, count, k.packed_fp4, mask), 4);
      __m256 v = _mm256_mul_ps(value, scale);
      if constexpr (TimesTensorScale) v = _mm256_mul_ps(v, tensor_scale);
      if (count >= 8) {
        _mm256_storeu_ps(out + c, v);
      } else {
        // (Masked stores are slow on AMD's cores.)
        alignas(32) float buffer[8];
        _mm256_store_ps(buffer, v);
        __builtin_memcpy(out + c, buffer, count * sizeof(float));
      }
    }
  }
}

}  // namespace

void decode_row_avx2(const decode_row& k, const std::uint8_t* codes, const float* block_scales, std::size_t cols,
                     float* out) {
  if (k.times_tensor_scale) return decode<true>(k, codes, block_scales, cols, out);
  decode<false>(k, codes, block_scales, cols, out);
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
