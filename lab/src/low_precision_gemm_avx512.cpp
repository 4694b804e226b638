// AVX-512F kernel: fp32 TwoSum gives the exact error of c + a*b (the product
// of two fp16 values is exact in fp32), the sum is rounded to odd in fp32
// (24 >= 11 + 2 bits) and vcvtps2ph rounds that to fp16 nearest-even, which
// equals rounding the exact sum once.
#include <immintrin.h>

#include "libnum/cpu_features.hpp"
#include "low_precision_gemm_kernels.hpp"

namespace lab::detail {
namespace {

#define NUMLAB_AVX512 __attribute__((target("avx512f")))

NUMLAB_AVX512 inline __m512 add_round(__m512 c, __m512 y) {
  const __m512 s = _mm512_add_ps(c, y);
  const __m512 bb = _mm512_sub_ps(s, c);
  const __m512 e = _mm512_add_ps(_mm512_sub_ps(c, _mm512_sub_ps(s, bb)), _mm512_sub_ps(y, bb));
  const __m512i si = _mm512_castps_si512(s);
  const __m512i one = _mm512_set1_epi32(1);
  const __mmask16 inexact = _mm512_cmp_ps_mask(e, _mm512_setzero_ps(), _CMP_NEQ_OQ);
  const __mmask16 finite = _mm512_cmp_ps_mask(_mm512_abs_ps(s), _mm512_set1_ps(__builtin_inff()), _CMP_LT_OQ);
  const __mmask16 even = _mm512_testn_epi32_mask(si, one);
  const __mmask16 same_sign =
      _mm512_cmpge_epi32_mask(_mm512_xor_si512(si, _mm512_castps_si512(e)), _mm512_setzero_si512());
  const __m512i step = _mm512_mask_blend_epi32(same_sign, _mm512_set1_epi32(-1), one);
  const __m512i odd = _mm512_mask_add_epi32(si, inexact & finite & even, si, step);
  // The zero-masking forms: the plain ones trip GCC 12's -Wmaybe-uninitialized.
  const __m256i h =
      _mm512_maskz_cvtps_ph(0xFFFF, _mm512_castsi512_ps(odd), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm512_maskz_cvtph_ps(0xFFFF, h);
}

NUMLAB_AVX512 inline __mmask16 tail_mask(std::size_t left) {
  return left >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << left) - 1u);
}

}  // namespace

bool fp16_kernel_supported() { return num::host_cpu().avx512f; }

NUMLAB_AVX512 void fp16_accumulate(const fp16_block& blk, std::size_t p_begin, std::size_t p_end, float* partial) {
  for (std::size_t p = p_begin; p < p_end; ++p) {
    const float* brow = blk.b + p * blk.ldb;
    for (std::size_t r = 0; r < blk.rows; ++r) {
      const __m512 a = _mm512_set1_ps(blk.a[r * blk.a_row + p * blk.a_col]);
      float* c = partial + r * blk.n;
      for (std::size_t j = 0; j < blk.n; j += 16) {
        const __mmask16 m = tail_mask(blk.n - j);
        const __m512 prod = _mm512_mul_ps(a, _mm512_maskz_loadu_ps(m, brow + j));
        _mm512_mask_storeu_ps(c + j, m, add_round(_mm512_maskz_loadu_ps(m, c + j), prod));
      }
    }
  }
}

NUMLAB_AVX512 void fp16_add(float* partial, const float* addend, std::size_t len) {
  for (std::size_t i = 0; i < len; i += 16) {
    const __mmask16 m = tail_mask(len - i);
    _mm512_mask_storeu_ps(partial + i, m,
                          add_round(_mm512_maskz_loadu_ps(m, partial + i), _mm512_maskz_loadu_ps(m, addend + i)));
  }
}

}  // namespace lab::detail
