// AVX-512 statistics kernel: 16 fp32 inputs per step. The rounded binade is
// the exponent field of bits(|x|) + carry, the carry looked up by |x|'s binade
// (vpermt2d); underflow and overflow are compares against the plan's
// thresholds. Same slots, lanes and additions as the portable kernel (which
// classifies by threshold search instead), so the results are identical.
// Counting goes through stats_slot_counter.hpp's carry-save tree for targets
// of at most 64 slots, and for wider ones through the same tree over a window
// of 64 slots where the data allows, else through a table of slot pairs.
// GCC 12 reports the undefined pass-through operand inside the unmasked
// AVX-512 intrinsics as uninitialized (GCC bug 105593); the operand is unused.
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <vector>

#include "stats_kernel.hpp"
#include "stats_slot_counter.hpp"

namespace num::detail {
namespace {

// Sums and extremes of 16 lanes, kept in registers across the loop.
struct moment_vectors {
  __m512d sum_low, sum_high, squares_low, squares_high;
  __m512i max_abs, min_nonzero_abs;
};

// Adds the lanes in `finite` to the sums and maximum, and those in
// `nonzero_finite` to the nonzero minimum.
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), always_inline)) inline void add_moments(
    moment_vectors& m, __m512i bits, __m512i a, __mmask16 finite, __mmask16 nonzero_finite) {
  const __m512 x = _mm512_castsi512_ps(_mm512_maskz_mov_epi32(finite, bits));
  const __m512d low = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
  const __m512d high = _mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1));
  m.sum_low = _mm512_add_pd(m.sum_low, low);
  m.sum_high = _mm512_add_pd(m.sum_high, high);
  m.squares_low = _mm512_add_pd(m.squares_low, _mm512_mul_pd(low, low));
  m.squares_high = _mm512_add_pd(m.squares_high, _mm512_mul_pd(high, high));
  m.max_abs = _mm512_mask_max_epu32(m.max_abs, finite, m.max_abs, a);
  m.min_nonzero_abs = _mm512_mask_min_epu32(m.min_nonzero_abs, nonzero_finite, m.min_nonzero_abs, a);
}

// Per-sign constants; for symmetric modes only the positive set is used.
struct sign_constants {
  __m512i nonzero, overflow, carry_low, carry_high;
};

// The bounds as vectors, `offset` added to every carry (wrapping).
__attribute__((target("avx512f"))) sign_constants load_constants(const rounding_bounds& b, std::uint32_t offset) {
  const __m512i add = _mm512_set1_epi32(static_cast<int>(offset));
  return {_mm512_set1_epi32(static_cast<int>(b.nonzero)), _mm512_set1_epi32(static_cast<int>(b.overflow)),
          _mm512_add_epi32(_mm512_loadu_si512(&b.carry_by_binade[0]), add),
          _mm512_add_epi32(_mm512_loadu_si512(&b.carry_by_binade[16]), add)};
}

