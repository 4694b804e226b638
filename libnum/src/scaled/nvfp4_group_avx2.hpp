// Internal: the AVX2 NVFP4 kernel's per-group block work (nvfp4_avx2.cpp):
// the amaxes of eight blocks at once and the E4M3 scales, decode scales and
// reciprocals of four, in vectors, into arrays indexed by block. Include
// inside the AVX2 region (after avx2_region.hpp): the double arithmetic
// takes the MXCSR's rounding, which the dispatch has checked is to nearest.
#pragma once

#include <cstddef>
#include <cstdint>

namespace num::scaled_detail {
namespace {

// A group's plans, lane j for its block j (plan_of's fields as arrays,
// filled four lanes at a time without a branch per block; a per-lane
// struct took a fifth of the kernel's instructions, callgrind).
struct nvfp4_group_plans {
  alignas(32) double d[16];      // D = S·s; 0 where S is zero, the block empty or left
  alignas(32) double value[16];  // S (0 likewise)
  alignas(16) float reciprocal[16];
  alignas(16) std::uint32_t code[16];
  std::uint32_t left = 0, overflowed = 0;  // bit j: block j
};

// The plans (nvfp4_blocks8::plan_of) of the four blocks j0..j0+3
// (amax[0..4)) at once under the tensor scale s (six_s = 6·s), in double
// lanes (as the AVX-512 kernel's e4m3_block_scales on eight): one division
// for four amaxes and one for four reciprocals. Stochastic: whether the
// kernel rounds stochastically (then a reciprocal outside fp32's normal
// range leaves no block to the scalar path: that rounding divides).
template <bool Stochastic>
NUMLAB_INLINE void nvfp4_plans4(const std::uint32_t* amax, double six_s, float s, nvfp4_group_plans& plans,
                                std::size_t j0) {
  const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(amax));
  const __m128i bad = _mm_cmpgt_epi32(bits, _mm_set1_epi32(0x7F800000 - 1));
  const __m128i empty = _mm_cmpeq_epi32(bits, _mm_setzero_si128());
  // Bad and empty blocks compute on 1.0 instead.
  const __m128 amax_f = _mm_castsi128_ps(_mm_blendv_epi8(bits, _mm_set1_epi32(0x3F800000), _mm_or_si128(bad, empty)));
  const __m256d y = _mm256_div_pd(_mm256_cvtps_pd(amax_f), _mm256_set1_pd(six_s));
  const __m256d over = _mm256_cmp_pd(y, _mm256_set1_pd(464.0), _CMP_GT_OQ);
  // Round y at E4M3's quantum: C = 2^(max(e, -6) - 3 + 52), biased max(e, -6) + 49.
  const __m256i field_y = _mm256_srli_epi64(_mm256_castpd_si256(y), 52);
  const __m256i lowest = _mm256_set1_epi64x(1017);
  const __m256i biased = _mm256_blendv_epi8(lowest, field_y, _mm256_cmpgt_epi64(field_y, lowest));
  const __m256d c = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(biased, _mm256_set1_epi64x(49)), 52));
  __m256d r = _mm256_sub_pd(_mm256_add_pd(y, c), c);
  r = _mm256_blendv_pd(r, _mm256_set1_pd(448.0), over);
  // Blocks without a scale: bad, empty, or S rounded to zero.
  const __m256i none = _mm256_or_si256(_mm256_cvtepi32_epi64(_mm_or_si128(bad, empty)),
                                       _mm256_castpd_si256(_mm256_cmp_pd(r, _mm256_setzero_pd(), _CMP_EQ_OQ)));
  r = _mm256_castsi256_pd(_mm256_andnot_si256(none, _mm256_castpd_si256(r)));
  const __m256i r_bits = _mm256_castpd_si256(r);
  const __m256i field = _mm256_srli_epi64(r_bits, 52);
  // Normal: (e + 7) · 8 + the top three fraction bits; below 2^-6: r · 2^9
  // (an integer below 8); in the low 32 bits of each lane.
  const __m256i normal = _mm256_or_si256(_mm256_slli_epi64(_mm256_sub_epi64(field, _mm256_set1_epi64x(1016)), 3),
                                         _mm256_and_si256(_mm256_srli_epi64(r_bits, 49), _mm256_set1_epi64x(7)));
  const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const __m128i normal_code = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(normal, low_halves));
  const __m128i subnormal_lanes =
      _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_cmpgt_epi64(lowest, field), low_halves));
  const __m128i subnormal_code = _mm256_cvttpd_epi32(_mm256_mul_pd(r, _mm256_set1_pd(512.0)));
  const __m128i none32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(none, low_halves));
  _mm_store_si128(reinterpret_cast<__m128i*>(plans.code + j0),
                  _mm_andnot_si128(none32, _mm_blendv_epi8(normal_code, subnormal_code, subnormal_lanes)));
  // D = S·s (exact: 4 x 24 bits); its reciprocal from 1 where there is no scale (not used).
  const __m256d d = _mm256_mul_pd(r, _mm256_set1_pd(static_cast<double>(s)));
  const __m256d one = _mm256_set1_pd(1.0);
  const __m128 reciprocal = _mm256_cvtpd_ps(_mm256_div_pd(one, _mm256_blendv_pd(d, one, _mm256_castsi256_pd(none))));
  _mm256_store_pd(plans.d + j0, d);
  _mm256_store_pd(plans.value + j0, r);
  _mm_store_ps(plans.reciprocal + j0, reciprocal);
  const auto none_bits = static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(none32)));
  unsigned left = static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(bad)));
  if constexpr (!Stochastic) {
    // The error bound needs a normal reciprocal (stochastic rounding divides instead).
    const __m128i flip = _mm_set1_epi32(static_cast<int>(0x80000000u));
    const __m128i off_normal = _mm_sub_epi32(_mm_castps_si128(reciprocal), _mm_set1_epi32(0x00800000));
    const __m128i not_normal = _mm_cmpgt_epi32(_mm_xor_si128(off_normal, flip),
                                               _mm_xor_si128(_mm_set1_epi32(0x7F000000 - 1), flip));
    left |= static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(not_normal))) & ~none_bits;
  }
  plans.left |= left << j0;
  plans.overflowed |= (static_cast<unsigned>(_mm256_movemask_pd(over)) & ~none_bits) << j0;
}

