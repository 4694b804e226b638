// AVX-512 statistics kernel: 16 fp32 inputs per step. The rounded binade is
// the exponent field of bits(|x|) + carry, the carry looked up by |x|'s binade
// (vpermt2d); underflow and overflow are compares against the plan's
// thresholds. Same slots, lanes and additions as the portable kernel (which
// classifies by threshold search instead), so the results are identical.
// GCC 12 reports the undefined pass-through operand inside the unmasked
// AVX-512 intrinsics as uninitialized (GCC bug 105593); the operand is unused.
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "stats_kernel.hpp"

namespace num::detail {
namespace {

// Sums and extremes of 16 lanes, kept in registers across the loop.
struct moment_vectors {
  __m512d sum_low, sum_high, squares_low, squares_high;
  __m512i min_abs, max_abs, min_nonzero_minus_one;
};

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) inline void add_moments(
    moment_vectors& m, __m512i bits, __m512i a, __mmask16 finite) {
  const __m512 x = _mm512_castsi512_ps(_mm512_maskz_mov_epi32(finite, bits));
  const __m512d low = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
  const __m512d high = _mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1));
  m.sum_low = _mm512_add_pd(m.sum_low, low);
  m.sum_high = _mm512_add_pd(m.sum_high, high);
  m.squares_low = _mm512_add_pd(m.squares_low, _mm512_mul_pd(low, low));
  m.squares_high = _mm512_add_pd(m.squares_high, _mm512_mul_pd(high, high));
  const __m512i finite_abs = _mm512_maskz_mov_epi32(finite, a);
  m.max_abs = _mm512_max_epu32(m.max_abs, finite_abs);
  m.min_abs = _mm512_min_epu32(m.min_abs, _mm512_mask_mov_epi32(_mm512_set1_epi32(static_cast<int>(fp32_inf_bits)),
                                                                 finite, a));
  m.min_nonzero_minus_one =
      _mm512_min_epu32(m.min_nonzero_minus_one, _mm512_sub_epi32(finite_abs, _mm512_set1_epi32(1)));
}

// Per-sign constants; for symmetric modes only the positive set is used.
struct sign_constants {
  __m512i nonzero, overflow, carry_low, carry_high;
};

__attribute__((target("avx512f"))) sign_constants load_constants(const rounding_bounds& b) {
  return {_mm512_set1_epi32(static_cast<int>(b.nonzero)), _mm512_set1_epi32(static_cast<int>(b.overflow)),
          _mm512_loadu_si512(&b.carry_by_binade[0]), _mm512_loadu_si512(&b.carry_by_binade[16])};
}

// Counting: lanes 2k and 2k+1 increment one counter of a table indexed by
// their pair of slots (half the memory updates of one per lane), later
// folded into per-slot counts. A counter sees at most 8 increments per step,
// so 32-bit counters cannot overflow within a block of 2^24 steps.
constexpr std::size_t block_steps = std::size_t{1} << 24;