// The slots of 16 inputs at a time (the classification every counting
// scheme shares), adding their sums and extremes on the way.
//
// With FoldedBias the carry table also subtracts the slot bias (the fp32
// exponent field of the binade below the lowest one) in the exponent field,
// which saves an operation per step. For finite |x| below the overflow
// threshold the signed sum cannot wrap when the bias is non-negative (lowest
// binade >= -126), which folded_bias_fits checks; the other lanes' slots are
// replaced in rare_slots.
template <bool Directed, bool FoldedBias>
class step_classifier {
 public:
  static bool folded_bias_fits(const stats_plan& plan) { return slot_bias_of(plan) >= 0; }

  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) explicit step_classifier(const stats_plan& plan)
      : plan_(plan),
        layout_(plan),
        pos_(load_constants(plan.bounds(false), carry_offset(plan))),
        neg_(load_constants(plan.bounds(true), carry_offset(plan))),
        field_base_(_mm512_set1_epi32(static_cast<int>(layout_.emin_field) - 24)),
        slot_bias_(_mm512_set1_epi32(slot_bias_of(plan))) {}

  const stats_layout& layout() const { return layout_; }

  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), always_inline)) __m512i slots(const float* values,
                                                                                           moment_vectors& m) const {
    const __m512i bits = _mm512_loadu_si512(values);
    const __m512i a = _mm512_and_si512(bits, _mm512_set1_epi32(static_cast<int>(fp32_abs_mask)));
    const __m512i field = _mm512_srli_epi32(a, 23);
    // Binades below the carry table (negative before the unsigned minimum)
    // take its last entry instead of 0. Either carry is below 2^23, so they
    // still land in slot 1 or lower, which the masked maximum below turns
    // into 1 or, for underflows, 0.
    const __m512i binade = _mm512_min_epu32(_mm512_sub_epi32(field, field_base_), _mm512_set1_epi32(31));
    __m512i carry = _mm512_permutex2var_epi32(pos_.carry_low, binade, pos_.carry_high);
    __m512i nonzero = pos_.nonzero;
    __m512i overflow = pos_.overflow;
    if constexpr (Directed) {
      const __mmask16 negative = _mm512_movepi32_mask(bits);
      carry = _mm512_mask_blend_epi32(negative, carry,
                                      _mm512_permutex2var_epi32(neg_.carry_low, binade, neg_.carry_high));
      nonzero = _mm512_mask_blend_epi32(negative, nonzero, neg_.nonzero);
      overflow = _mm512_mask_blend_epi32(negative, overflow, neg_.overflow);
    }
    // |x| < 2^31, so signed compares order the magnitudes.
    const __mmask16 kept = _mm512_cmpge_epi32_mask(a, nonzero);        // zeros underflow
    const __mmask16 overflowing = _mm512_cmpge_epi32_mask(a, overflow);  // NaN and inf included
    const __m512i slot = _mm512_maskz_max_epi32(kept, rounded_field_minus_bias(a, carry), _mm512_set1_epi32(1));
    // Zeros, fp32 subnormals, NaNs, infinities and overflows: rare, or
    // cheap when not.
    const __mmask16 small = _mm512_testn_epi32_mask(field, field);
    if (__builtin_expect(_kortestz_mask16_u8(small, overflowing) != 0, 1)) {
      add_moments(m, bits, a, 0xFFFF, 0xFFFF);
      return slot;
    }
    const __mmask16 nonfinite = _mm512_cmpge_epi32_mask(a, _mm512_set1_epi32(static_cast<int>(fp32_inf_bits)));
    const __mmask16 zero = _mm512_testn_epi32_mask(a, a);
    add_moments(m, bits, a, static_cast<__mmask16>(~nonfinite), static_cast<__mmask16>(~(nonfinite | zero)));
    return rare_slots(values, a, slot, plan_, layout_);
  }

 private:
  static int slot_bias_of(const stats_plan& plan) { return plan.lowest_binade() + 127 - 1; }
  static std::uint32_t carry_offset(const stats_plan& plan) {
    return FoldedBias ? std::uint32_t{0} - (static_cast<std::uint32_t>(slot_bias_of(plan)) << 23) : 0;
  }

  // The rounded value's fp32 exponent field minus the slot bias: the slot
  // for binades from the lowest up.
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), always_inline)) __m512i rounded_field_minus_bias(
      __m512i a, __m512i carry) const {
    if constexpr (FoldedBias) return _mm512_srai_epi32(_mm512_add_epi32(a, carry), 23);
    return _mm512_sub_epi32(_mm512_srli_epi32(_mm512_add_epi32(a, carry), 23), slot_bias_);
  }

  // Overflows, zeros, NaNs, infinities and fp32 subnormals, the last one by
  // one. Kept out of line and static (it takes no vector member), so the
  // caller's loop keeps its moments and constants in registers.
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), noinline)) static __m512i rare_slots(
      const float* values, __m512i a, __m512i slot, const stats_plan& plan, const stats_layout& layout) {
    const __m512i bits = _mm512_loadu_si512(values);
    const rounding_bounds& positive = plan.bounds(false);
    const rounding_bounds& negative = plan.bounds(true);
    const __mmask16 sign = _mm512_movepi32_mask(bits);
    const __m512i nonzero = _mm512_mask_blend_epi32(sign, _mm512_set1_epi32(static_cast<int>(positive.nonzero)),
                                                    _mm512_set1_epi32(static_cast<int>(negative.nonzero)));
    const __m512i overflow = _mm512_mask_blend_epi32(sign, _mm512_set1_epi32(static_cast<int>(positive.overflow)),
                                                     _mm512_set1_epi32(static_cast<int>(negative.overflow)));
    const __mmask16 underflow = _mm512_cmplt_epi32_mask(a, nonzero);
    const __mmask16 overflowing = _mm512_cmpge_epi32_mask(a, overflow);
    const __mmask16 small = _mm512_cmplt_epi32_mask(a, _mm512_set1_epi32(0x00800000));
    const __mmask16 nonfinite = _mm512_cmpge_epi32_mask(a, _mm512_set1_epi32(static_cast<int>(fp32_inf_bits)));
    const __mmask16 infinite = _mm512_cmpeq_epi32_mask(a, _mm512_set1_epi32(static_cast<int>(fp32_inf_bits)));
    const __mmask16 zero = _mm512_testn_epi32_mask(a, a);
    slot = _mm512_mask_mov_epi32(slot, overflowing, _mm512_set1_epi32(static_cast<int>(layout.overflow_slot)));
    slot = _mm512_mask_mov_epi32(slot, zero, _mm512_set1_epi32(static_cast<int>(layout.zero_slot)));
    slot = _mm512_mask_mov_epi32(slot, nonfinite & static_cast<__mmask16>(~infinite),
                                 _mm512_set1_epi32(static_cast<int>(layout.nan_slot)));
    slot = _mm512_mask_mov_epi32(slot, infinite, _mm512_set1_epi32(static_cast<int>(layout.inf_slot)));
    // fp32 subnormals that survive rounding are classified one by one.
    const __mmask16 tiny = small & static_cast<__mmask16>(~underflow);
    if (tiny != 0) {
      alignas(64) std::uint32_t lane_slots[stats_lanes];
      _mm512_store_si512(lane_slots, slot);
      for (unsigned lane = 0; lane < stats_lanes; ++lane) {
        if ((tiny >> lane) & 1u) {
          lane_slots[lane] = deterministic_slot(std::bit_cast<std::uint32_t>(values[lane]), layout, plan);
        }
      }
      slot = _mm512_load_si512(lane_slots);
    }
    return slot;
  }

  const stats_plan& plan_;
  stats_layout layout_;
  sign_constants pos_, neg_;
  __m512i field_base_, slot_bias_;
};

