// AVX2 statistics kernel: two groups of 8 fp32 inputs per step (16 fp64 sum
// lanes, as in the portable kernel), the same classification as the AVX-512
// kernel with compare-and-blend instead of mask registers.
#include <immintrin.h>

#include "stats_kernel.hpp"

namespace num::detail {
namespace {

struct bounds_vectors {
  __m256i nonzero, normal, overflow, carry;
};

__attribute__((target("avx2"))) bounds_vectors broadcast(const rounding_bounds& b) {
  return {_mm256_set1_epi32(static_cast<int>(b.nonzero)), _mm256_set1_epi32(static_cast<int>(b.normal)),
          _mm256_set1_epi32(static_cast<int>(b.overflow)), _mm256_set1_epi32(static_cast<int>(b.carry))};
}

// Per-lane choice by the lane's sign (all-ones lanes in `negative`).
__attribute__((target("avx2"))) __m256i select(__m256i negative, __m256i positive_value, __m256i negative_value) {
  return _mm256_blendv_epi8(positive_value, negative_value, negative);
}

// All-ones where a >= b (both below 2^31).
__attribute__((target("avx2"))) __m256i at_least(__m256i a, __m256i b) {
  return _mm256_xor_si256(_mm256_cmpgt_epi32(b, a), _mm256_set1_epi32(-1));
}

// The moments of 8 inputs for sum lanes [4k, 4k + 8).
struct moments {
  __m256d sum[4];
  __m256d squares[4];
};

__attribute__((target("avx2"))) void add_moments(__m256 x, moments& m, int half) {
  const __m256d low = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
  const __m256d high = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
  m.sum[2 * half] = _mm256_add_pd(m.sum[2 * half], low);
  m.sum[2 * half + 1] = _mm256_add_pd(m.sum[2 * half + 1], high);
  m.squares[2 * half] = _mm256_add_pd(m.squares[2 * half], _mm256_mul_pd(low, low));
  m.squares[2 * half + 1] = _mm256_add_pd(m.squares[2 * half + 1], _mm256_mul_pd(high, high));
}

}  // namespace

__attribute__((target("avx2"))) void accumulate_avx2(std::span<const float> values, const stats_plan& plan,
                                                     stats_accumulator& acc) {
  const stats_layout layout(plan);
  const bounds_vectors pos = broadcast(plan.bounds(false));
  const bounds_vectors neg = broadcast(plan.bounds(true));
  const __m256i abs_mask = _mm256_set1_epi32(static_cast<int>(fp32_abs_mask));
  const __m256i inf = _mm256_set1_epi32(static_cast<int>(fp32_inf_bits));
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i emin_field = _mm256_set1_epi32(static_cast<int>(layout.emin_field));
  const __m256i normal_base = _mm256_set1_epi32(static_cast<int>(layout.normal_base));
  const __m256i zero_vector = _mm256_setzero_si256();
  __m256i subnormal_pos[23], subnormal_neg[23];
  for (std::uint32_t j = 0; j < layout.subnormal_binades; ++j) {
    subnormal_pos[j] = _mm256_set1_epi32(static_cast<int>(plan.bounds(false).subnormal_binade[j]));
    subnormal_neg[j] = _mm256_set1_epi32(static_cast<int>(plan.bounds(true).subnormal_binade[j]));
  }

  std::array<std::array<std::uint64_t, stats_slots>, 4> counts{};
  moments m;
  for (int k = 0; k < 4; ++k) {
    m.sum[k] = _mm256_loadu_pd(&acc.sum[4 * static_cast<std::size_t>(k)]);
    m.squares[k] = _mm256_loadu_pd(&acc.sum_squares[4 * static_cast<std::size_t>(k)]);
  }
  // Extremes are tracked on magnitudes offset by 2^31 so that signed
  // min/max order them as unsigned (min_nonzero_minus_one wraps to ~0).
  const __m256i offset = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  __m256i min_abs = _mm256_set1_epi32(static_cast<int>(acc.min_abs));
  __m256i max_abs = _mm256_set1_epi32(static_cast<int>(acc.max_abs));
  __m256i min_nonzero = _mm256_xor_si256(_mm256_set1_epi32(static_cast<int>(acc.min_nonzero_minus_one)), offset);
  alignas(32) std::uint32_t slots[8];

  for (std::size_t i = 0; i < values.size(); i += 8) {
    const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(values.data() + i));
    const __m256i a = _mm256_and_si256(bits, abs_mask);
    const __m256i negative = _mm256_srai_epi32(bits, 31);
    const __m256i finite = _mm256_cmpgt_epi32(inf, a);
    const __m256i zero = _mm256_cmpeq_epi32(a, zero_vector);
    const __m256i nan = _mm256_cmpgt_epi32(a, inf);
    const __m256i infinite = _mm256_cmpeq_epi32(a, inf);
    const __m256i underflow = _mm256_andnot_si256(zero, _mm256_cmpgt_epi32(select(negative, pos.nonzero, neg.nonzero), a));
    const __m256i overflow = _mm256_and_si256(finite, at_least(a, select(negative, pos.overflow, neg.overflow)));
    const __m256i subnormal = _mm256_andnot_si256(_mm256_or_si256(underflow, zero),
                                                  _mm256_cmpgt_epi32(select(negative, pos.normal, neg.normal), a));

    const __m256i field = _mm256_srli_epi32(_mm256_add_epi32(a, select(negative, pos.carry, neg.carry)), 23);
    __m256i slot = _mm256_add_epi32(normal_base, _mm256_max_epi32(_mm256_sub_epi32(field, emin_field), zero_vector));
    if (_mm256_movemask_epi8(subnormal) != 0) {
      __m256i sub_slot = one;
      for (std::uint32_t j = 1; j < layout.subnormal_binades; ++j) {
        const __m256i reached = at_least(a, select(negative, subnormal_pos[j], subnormal_neg[j]));
        sub_slot = _mm256_sub_epi32(sub_slot, reached);  // reached lanes are -1
      }
      slot = _mm256_blendv_epi8(slot, sub_slot, subnormal);
    }
    slot = _mm256_blendv_epi8(slot, zero_vector, underflow);
    slot = _mm256_blendv_epi8(slot, _mm256_set1_epi32(static_cast<int>(layout.overflow_slot)), overflow);
    slot = _mm256_blendv_epi8(slot, _mm256_set1_epi32(static_cast<int>(layout.zero_slot)), zero);
    slot = _mm256_blendv_epi8(slot, _mm256_set1_epi32(static_cast<int>(layout.nan_slot)), nan);
    slot = _mm256_blendv_epi8(slot, _mm256_set1_epi32(static_cast<int>(layout.inf_slot)), infinite);
    _mm256_store_si256(reinterpret_cast<__m256i*>(slots), slot);
    for (std::size_t k = 0; k < 8; k += 4) {
      ++counts[0][slots[k]];
      ++counts[1][slots[k + 1]];
      ++counts[2][slots[k + 2]];
      ++counts[3][slots[k + 3]];
    }

    add_moments(_mm256_castsi256_ps(_mm256_and_si256(finite, bits)), m, static_cast<int>((i / 8) % 2));
    const __m256i finite_abs = _mm256_and_si256(finite, a);
    max_abs = _mm256_max_epi32(max_abs, finite_abs);
    min_abs = _mm256_min_epi32(min_abs, _mm256_blendv_epi8(inf, a, finite));
    min_nonzero = _mm256_min_epi32(min_nonzero, _mm256_xor_si256(_mm256_sub_epi32(finite_abs, one), offset));
  }

  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_pd(&acc.sum[4 * static_cast<std::size_t>(k)], m.sum[k]);
    _mm256_storeu_pd(&acc.sum_squares[4 * static_cast<std::size_t>(k)], m.squares[k]);
  }
  alignas(32) std::uint32_t lanes[3][8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[0]), min_abs);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[1]), max_abs);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[2]), _mm256_xor_si256(min_nonzero, offset));
  for (int k = 0; k < 8; ++k) {
    acc.min_abs = lanes[0][k] < acc.min_abs ? lanes[0][k] : acc.min_abs;
    acc.max_abs = lanes[1][k] > acc.max_abs ? lanes[1][k] : acc.max_abs;
    acc.min_nonzero_minus_one = lanes[2][k] < acc.min_nonzero_minus_one ? lanes[2][k] : acc.min_nonzero_minus_one;
  }
  for (std::size_t s = 0; s < stats_slots; ++s) {
    acc.slots[s] += counts[0][s] + counts[1][s] + counts[2][s] + counts[3][s];
  }
  acc.position += values.size();
}

}  // namespace num::detail
