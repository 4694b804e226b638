// Internal to the statistics pass: the accumulator that the portable, AVX2 and
// AVX-512 kernels fill identically, and the per-element classification they
// all implement.
//
// Every element goes to one histogram slot: the plan's bins (underflow,
// binades, overflow) followed by three slots for zero, NaN and infinity, so a
// single increment per element yields every count. fp64 sums are kept in 16
// lanes, element number `position` going to lane position % 16, and reduced in
// a fixed order at the end, so all kernels add the same numbers in the same
// order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "libnum/tensor_stats.hpp"

namespace num::detail {

inline constexpr std::size_t stats_lanes = 16;
inline constexpr std::uint32_t fp32_abs_mask = 0x7FFFFFFFu;
inline constexpr std::uint32_t fp32_inf_bits = 0x7F800000u;
inline constexpr std::size_t stats_slots = max_histogram_bins + 3;

/// Slot numbers of a plan's histogram layout.
struct stats_layout {
  explicit stats_layout(const stats_plan& plan);
  std::uint32_t subnormal_binades;  // bins 1 .. subnormal_binades
  std::uint32_t normal_base;        // bin of binade emin
  std::uint32_t emin_field;         // fp32 exponent field of 2^emin
  std::uint32_t max_normal_offset;  // emax - emin
  std::uint32_t overflow_slot;
  std::uint32_t zero_slot;
  std::uint32_t nan_slot;
  std::uint32_t inf_slot;
};

/// Partial statistics, filled by the kernels and turned into tensor_stats at the end.
struct stats_accumulator {
  std::array<double, stats_lanes> sum{};
  std::array<double, stats_lanes> sum_squares{};
  // Extremes as bits(|x|). The smallest finite |x| is 0 if the zero slot is
  // nonempty and min_nonzero_abs otherwise, so it needs no tracking of its own.
  std::uint32_t max_abs = 0;                      // over finite inputs
  std::uint32_t min_nonzero_abs = fp32_inf_bits;  // over nonzero finite inputs (inf: none)
  std::array<std::uint64_t, stats_slots> slots{};
  std::uint64_t position = 0;                     // elements consumed so far
};

/// The slot of one fp32 input under a deterministic rounding mode.
inline std::uint32_t deterministic_slot(std::uint32_t bits, const stats_layout& layout,
                                        const stats_plan& plan) {
  const std::uint32_t a = bits & fp32_abs_mask;
  if (a == 0) return layout.zero_slot;
  if (a >= fp32_inf_bits) return a == fp32_inf_bits ? layout.inf_slot : layout.nan_slot;
  const rounding_bounds& b = plan.bounds((bits >> 31) != 0);
  if (a < b.nonzero) return 0;
  if (a >= b.overflow) return layout.overflow_slot;
  if (a < b.normal) {
    std::uint32_t slot = 1;
    for (std::uint32_t j = 1; j < layout.subnormal_binades; ++j) slot += a >= b.subnormal_binade[j] ? 1 : 0;
    return slot;
  }
  const auto field = static_cast<std::int32_t>((a + b.carry) >> 23);
  const std::int32_t offset = field - static_cast<std::int32_t>(layout.emin_field);
  // Inputs just below 2^emin that round up to it read one binade low.
  return layout.normal_base + static_cast<std::uint32_t>(offset < 0 ? 0 : offset);
}

/// The slot of one fp32 input under stochastic rounding with random word `word`.
std::uint32_t stochastic_slot(std::uint32_t bits, std::uint32_t word, const stats_layout& layout,
                              const stats_plan& plan);

/// Adds the sums and extremes of one element at lane `lane`.
inline void accumulate_moments(std::uint32_t bits, std::size_t lane, stats_accumulator& acc) {
  const std::uint32_t a = bits & fp32_abs_mask;
  if (a >= fp32_inf_bits) return;
  float x;
  __builtin_memcpy(&x, &bits, sizeof x);
  const double d = x;
  acc.sum[lane] += d;
  acc.sum_squares[lane] += d * d;  // exact: 48 significant bits
  acc.max_abs = a > acc.max_abs ? a : acc.max_abs;
  if (a != 0 && a < acc.min_nonzero_abs) acc.min_nonzero_abs = a;
}

/// The kernels. All take the plan of a deterministic mode except the
/// portable one, which also handles stochastic rounding. The SIMD kernels
/// require acc.position % 16 == 0 and values.size() % 16 == 0.
void accumulate_portable(std::span<const float> values, const stats_plan& plan, const stats_options& options,
                         stats_accumulator& acc);
void accumulate_avx2(std::span<const float> values, const stats_plan& plan, stats_accumulator& acc);
void accumulate_avx512(std::span<const float> values, const stats_plan& plan, stats_accumulator& acc);
/// Below this many elements the AVX-512 kernel's fixed costs (the bit
/// counter's final fold, or for targets of more than 64 slots the pair
/// table's slots^2 counters to clear and fold) outweigh its speed.
std::size_t avx512_minimum_length(const stats_plan& plan);

}  // namespace num::detail
