// The AVX-512 row kernel of dequantization: sixteen codes at a time turned
// into their values (by permutes of the call's value table, or from their
// fields), then multiplied by the block scale (and the tensor scale).
#include <cstdint>

#include "element_decoder.hpp"

// The AVX-512 region opens after every other header (see avx512_region.hpp).
#include "avx512_region.hpp"
#include "element_fields_avx512.hpp"

namespace num::scaled_detail {
namespace {

// Codes to values by the value table: a permute for FP4's 16 codes, two and
// a blend for FP6's 64.
template <int Bits>
class table_lookup {
 public:
  explicit table_lookup(const decode_row& k) {
    for (int part = 0; part < parts; ++part) t_[part] = _mm512_load_ps(k.table + 16 * part);
  }
  NUMLAB_INLINE __m512 operator()(__m512i code) const {
    if constexpr (Bits == 4) {
      return _mm512_permutexvar_ps(code, t_[0]);
    } else {
      const __mmask16 high = _mm512_test_epi32_mask(code, splat(32));
      return _mm512_mask_blend_ps(high, _mm512_permutex2var_ps(t_[0], code, t_[1]),
                                  _mm512_permutex2var_ps(t_[2], code, t_[3]));
    }
  }

 private:
  static constexpr int parts = (1 << Bits) / 16;
  __m512 t_[parts];
};

// 8-bit codes to values by their fields (a 256-entry permute would cost
// fifteen instructions): INT8 as the integer times 2^-6; E4M3/E5M2 normal
// codes by moving the fields into fp32's and rebiasing the exponent,
// subnormal codes as the integer fraction times 2^(emin - m); the NaN and
// inf codes (rare) come from the table. Every step is exact and no step
// meets an fp32 subnormal, so the MXCSR does not matter.
class field_decode {
 public:
  explicit field_decode(const decode_row& k)
      : table_(k.table),
        int8_(k.element == element_type::int8),
        fields_(8, k.fraction_bits, k.bias),
        first_special_(splat(k.first_special)) {}

  NUMLAB_INLINE __m512 operator()(__m512i code) const {
    if (int8_) return int8_value(code);
    __m512 v = fields_.value(code);
    const __mmask16 special = _mm512_cmpge_epi32_mask(fields_.magnitude(code), first_special_);
    if (special != 0) v = _mm512_mask_i32gather_ps(v, special, code, table_, 4);
    return v;
  }

 private:
  const float* table_;
  const bool int8_;
  const element_fields fields_;
  const __m512i first_special_;
};

// Sixteen codes starting at element `first` of the row (count of them
// valid; masked loads only at a block's end, since they are slower).
NUMLAB_INLINE __m512i load_codes(const std::uint8_t* codes, std::size_t first, std::size_t count, bool packed_fp4) {
  if (!packed_fp4) {
    if (count >= 16) return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + first)));
    return _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(static_cast<__mmask16>((1u << count) - 1), codes + first));
  }
  // Element 2k in the low nibble of byte k (first is even: blocks start on bytes).
  const std::size_t bytes = (count + 1) / 2;
  const __m128i b = bytes >= 8 ? _mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes + first / 2))
                               : _mm_maskz_loadu_epi8(static_cast<__mmask16>((1u << bytes) - 1), codes + first / 2);
  const __m128i low = _mm_and_si128(b, _mm_set1_epi8(0x0F));
  const __m128i high = _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(0x0F));
  return _mm512_cvtepu8_epi32(_mm_unpacklo_epi8(low, high));
}

template <class Lookup, bool TimesTensorScale>
void decode(const decode_row& k, const std::uint8_t* codes, const float* block_scales, std::size_t cols, float* out) {
  const Lookup lookup(k);
  const __m512 tensor_scale = _mm512_set1_ps(k.tensor_scale);
  const std::size_t width = k.block_cols;
  const bool packed_fp4 = k.packed_fp4;
  for (std::size_t start = 0, block = 0; start < cols; start += width, ++block) {
    const std::size_t end = cols - start > width ? start + width : cols;
    const __m512 scale = _mm512_set1_ps(block_scales[block]);
    for (std::size_t c = start; c < end; c += 16) {
      const std::size_t count = end - c;
      __m512 v = _mm512_mul_ps(lookup(load_codes(codes, c, count, packed_fp4)), scale);
      if constexpr (TimesTensorScale) v = _mm512_mul_ps(v, tensor_scale);
      if (count >= 16) {
        _mm512_storeu_ps(out + c, v);
      } else {
        _mm512_mask_storeu_ps(out + c, static_cast<__mmask16>((1u << count) - 1), v);
      }
    }
  }
}

template <class Lookup>
void decode(const decode_row& k, const std::uint8_t* codes, const float* block_scales, std::size_t cols, float* out) {
  if (k.times_tensor_scale) return decode<Lookup, true>(k, codes, block_scales, cols, out);
  decode<Lookup, false>(k, codes, block_scales, cols, out);
}

}  // namespace

void decode_row_avx512(const decode_row& k, const std::uint8_t* codes, const float* block_scales, std::size_t cols,
                       float* out) {
  switch (k.element_bits) {
    case 4: return decode<table_lookup<4>>(k, codes, block_scales, cols, out);
    case 6: return decode<table_lookup<6>>(k, codes, block_scales, cols, out);
    default: return decode<field_decode>(k, codes, block_scales, cols, out);
  }
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
