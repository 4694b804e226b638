// AVX-512 statistics kernel: 16 fp32 inputs per step, classified by integer
// compares of bits(|x|) against the plan's thresholds; the same slots, lanes
// and additions as the portable kernel, so the results are identical.
// GCC 12 reports the undefined pass-through operand inside the unmasked
// AVX-512 intrinsics as uninitialized (GCC bug 105593); the operand is unused.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "stats_kernel.hpp"

namespace num::detail {
namespace {

// One sign's thresholds broadcast to all lanes.
struct bounds_vectors {
  __m512i nonzero, normal, overflow, carry;
};

__attribute__((target("avx512f"))) bounds_vectors broadcast(const rounding_bounds& b) {
  return {_mm512_set1_epi32(static_cast<int>(b.nonzero)), _mm512_set1_epi32(static_cast<int>(b.normal)),
          _mm512_set1_epi32(static_cast<int>(b.overflow)), _mm512_set1_epi32(static_cast<int>(b.carry))};
}

__attribute__((target("avx512f"))) __m512i select(__mmask16 negative, __m512i positive_value,
                                                   __m512i negative_value) {
  return _mm512_mask_blend_epi32(negative, positive_value, negative_value);
}

}  // namespace

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) void accumulate_avx512(
    std::span<const float> values, const stats_plan& plan, stats_accumulator& acc) {
  const stats_layout layout(plan);
  const bounds_vectors pos = broadcast(plan.bounds(false));
  const bounds_vectors neg = broadcast(plan.bounds(true));
  const __m512i abs_mask = _mm512_set1_epi32(static_cast<int>(fp32_abs_mask));
  const __m512i inf = _mm512_set1_epi32(static_cast<int>(fp32_inf_bits));
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i emin_field = _mm512_set1_epi32(static_cast<int>(layout.emin_field));
  const __m512i normal_base = _mm512_set1_epi32(static_cast<int>(layout.normal_base));
  const __m512i zero_vector = _mm512_setzero_si512();
  __m512i subnormal_pos[23], subnormal_neg[23];
  for (std::uint32_t j = 0; j < layout.subnormal_binades; ++j) {
    subnormal_pos[j] = _mm512_set1_epi32(static_cast<int>(plan.bounds(false).subnormal_binade[j]));
    subnormal_neg[j] = _mm512_set1_epi32(static_cast<int>(plan.bounds(true).subnormal_binade[j]));
  }

  // Four interleaved copies of the counters, so that runs of equal slots do
  // not serialise on one memory location.
  std::array<std::array<std::uint64_t, stats_slots>, 4> counts{};
  __m512d sum_low = _mm512_loadu_pd(&acc.sum[0]), sum_high = _mm512_loadu_pd(&acc.sum[8]);
  __m512d squares_low = _mm512_loadu_pd(&acc.sum_squares[0]), squares_high = _mm512_loadu_pd(&acc.sum_squares[8]);
  __m512i min_abs = _mm512_set1_epi32(static_cast<int>(acc.min_abs));
  __m512i max_abs = _mm512_set1_epi32(static_cast<int>(acc.max_abs));
  __m512i min_nonzero = _mm512_set1_epi32(static_cast<int>(acc.min_nonzero_minus_one));
  alignas(64) std::uint32_t slots[stats_lanes];

  for (std::size_t i = 0; i < values.size(); i += stats_lanes) {
    const __m512i bits = _mm512_loadu_si512(values.data() + i);
    const __m512i a = _mm512_and_si512(bits, abs_mask);
    const __mmask16 negative = _mm512_movepi32_mask(bits);
    // |x| < 2^31, so signed compares order the magnitudes.
    const __mmask16 finite = _mm512_cmplt_epi32_mask(a, inf);
    const __mmask16 zero = _mm512_cmpeq_epi32_mask(a, zero_vector);
    const __mmask16 nan = _mm512_cmpgt_epi32_mask(a, inf);
    const __mmask16 infinite = _mm512_cmpeq_epi32_mask(a, inf);
    const __mmask16 underflow =
        _mm512_cmplt_epi32_mask(a, select(negative, pos.nonzero, neg.nonzero)) & static_cast<__mmask16>(~zero);
    const __mmask16 overflow = _mm512_cmpge_epi32_mask(a, select(negative, pos.overflow, neg.overflow)) & finite;
    const __mmask16 subnormal = _mm512_cmplt_epi32_mask(a, select(negative, pos.normal, neg.normal)) &
                                static_cast<__mmask16>(~(underflow | zero));

    const __m512i field = _mm512_srli_epi32(_mm512_add_epi32(a, select(negative, pos.carry, neg.carry)), 23);
    __m512i slot = _mm512_add_epi32(normal_base, _mm512_max_epi32(_mm512_sub_epi32(field, emin_field), zero_vector));
    if (subnormal != 0) {
      __m512i sub_slot = one;
      for (std::uint32_t j = 1; j < layout.subnormal_binades; ++j) {
        const __m512i t = select(negative, subnormal_pos[j], subnormal_neg[j]);
        sub_slot = _mm512_mask_add_epi32(sub_slot, _mm512_cmpge_epi32_mask(a, t), sub_slot, one);
      }
      slot = _mm512_mask_mov_epi32(slot, subnormal, sub_slot);
    }
    slot = _mm512_mask_mov_epi32(slot, underflow, zero_vector);
    slot = _mm512_mask_mov_epi32(slot, overflow, _mm512_set1_epi32(static_cast<int>(layout.overflow_slot)));
    slot = _mm512_mask_mov_epi32(slot, zero, _mm512_set1_epi32(static_cast<int>(layout.zero_slot)));
    slot = _mm512_mask_mov_epi32(slot, nan, _mm512_set1_epi32(static_cast<int>(layout.nan_slot)));
    slot = _mm512_mask_mov_epi32(slot, infinite, _mm512_set1_epi32(static_cast<int>(layout.inf_slot)));
    _mm512_store_si512(slots, slot);
    for (std::size_t k = 0; k < stats_lanes; k += 4) {
      ++counts[0][slots[k]];
      ++counts[1][slots[k + 1]];
      ++counts[2][slots[k + 2]];
      ++counts[3][slots[k + 3]];
    }

    const __m512 x = _mm512_castsi512_ps(_mm512_maskz_mov_epi32(finite, bits));
    const __m512d low = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
    const __m512d high = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
    sum_low = _mm512_add_pd(sum_low, low);
    sum_high = _mm512_add_pd(sum_high, high);
    squares_low = _mm512_add_pd(squares_low, _mm512_mul_pd(low, low));
    squares_high = _mm512_add_pd(squares_high, _mm512_mul_pd(high, high));
    const __m512i finite_abs = _mm512_maskz_mov_epi32(finite, a);
    max_abs = _mm512_max_epu32(max_abs, finite_abs);
    min_abs = _mm512_min_epu32(min_abs, _mm512_mask_mov_epi32(inf, finite, a));
    min_nonzero = _mm512_min_epu32(min_nonzero, _mm512_sub_epi32(finite_abs, one));
  }

  _mm512_storeu_pd(&acc.sum[0], sum_low);
  _mm512_storeu_pd(&acc.sum[8], sum_high);
  _mm512_storeu_pd(&acc.sum_squares[0], squares_low);
  _mm512_storeu_pd(&acc.sum_squares[8], squares_high);
  acc.min_abs = _mm512_reduce_min_epu32(min_abs);
  acc.max_abs = _mm512_reduce_max_epu32(max_abs);
  acc.min_nonzero_minus_one = _mm512_reduce_min_epu32(min_nonzero);
  for (std::size_t s = 0; s < stats_slots; ++s) {
    acc.slots[s] += counts[0][s] + counts[1][s] + counts[2][s] + counts[3][s];
  }
  acc.position += values.size();
}

}  // namespace num::detail
