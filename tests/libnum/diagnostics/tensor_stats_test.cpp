// Tensor statistics against hand-derived values and against the per-element
// oracle of stats_reference.hpp (from_float + classify), in every rounding
// mode, every format and every kernel this CPU has.
#include <bit>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "libnum/tensor_stats.hpp"
#include "stats_reference.hpp"

namespace {

using diag_test::expect_same_counts;
using diag_test::reference_stats;

std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

std::vector<num::stats_kernel> available_kernels() {
  std::vector<num::stats_kernel> kernels;
  for (auto k : {num::stats_kernel::portable, num::stats_kernel::avx2, num::stats_kernel::avx512}) {
    if (num::stats_kernel_available(k)) kernels.push_back(k);
  }
  return kernels;
}

num::tensor_stats stats_of(std::vector<float> xs, const num::format& f, num::rounding mode = num::rounding::nearest_even) {
  return num::compute_stats(xs, f, num::round_spec{.mode = mode});
}

TEST(TensorStatsThresholds, Fp16NearestEvenHandDerived) {
  const num::stats_plan plan(num::binary16);
  // Half the smallest subnormal, 2^-25, is a tie that goes to the even 0.
  EXPECT_EQ(plan.bounds(false).nonzero, bits_of(0x1p-25f) + 1);
  // 65520 = 65504 + 16 is the tie between max and 2^16; even is 2^16: overflow.
  EXPECT_EQ(plan.bounds(false).overflow, bits_of(65520.0f));
  // 2^-14 - 2^-25 is the tie between the largest subnormal and 2^-14 (even).
  EXPECT_EQ(plan.bounds(true).normal, bits_of(0x1p-14f - 0x1p-25f));
}

TEST(TensorStatsThresholds, DirectedAndE4m3HandDerived) {
  const num::stats_plan toward_zero(num::binary16, {.mode = num::rounding::toward_zero});
  EXPECT_EQ(toward_zero.bounds(false).nonzero, bits_of(0x1p-24f));
  EXPECT_EQ(toward_zero.bounds(false).overflow, bits_of(65536.0f));
  const num::stats_plan upward(num::binary16, {.mode = num::rounding::toward_positive});
  EXPECT_EQ(upward.bounds(false).nonzero, 1u);               // any positive value rounds up to 2^-24
  EXPECT_EQ(upward.bounds(true).nonzero, bits_of(0x1p-24f));  // negative: toward zero
  EXPECT_EQ(upward.bounds(false).overflow, bits_of(65504.0f) + 1);
  // E4M3: max 448, the next grid point 480 has an odd significand, so the
  // tie 464 goes down to 448.
  const num::stats_plan e4m3(num::fp8_e4m3);
  EXPECT_EQ(e4m3.bounds(false).overflow, bits_of(464.0f) + 1);
}

TEST(TensorStats, HandDerivedUnderflowAndOverflow) {
  const num::tensor_stats fp16 = stats_of({1e-8f, 70000.0f, 65519.0f, 65520.0f, -65520.0f, 1.0f}, num::binary16);
  EXPECT_EQ(fp16.underflows, 1u);  // 1e-8 < 2^-25
  EXPECT_EQ(fp16.overflows, 3u);   // 70000, ±65520
  EXPECT_EQ(fp16.binade(15), 1u);  // 65519 rounds to 65504
  EXPECT_EQ(fp16.binade(0), 1u);
  const num::tensor_stats bf16 = stats_of({1e-8f, 70000.0f}, num::bfloat16_format);
  EXPECT_EQ(bf16.underflows, 0u);
  EXPECT_EQ(bf16.overflows, 0u);
  EXPECT_EQ(bf16.binade(-27), 1u);  // 1e-8 ~ 1.34 * 2^-27
  EXPECT_EQ(bf16.binade(16), 1u);
}

TEST(TensorStats, OverflowCountDoesNotDependOnOverflowMode) {
  for (auto mode : {num::overflow_mode::ieee, num::overflow_mode::saturate, num::overflow_mode::nan}) {
    const num::tensor_stats s =
        num::compute_stats(std::vector<float>{70000.0f, -1e6f, 65000.0f}, num::binary16, {.overflow = mode});
    EXPECT_EQ(s.overflows, 2u);
  }
}

TEST(TensorStats, CountsMomentsAndExtremes) {
  const std::vector<float> xs{0.0f, -0.0f, 3.0f, -4.0f, NAN, INFINITY, -INFINITY, 0x1p-20f};
  const num::tensor_stats s = num::compute_stats(xs, num::binary16);
  EXPECT_EQ(s.count, 8u);
  EXPECT_EQ(s.finite(), 5u);
  EXPECT_EQ(s.zeros, 2u);
  EXPECT_EQ(s.nans, 1u);
  EXPECT_EQ(s.infs, 2u);
  EXPECT_EQ(s.subnormals, 1u);  // 2^-20 is a binary16 subnormal
  EXPECT_EQ(s.binade(-20), 1u);
  EXPECT_EQ(s.min_abs, 0.0f);
  EXPECT_EQ(s.max_abs, 4.0f);
  EXPECT_EQ(s.min_nonzero_abs, 0x1p-20f);
  EXPECT_DOUBLE_EQ(s.mean(), (3.0 - 4.0 + 0x1p-20) / 5);
  EXPECT_DOUBLE_EQ(s.rms(), std::sqrt((9.0 + 16.0 + 0x1p-40) / 5));
}

TEST(TensorStats, EmptyAndAllNonFinite) {
  const num::tensor_stats empty = stats_of({}, num::binary16);
  EXPECT_EQ(empty.count, 0u);
  EXPECT_EQ(empty.mean(), 0.0);
  const num::tensor_stats special = stats_of({NAN, INFINITY}, num::binary16);
  EXPECT_EQ(special.max_abs, 0.0f);
  EXPECT_EQ(special.min_nonzero_abs, 0.0f);
}

TEST(TensorStats, MatchesPerElementOracleInEveryModeFormatAndKernel) {
  const num::random_stream random(42, 7);
  std::uint32_t seed = 1;
  for (const num::format& f : diag_test::test_formats()) {
    for (const num::rounding mode : num::all_roundings) {
      const num::round_spec spec{.mode = mode, .random_bits = mode == num::rounding::stochastic ? 5 : 32};
      const num::stats_plan plan(f, spec);
      const std::vector<float> xs = diag_test::mixed_data(num::stats_plan(f), 1500, seed++);
      const std::uint64_t first_index = 1000003;
      const auto expected = reference_stats(xs, f, spec, random, first_index);
      for (const num::stats_kernel kernel : available_kernels()) {
        SCOPED_TRACE(num::format_name(f) + " " + std::string(num::rounding_name(mode)) + " kernel " +
                     std::to_string(static_cast<int>(kernel)));
        const num::tensor_stats s = num::compute_stats(xs, plan, {random, first_index, kernel});
        expect_same_counts(s, expected.stats);
        EXPECT_NEAR(s.sum, static_cast<double>(expected.sum), 1e-12 * std::fabs(static_cast<double>(expected.sum)));
        EXPECT_NEAR(s.sum_squares, static_cast<double>(expected.sum_squares),
                    1e-12 * static_cast<double>(expected.sum_squares));
      }
    }
  }
}

TEST(TensorStats, KernelsGiveIdenticalResultsForEveryLengthAndOffset) {
  const num::stats_plan plan(num::binary16, {.mode = num::rounding::toward_negative});
  const std::vector<float> xs = diag_test::mixed_data(plan, 300, 99);
  for (std::size_t offset : {0u, 1u, 7u, 15u}) {
    for (std::size_t length : {0u, 5u, 16u, 33u, 200u}) {
      const std::span<const float> part = std::span<const float>(xs).subspan(offset, length);
      const num::tensor_stats portable = num::compute_stats(part, plan, {.kernel = num::stats_kernel::portable});
      for (const num::stats_kernel kernel : available_kernels()) {
        const num::tensor_stats s = num::compute_stats(part, plan, {.kernel = kernel});
        expect_same_counts(s, portable);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(s.sum), std::bit_cast<std::uint64_t>(portable.sum));
        EXPECT_EQ(std::bit_cast<std::uint64_t>(s.sum_squares), std::bit_cast<std::uint64_t>(portable.sum_squares));
      }
    }
  }
}