// The amaxes (patterns) of the eight whole blocks at `in`: the blocks'
// vectors folded together pairwise (unpacks, then halves) instead of each
// reduced alone, 8 instructions a block instead of 13.
// (`magnitude`: 0x7FFFFFFF in every lane.)
NUMLAB_INLINE void nvfp4_amax8(const float* in, __m256i magnitude, std::uint32_t* amax) {
  __m256i m[8];
  for (int b = 0; b < 8; ++b) {
    // The block 64 on, as the MX kernel's scale pass.
    _mm_prefetch(reinterpret_cast<const char*>(in + 16 * (b + 64)), _MM_HINT_T0);
    const auto* p = reinterpret_cast<const __m256i*>(in + 16 * b);
    m[b] = _mm256_max_epi32(_mm256_and_si256(_mm256_loadu_si256(p), magnitude),
                            _mm256_and_si256(_mm256_loadu_si256(p + 1), magnitude));
  }
  __m256i t[4];
  for (int p = 0; p < 4; ++p) {
    t[p] = _mm256_max_epi32(_mm256_unpacklo_epi32(m[2 * p], m[2 * p + 1]),
                            _mm256_unpackhi_epi32(m[2 * p], m[2 * p + 1]));
  }
  // Per 128-bit half: blocks 0..3 (u0) and 4..7 (u1), each over that half's lanes.
  const __m256i u0 = _mm256_max_epi32(_mm256_unpacklo_epi64(t[0], t[1]), _mm256_unpackhi_epi64(t[0], t[1]));
  const __m256i u1 = _mm256_max_epi32(_mm256_unpacklo_epi64(t[2], t[3]), _mm256_unpackhi_epi64(t[2], t[3]));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(amax), _mm256_max_epi32(_mm256_permute2x128_si256(u0, u1, 0x20),
                                                                         _mm256_permute2x128_si256(u0, u1, 0x31)));
}

}  // namespace
}  // namespace num::scaled_detail
