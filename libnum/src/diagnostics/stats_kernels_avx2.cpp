// AVX2 statistics kernel: two groups of 8 fp32 inputs per step (16 fp64 sum
// lanes, as in the portable kernel), the same classification as the AVX-512
// kernel with compare-and-blend instead of mask registers and permutes for
// the carry table.
#include <immintrin.h>

#include <bit>

#include "stats_kernel.hpp"

namespace num::detail {
namespace {

struct bounds_vectors {
  __m256i nonzero, overflow;
};

__attribute__((target("avx2"))) bounds_vectors broadcast(const rounding_bounds& b) {
  return {_mm256_set1_epi32(static_cast<int>(b.nonzero)), _mm256_set1_epi32(static_cast<int>(b.overflow))};
}

// Per-lane choice by the lane's sign (all-ones lanes in `negative`).
__attribute__((target("avx2"))) __m256i select(__m256i negative, __m256i positive_value, __m256i negative_value) {
  return _mm256_blendv_epi8(positive_value, negative_value, negative);
}

// All-ones where a >= b (both below 2^31).
__attribute__((target("avx2"))) __m256i at_least(__m256i a, __m256i b) {
  return _mm256_xor_si256(_mm256_cmpgt_epi32(b, a), _mm256_set1_epi32(-1));
}

// table[idx] for a 32-entry table held in four registers (idx in [0, 31]):
// in-register permutes, cheaper than a gather.
// b where the selector's lane has its top bit set, else a.
__attribute__((target("avx2"))) __m256i pick(__m256i a, __m256i b, __m256i selector) {
  return _mm256_castps_si256(
      _mm256_blendv_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _mm256_castsi256_ps(selector)));
}

__attribute__((target("avx2"))) __m256i lookup32(const __m256i (&table)[4], __m256i idx) {
  const __m256i low = pick(_mm256_permutevar8x32_epi32(table[0], idx), _mm256_permutevar8x32_epi32(table[1], idx),
                           _mm256_slli_epi32(idx, 28));
  const __m256i high = pick(_mm256_permutevar8x32_epi32(table[2], idx), _mm256_permutevar8x32_epi32(table[3], idx),
                            _mm256_slli_epi32(idx, 28));
  return pick(low, high, _mm256_slli_epi32(idx, 27));
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
  const __m256i zero_vector = _mm256_setzero_si256();
  const __m256i smallest_normal = _mm256_set1_epi32(0x00800000);
  const __m256i last_index = _mm256_set1_epi32(31);
  const __m256i field_base = _mm256_set1_epi32(static_cast<int>(layout.emin_field) - 24);
  const __m256i slot_bias = _mm256_set1_epi32(plan.lowest_binade() + 127 - 1);
  const bool symmetric = plan.bounds(false) == plan.bounds(true);
  __m256i carry_pos[4], carry_neg[4];
  for (std::size_t k = 0; k < 4; ++k) {
    carry_pos[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&plan.bounds(false).carry_by_binade[8 * k]));
    carry_neg[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&plan.bounds(true).carry_by_binade[8 * k]));
  }

  std::array<std::array<std::uint64_t, stats_slots>, 4> counts{};
  moments m;
  for (int k = 0; k < 4; ++k) {
    m.sum[k] = _mm256_loadu_pd(&acc.sum[4 * static_cast<std::size_t>(k)]);
    m.squares[k] = _mm256_loadu_pd(&acc.sum_squares[4 * static_cast<std::size_t>(k)]);
  }
  // Magnitudes are below 2^31: signed min/max order them.
  __m256i max_abs = _mm256_set1_epi32(static_cast<int>(acc.max_abs));
  __m256i min_nonzero = _mm256_set1_epi32(static_cast<int>(acc.min_nonzero_abs));
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

    // The rounded binade: exponent field of bits(|x|) + carry, the carry
    // looked up by |x|'s binade as in the AVX-512 kernel; fp32 subnormals that
    // survive rounding are classified one by one below.
    const __m256i binade = _mm256_min_epi32(
        _mm256_max_epi32(_mm256_sub_epi32(_mm256_srli_epi32(a, 23), field_base), zero_vector), last_index);
    const __m256i carry = symmetric ? lookup32(carry_pos, binade)
                                    : select(negative, lookup32(carry_pos, binade), lookup32(carry_neg, binade));
    __m256i slot = _mm256_max_epi32(_mm256_sub_epi32(_mm256_srli_epi32(_mm256_add_epi32(a, carry), 23), slot_bias), one);
    const __m256i tiny = _mm256_andnot_si256(_mm256_or_si256(underflow, zero), _mm256_cmpgt_epi32(smallest_normal, a));
    slot = _mm256_blendv_epi8(slot, zero_vector, underflow);
    slot = _mm256_blendv_epi8(slot, _mm256_set1_epi32(static_cast<int>(layout.overflow_slot)), overflow);
    slot = _mm256_blendv_epi8(slot, _mm256_set1_epi32(static_cast<int>(layout.zero_slot)), zero);
    slot = _mm256_blendv_epi8(slot, _mm256_set1_epi32(static_cast<int>(layout.nan_slot)), nan);
    slot = _mm256_blendv_epi8(slot, _mm256_set1_epi32(static_cast<int>(layout.inf_slot)), infinite);
    _mm256_store_si256(reinterpret_cast<__m256i*>(slots), slot);
    if (_mm256_movemask_epi8(tiny) != 0) {
      for (std::size_t k = 0; k < 8; ++k) {
        const auto b = std::bit_cast<std::uint32_t>(values[i + k]);
        const std::uint32_t mag = b & fp32_abs_mask;
        if (mag != 0 && mag < 0x00800000u && mag >= plan.bounds((b >> 31) != 0).nonzero) {
          slots[k] = deterministic_slot(b, layout, plan);
        }
      }
    }
    for (std::size_t k = 0; k < 8; k += 4) {
      ++counts[0][slots[k]];
      ++counts[1][slots[k + 1]];
      ++counts[2][slots[k + 2]];
      ++counts[3][slots[k + 3]];
    }

    add_moments(_mm256_castsi256_ps(_mm256_and_si256(finite, bits)), m, static_cast<int>((i / 8) % 2));
    const __m256i finite_abs = _mm256_and_si256(finite, a);
    max_abs = _mm256_max_epi32(max_abs, finite_abs);
    min_nonzero = _mm256_min_epi32(min_nonzero, _mm256_blendv_epi8(inf, a, _mm256_andnot_si256(zero, finite)));
  }

  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_pd(&acc.sum[4 * static_cast<std::size_t>(k)], m.sum[k]);
    _mm256_storeu_pd(&acc.sum_squares[4 * static_cast<std::size_t>(k)], m.squares[k]);
  }
  alignas(32) std::uint32_t lanes[2][8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[0]), max_abs);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[1]), min_nonzero);
  for (int k = 0; k < 8; ++k) {
    acc.max_abs = lanes[0][k] > acc.max_abs ? lanes[0][k] : acc.max_abs;
    acc.min_nonzero_abs = lanes[1][k] < acc.min_nonzero_abs ? lanes[1][k] : acc.min_nonzero_abs;
  }
  for (std::size_t s = 0; s < stats_slots; ++s) {
    acc.slots[s] += counts[0][s] + counts[1][s] + counts[2][s] + counts[3][s];
  }
  acc.position += values.size();
}

}  // namespace num::detail