// Long inputs: a run of values in one binade, then the same with mixed data
// sprinkled in, then mixed data. The AVX-512 kernel's per-slot byte counters
// fill to their capacity (255 groups of 256 elements, all in one slot), the
// tail after its 256-element groups is counted on its own, and for targets of
// more than 64 slots its 64-slot window (placed by the leading run) meets
// slots below and above it.
TEST(TensorStats, LongInputsMatchPerElementOracle) {
  for (const num::format& f : {num::binary16, num::fp8_e4m3, num::bfloat16_format, num::binary32}) {
    for (const num::rounding mode : {num::rounding::nearest_even, num::rounding::toward_positive}) {
      const num::round_spec spec{.mode = mode};
      const num::stats_plan plan(f, spec);
      const std::vector<float> sprinkled = diag_test::mixed_data(plan, 3000, 11);
      std::mt19937 gen(12);
      std::uniform_real_distribution<float> in_binade(1.0f, 1.5f);
      std::vector<float> xs;
      std::size_t next_sprinkled = 0;
      while (xs.size() < 200'000) {
        if (xs.size() >= 70'000 && xs.size() % 50 == 0 && next_sprinkled < sprinkled.size()) {
          xs.push_back(sprinkled[next_sprinkled++]);
        } else {
          xs.push_back((gen() & 1) != 0 ? in_binade(gen) : -in_binade(gen));
        }
      }
      const std::vector<float> tail = diag_test::mixed_data(plan, 1000, 13);
      xs.insert(xs.end(), tail.begin(), tail.end());
      const std::span<const float> part = std::span<const float>(xs).subspan(3, xs.size() - 3 - 77);
      const auto expected = reference_stats(part, f, spec);
      for (const num::stats_kernel kernel : available_kernels()) {
        SCOPED_TRACE(num::format_name(f) + " " + std::string(num::rounding_name(mode)) + " kernel " +
                     std::to_string(static_cast<int>(kernel)));
        expect_same_counts(num::compute_stats(part, plan, {.kernel = kernel}), expected.stats);
      }
    }
  }
}