// Adds the lanes of `outside` (window-relative slots outside [0, 64)) one by
// one. Out of line: the caller's loop keeps its vectors in registers.
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), noinline)) void count_outside_window(
    __m512i window_slot, __mmask16 outside, std::uint32_t base, stats_accumulator& acc) {
  alignas(64) std::uint32_t lanes[stats_lanes];
  _mm512_store_si512(lanes, window_slot);
  for (unsigned lane = 0; lane < stats_lanes; ++lane) {
    if ((outside >> lane) & 1u) ++acc.slots[lanes[lane] + base];
  }
}

// Counting by a carry-save tree over one set bit per lane (stats_slot_counter.hpp),
// a few vector ops per 16 inputs: for targets with at most 64 slots (fp16,
// the fp8s; base 0), or, Windowed, for the 64 slots [base, base + 64) of a
// wider target, the slots outside the window counted one by one.
template <bool Windowed, class Classifier>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) void count_by_bits(
    std::span<const float> values, const Classifier& classify, moment_vectors& m, stats_accumulator& acc,
    std::uint32_t base) {
  slot_counter counter;
  const float* next_values = values.data();
  const __m512i window_base = _mm512_set1_epi32(static_cast<int>(base));
  const auto next = [&]() __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), always_inline)) {
    __m512i slot = classify.slots(next_values, m);
    next_values += stats_lanes;
    if constexpr (Windowed) {
      // Below the window the difference wraps to a large unsigned value:
      // outside too, and the counter's shifts drop it like any slot >= 64.
      slot = _mm512_sub_epi32(slot, window_base);
      const __mmask16 outside =
          _mm512_cmpge_epu32_mask(slot, _mm512_set1_epi32(static_cast<int>(slot_counter::max_slots)));
      if (__builtin_expect(outside != 0, 0)) count_outside_window(slot, outside, base, acc);
    }
    return slot;
  };
  const std::size_t steps = values.size() / stats_lanes;
  const std::size_t grouped = steps / slot_counter::group_steps * slot_counter::group_steps;
  for (std::size_t step = 0; step < grouped; step += slot_counter::group_steps) counter.add_group(next);
  for (std::size_t step = grouped; step < steps; ++step) counter.add_one(next());
  counter.add_to(std::span<std::uint64_t, slot_counter::max_slots>(acc.slots.data() + base, slot_counter::max_slots));
}