template <bool Directed>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) void accumulate_avx512_mode(
    std::span<const float> values, const stats_plan& plan, stats_accumulator& acc) {
  const stats_layout layout(plan);
  const sign_constants pos = load_constants(plan.bounds(false));
  const sign_constants neg = load_constants(plan.bounds(true));
  const __m512i abs_mask = _mm512_set1_epi32(static_cast<int>(fp32_abs_mask));
  const __m512i inf = _mm512_set1_epi32(static_cast<int>(fp32_inf_bits));
  const __m512i smallest_normal = _mm512_set1_epi32(0x00800000);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i zero_vector = _mm512_setzero_si512();
  const __m512i last_index = _mm512_set1_epi32(31);
  const __m512i field_base = _mm512_set1_epi32(static_cast<int>(layout.emin_field) - 24);
  // slot = rounded fp32 exponent field - (lowest binade's field - 1)
  const __m512i slot_bias = _mm512_set1_epi32(plan.lowest_binade() + 127 - 1);
  const __m512i overflow_slot = _mm512_set1_epi32(static_cast<int>(layout.overflow_slot));

  const std::size_t used = layout.inf_slot + 1;
  const __m512i width = _mm512_set1_epi64(static_cast<long long>(used));
  std::vector<std::uint32_t> pairs(used * used);
  moment_vectors m{_mm512_loadu_pd(&acc.sum[0]),
                   _mm512_loadu_pd(&acc.sum[8]),
                   _mm512_loadu_pd(&acc.sum_squares[0]),
                   _mm512_loadu_pd(&acc.sum_squares[8]),
                   _mm512_set1_epi32(static_cast<int>(acc.min_abs)),
                   _mm512_set1_epi32(static_cast<int>(acc.max_abs)),
                   _mm512_set1_epi32(static_cast<int>(acc.min_nonzero_minus_one))};

  for (std::size_t block = 0; block < values.size(); block += block_steps * stats_lanes) {
    const std::size_t end = std::min(values.size(), block + block_steps * stats_lanes);
    for (std::size_t i = block; i < end; i += stats_lanes) {
      const __m512i bits = _mm512_loadu_si512(values.data() + i);
      const __m512i a = _mm512_and_si512(bits, abs_mask);
      const __m512i binade = _mm512_min_epi32(
          _mm512_max_epi32(_mm512_sub_epi32(_mm512_srli_epi32(a, 23), field_base), zero_vector), last_index);
      __m512i carry = _mm512_permutex2var_epi32(pos.carry_low, binade, pos.carry_high);
      __m512i nonzero = pos.nonzero;
      __m512i overflow = pos.overflow;
      if constexpr (Directed) {
        const __mmask16 negative = _mm512_movepi32_mask(bits);
        carry = _mm512_mask_blend_epi32(negative, carry,
                                        _mm512_permutex2var_epi32(neg.carry_low, binade, neg.carry_high));
        nonzero = _mm512_mask_blend_epi32(negative, nonzero, neg.nonzero);
        overflow = _mm512_mask_blend_epi32(negative, overflow, neg.overflow);
      }
      // |x| < 2^31, so signed compares order the magnitudes.
      __m512i slot = _mm512_max_epi32(
          _mm512_sub_epi32(_mm512_srli_epi32(_mm512_add_epi32(a, carry), 23), slot_bias), one);
      const __mmask16 underflow = _mm512_cmplt_epi32_mask(a, nonzero);     // zeros included
      const __mmask16 overflowing = _mm512_cmpge_epi32_mask(a, overflow);  // NaN and inf included
      slot = _mm512_mask_mov_epi32(slot, underflow, zero_vector);
      slot = _mm512_mask_mov_epi32(slot, overflowing, overflow_slot);
      // Zeros, fp32 subnormals, NaNs and infinities: rare, or cheap when not.
      const __mmask16 small = _mm512_cmplt_epi32_mask(a, smallest_normal);
      const __mmask16 nonfinite = _mm512_cmpge_epi32_mask(a, inf);
      if ((small | nonfinite) == 0) {
        add_moments(m, bits, a, 0xFFFF);
      } else {
        const __mmask16 zero = _mm512_cmpeq_epi32_mask(a, zero_vector);
        const __mmask16 infinite = _mm512_cmpeq_epi32_mask(a, inf);
        slot = _mm512_mask_mov_epi32(slot, zero, _mm512_set1_epi32(static_cast<int>(layout.zero_slot)));
        slot = _mm512_mask_mov_epi32(slot, nonfinite & static_cast<__mmask16>(~infinite),
                                     _mm512_set1_epi32(static_cast<int>(layout.nan_slot)));
        slot = _mm512_mask_mov_epi32(slot, infinite, _mm512_set1_epi32(static_cast<int>(layout.inf_slot)));
        add_moments(m, bits, a, static_cast<__mmask16>(~nonfinite));
        // fp32 subnormals that survive rounding are classified one by one.
        const __mmask16 tiny = small & static_cast<__mmask16>(~underflow);
        if (tiny != 0) {
          alignas(64) std::uint32_t lane_slots[stats_lanes];
          _mm512_store_si512(lane_slots, slot);
          for (unsigned lane = 0; lane < stats_lanes; ++lane) {
            if ((tiny >> lane) & 1u) {
              lane_slots[lane] = deterministic_slot(std::bit_cast<std::uint32_t>(values[i + lane]), layout, plan);
            }
          }
          slot = _mm512_load_si512(lane_slots);
        }
      }
      // Pairs leave the vector through registers (a vector store read back
      // as scalars would stall on store-to-load forwarding).
      const __m512i pair = _mm512_add_epi64(_mm512_mul_epu32(slot, width), _mm512_srli_epi64(slot, 32));
      const __m128i quarters[4] = {_mm512_castsi512_si128(pair), _mm512_extracti32x4_epi32(pair, 1),
                                   _mm512_extracti32x4_epi32(pair, 2), _mm512_extracti32x4_epi32(pair, 3)};
      for (const __m128i q : quarters) {
        ++pairs[static_cast<std::uint64_t>(_mm_cvtsi128_si64(q))];
        ++pairs[static_cast<std::uint64_t>(_mm_extract_epi64(q, 1))];
      }
    }
    for (std::size_t first = 0; first < used; ++first) {
      for (std::size_t second = 0; second < used; ++second) {
        const std::uint32_t c = pairs[first * used + second];
        acc.slots[first] += c;
        acc.slots[second] += c;
        pairs[first * used + second] = 0;
      }
    }
  }

  _mm512_storeu_pd(&acc.sum[0], m.sum_low);
  _mm512_storeu_pd(&acc.sum[8], m.sum_high);
  _mm512_storeu_pd(&acc.sum_squares[0], m.squares_low);
  _mm512_storeu_pd(&acc.sum_squares[8], m.squares_high);
  alignas(64) std::uint32_t lanes[3][stats_lanes];
  _mm512_store_si512(lanes[0], m.min_abs);
  _mm512_store_si512(lanes[1], m.max_abs);
  _mm512_store_si512(lanes[2], m.min_nonzero_minus_one);
  for (std::size_t k = 0; k < stats_lanes; ++k) {
    acc.min_abs = std::min(acc.min_abs, lanes[0][k]);
    acc.max_abs = std::max(acc.max_abs, lanes[1][k]);
    acc.min_nonzero_minus_one = std::min(acc.min_nonzero_minus_one, lanes[2][k]);
  }
  acc.position += values.size();
}

}  // namespace

std::size_t avx512_minimum_length(const stats_plan& plan) {
  const std::size_t used = stats_layout(plan).inf_slot + 1;
  return used * used / 16;
}

void accumulate_avx512(std::span<const float> values, const stats_plan& plan, stats_accumulator& acc) {
  if (plan.bounds(false) == plan.bounds(true)) {
    accumulate_avx512_mode<false>(values, plan, acc);
  } else {
    accumulate_avx512_mode<true>(values, plan, acc);
  }
}

}  // namespace num::detail