TEST(TensorStats, MergedChunksEqualOnePass) {
  const num::random_stream random(3, 4);
  for (const num::rounding mode : {num::rounding::nearest_even, num::rounding::stochastic}) {
    const num::stats_plan plan(num::bfloat16_format, {.mode = mode});
    const std::vector<float> xs = diag_test::mixed_data(plan, 5000, 5);
    const num::tensor_stats whole = num::compute_stats(xs, plan, {.random = random});
    num::tensor_stats merged;
    std::size_t previous = 0;
    for (const std::size_t cut : {std::size_t{17}, std::size_t{2000}, std::size_t{2001}, xs.size()}) {
      const auto part = std::span<const float>(xs).subspan(previous, cut - previous);
      merge_into(merged, num::compute_stats(part, plan, {.random = random, .first_index = previous}));
      previous = cut;
    }
    expect_same_counts(merged, whole);
    EXPECT_NEAR(merged.sum, whole.sum, 1e-12 * std::fabs(whole.sum));
    EXPECT_NEAR(merged.sum_squares, whole.sum_squares, 1e-12 * whole.sum_squares);
  }
}

TEST(TensorStats, MergeRejectsDifferentTargets) {
  num::tensor_stats a = stats_of({1.0f}, num::binary16);
  const num::tensor_stats b = stats_of({1.0f}, num::bfloat16_format);
  EXPECT_THROW(num::merge_into(a, b), std::invalid_argument);
}

// Every binary16 encoding, seen as binary16: nothing rounds.
TEST(TensorStats16Bit, AllFp16EncodingsHandDerived) {
  std::vector<std::uint16_t> all(65536);
  std::iota(all.begin(), all.end(), std::uint16_t{0});
  const num::tensor_stats s = num::compute_stats(all, num::binary16, num::stats_plan(num::binary16));
  EXPECT_EQ(s.count, 65536u);
  EXPECT_EQ(s.zeros, 2u);
  EXPECT_EQ(s.infs, 2u);
  EXPECT_EQ(s.nans, 2u * 1023u);
  EXPECT_EQ(s.subnormals, 2u * 1023u);
  EXPECT_EQ(s.underflows, 0u);
  EXPECT_EQ(s.overflows, 0u);
  for (int k = -14; k <= 15; ++k) EXPECT_EQ(s.binade(k), 2u * 1024u) << k;
  for (int k = -24; k < -14; ++k) EXPECT_EQ(s.binade(k), 2u << (k + 24)) << k;  // 2^(k+24) per sign
  EXPECT_EQ(s.max_abs, 65504.0f);
  EXPECT_EQ(s.min_nonzero_abs, 0x1p-24f);
}

TEST(TensorStats16Bit, StorageMatchesDecodedFloats) {
  std::vector<std::uint16_t> all(65536);
  std::iota(all.begin(), all.end(), std::uint16_t{0});
  for (const num::format& storage : {num::binary16, num::bfloat16_format}) {
    std::vector<float> decoded;
    for (const std::uint16_t b : all) decoded.push_back(num::to_float(storage, b));
    for (const num::format& target : {num::fp8_e4m3, num::binary16}) {
      const num::stats_plan plan(target);
      expect_same_counts(num::compute_stats(all, storage, plan), reference_stats(decoded, target, {}).stats);
    }
  }
  EXPECT_THROW(num::compute_stats(all, num::binary32, num::stats_plan(num::binary16)), std::invalid_argument);
}

}  // namespace