// The counting window for a target of more than 64 slots: 64 slots centred
// on the binade slots (neither underflow, overflow nor special) of the first
// group of inputs, or none when those spread over more than 64 slots or the
// group has none. The probe's moments are discarded.
template <class Classifier>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) std::optional<std::uint32_t> counting_window(
    std::span<const float> values, const Classifier& classify) {
  const std::uint32_t overflow_slot = classify.layout().overflow_slot;
  const std::size_t probe_steps = std::min(values.size() / stats_lanes, slot_counter::group_steps);
  moment_vectors discarded{};
  std::uint32_t lowest = ~0u;
  std::uint32_t highest = 0;
  for (std::size_t step = 0; step < probe_steps; ++step) {
    const __m512i slot = classify.slots(values.data() + step * stats_lanes, discarded);
    const __mmask16 binade = _mm512_cmpneq_epi32_mask(slot, _mm512_setzero_si512()) &
                             _mm512_cmplt_epu32_mask(slot, _mm512_set1_epi32(static_cast<int>(overflow_slot)));
    lowest = std::min(lowest, _mm512_mask_reduce_min_epu32(binade, slot));
    highest = std::max(highest, _mm512_mask_reduce_max_epu32(binade, slot));
  }
  constexpr std::uint32_t width = slot_counter::max_slots;
  if (lowest > highest || highest - lowest >= width) return std::nullopt;
  const std::uint32_t spare = width - 1 - (highest - lowest);
  const std::uint32_t base = lowest - std::min(lowest, spare / 2);
  return std::min<std::uint32_t>(base, stats_slots - width);
}

// Counting for wider targets: lanes 2k and 2k+1 increment one counter of a
// table indexed by their pair of slots (half the memory updates of one per
// lane), later folded into per-slot counts. A counter sees at most 8
// increments per step, so 32-bit counters cannot overflow within a block of
// 2^24 steps.
constexpr std::size_t block_steps = std::size_t{1} << 24;

template <bool Directed>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) void count_by_pairs(
    std::span<const float> values, const step_classifier<Directed, false>& classify, moment_vectors& m,
    stats_accumulator& acc) {
  const std::size_t used = classify.layout().inf_slot + 1;
  const __m512i width = _mm512_set1_epi64(static_cast<long long>(used));
  std::vector<std::uint32_t> pairs(used * used);
  for (std::size_t block = 0; block < values.size(); block += block_steps * stats_lanes) {
    const std::size_t end = std::min(values.size(), block + block_steps * stats_lanes);
    for (std::size_t i = block; i < end; i += stats_lanes) {
      const __m512i slot = classify.slots(values.data() + i, m);
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
}

// Whether the plan's slots fit the bit counter (and its classifier the
// folded bias, which every such format does).
bool counts_by_bits(const stats_plan& plan) {
  return stats_layout(plan).inf_slot < slot_counter::max_slots &&
         step_classifier<false, true>::folded_bias_fits(plan);
}

template <bool Directed>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) void accumulate_avx512_mode(
    std::span<const float> values, const stats_plan& plan, stats_accumulator& acc) {
  moment_vectors m{_mm512_loadu_pd(&acc.sum[0]),
                   _mm512_loadu_pd(&acc.sum[8]),
                   _mm512_loadu_pd(&acc.sum_squares[0]),
                   _mm512_loadu_pd(&acc.sum_squares[8]),
                   _mm512_set1_epi32(static_cast<int>(acc.max_abs)),
                   _mm512_set1_epi32(static_cast<int>(acc.min_nonzero_abs))};
  if (counts_by_bits(plan)) {
    count_by_bits<false>(values, step_classifier<Directed, true>(plan), m, acc, 0);
  } else {
    const step_classifier<Directed, false> classify(plan);
    if (const std::optional<std::uint32_t> base = counting_window(values, classify)) {
      count_by_bits<true>(values, classify, m, acc, *base);
    } else {
      count_by_pairs(values, classify, m, acc);
    }
  }

  _mm512_storeu_pd(&acc.sum[0], m.sum_low);
  _mm512_storeu_pd(&acc.sum[8], m.sum_high);
  _mm512_storeu_pd(&acc.sum_squares[0], m.squares_low);
  _mm512_storeu_pd(&acc.sum_squares[8], m.squares_high);
  acc.max_abs = std::max(acc.max_abs, _mm512_reduce_max_epu32(m.max_abs));
  acc.min_nonzero_abs = std::min(acc.min_nonzero_abs, _mm512_reduce_min_epu32(m.min_nonzero_abs));
  acc.position += values.size();
}

}  // namespace

std::size_t avx512_minimum_length(const stats_plan& plan) {
  // The bit counter's fixed cost is folding its levels and byte counters at
  // the end: about a thousand scalar operations.
  if (counts_by_bits(plan)) return 256;
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
