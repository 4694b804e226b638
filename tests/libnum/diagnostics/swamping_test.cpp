// Swamping detector against hand-derived updates and against the scalar
// core rounding the (exactly representable) fp64 sum once.
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "libnum/codec.hpp"
#include "libnum/convert.hpp"
#include "libnum/swamping.hpp"

namespace {

num::swamping_options options_for(num::format f, num::rounding mode, double tolerance = 0.1) {
  return {.target = f, .spec = {.mode = mode}, .tolerance = tolerance, .random = num::random_stream(11, 3)};
}

// w = 1.0 in fp16: ulp(1) = 2^-10. delta = 2^-12 is a quarter ulp.
TEST(Swamping, QuarterUlpSwampsTotallyInFp16NearestEven) {
  const std::vector<float> w(1000, 1.0f), delta(1000, 0x1p-12f);
  std::vector<float> updated(w.size());
  const num::swamping_stats s = num::detect_swamping(w, delta, options_for(num::binary16, num::rounding::nearest_even), updated);
  EXPECT_EQ(s.updates, 1000u);
  EXPECT_EQ(s.total_swamped, 1000u);
  EXPECT_EQ(s.partially_swamped, 0u);
  EXPECT_EQ(s.norm_ratio(), 0.0);
  EXPECT_EQ(s.ratio_binade(-2), 1000u);  // |delta| / ulp(w) = 2^-2
  EXPECT_EQ(updated[0], 1.0f);
  // bf16 (ulp(1) = 2^-7) swamps too; fp32 does not.
  EXPECT_EQ(num::detect_swamping(w, delta, options_for(num::bfloat16_format, num::rounding::nearest_even)).total_swamped, 1000u);
  EXPECT_EQ(num::detect_swamping(w, delta, options_for(num::binary32, num::rounding::nearest_even)).total_swamped, 0u);
}

// Stochastic rounding moves 1 + 2^-12 up to 1 + 2^-10 with probability 1/4
// (the discarded fraction of an ulp) and 1 + 2^-11 with probability 1/2.
// With n = 65536 independent elements the count of updated ones is
// binomial; we allow 5 standard deviations (sqrt(n p (1-p)) = 111 and 128).
TEST(Swamping, StochasticRoundingUpdatesWithTheDiscardedFraction) {
  const std::size_t n = 65536;
  const std::vector<float> w(n, 1.0f);
  for (const auto& [step, p] : {std::pair{0x1p-12f, 0.25}, std::pair{0x1p-11f, 0.5}}) {
    const std::vector<float> delta(n, step);
    std::vector<float> updated(n);
    const num::swamping_stats s = num::detect_swamping(w, delta, options_for(num::binary16, num::rounding::stochastic), updated);
    const double moved = static_cast<double>(n - s.total_swamped);
    EXPECT_NEAR(moved, p * n, 5 * std::sqrt(n * p * (1 - p))) << step;
    for (const float x : updated) EXPECT_TRUE(x == 1.0f || x == 1.0f + 0x1p-10f);
    // Unbiased on average: the mean effective update is delta.
    double mean = 0;
    for (const float x : updated) mean += (x - 1.0) / n;
    EXPECT_NEAR(mean, step, 5 * 0x1p-10 * std::sqrt(p * (1 - p) / n));
  }
}

TEST(Swamping, TiesAndPartialSwamping) {
  const std::vector<float> w{1.0f, 1.0f, 1.0f};
  // Half an ulp: a tie. Nearest-even keeps the even 1.0; nearest-away moves a
  // whole ulp (twice delta: partial swamping). 1.5 ulp goes to 2 ulp (even):
  // relative error 1/3.
  const std::vector<float> delta{0x1p-11f, 0x1p-11f, 3 * 0x1p-11f};
  const num::swamping_stats even = num::detect_swamping(w, delta, options_for(num::binary16, num::rounding::nearest_even));
  EXPECT_EQ(even.total_swamped, 2u);
  EXPECT_EQ(even.partially_swamped, 1u);
  const num::swamping_stats away = num::detect_swamping(w, delta, options_for(num::binary16, num::rounding::nearest_away));
  EXPECT_EQ(away.total_swamped, 0u);
  EXPECT_EQ(away.partially_swamped, 3u);
  const num::swamping_stats lenient =
      num::detect_swamping(w, delta, options_for(num::binary16, num::rounding::nearest_even, 0.5));
  EXPECT_EQ(lenient.partially_swamped, 0u);
}

// delta = ±2^-100 is far below the sum's 128-bit window: only its sign and
// stickiness reach the rounding. fp16 neighbours of 1: 1 - 2^-11 and 1 + 2^-10.
TEST(Swamping, TinyDeltasRoundByDirection) {
  const std::vector<float> w{1.0f, 1.0f};
  const std::vector<float> delta{0x1p-100f, -0x1p-100f};
  const auto after = [&](num::rounding mode) {
    std::vector<float> out(2);
    num::detect_swamping(w, delta, options_for(num::binary16, mode), out);
    return out;
  };
  EXPECT_EQ(after(num::rounding::nearest_even), (std::vector<float>{1.0f, 1.0f}));
  EXPECT_EQ(after(num::rounding::toward_positive), (std::vector<float>{1.0f + 0x1p-10f, 1.0f}));
  EXPECT_EQ(after(num::rounding::toward_negative), (std::vector<float>{1.0f, 1.0f - 0x1p-11f}));
  EXPECT_EQ(after(num::rounding::toward_zero), (std::vector<float>{1.0f, 1.0f - 0x1p-11f}));
  EXPECT_EQ(after(num::rounding::to_odd), (std::vector<float>{1.0f + 0x1p-10f, 1.0f - 0x1p-11f}));
}

TEST(Swamping, ExactCancellationAndNonFinite) {
  const std::vector<float> w{1.0f, 1.0f, NAN, 65504.0f};
  const std::vector<float> delta{-1.0f, INFINITY, 1.0f, 32.0f};
  std::vector<float> out(4);
  const num::swamping_stats s = num::detect_swamping(w, delta, options_for(num::binary16, num::rounding::toward_negative), out);
  EXPECT_TRUE(std::signbit(out[0]) && out[0] == 0.0f);  // x - x = -0 rounding downward
  EXPECT_EQ(s.updates, 2u);  // 1 - 1, and 65504 + 32 rounded down to max
  EXPECT_EQ(s.nonfinite, 2u);
  EXPECT_EQ(out[3], 65504.0f);
  EXPECT_EQ(num::detect_swamping(w, delta, options_for(num::binary16, num::rounding::nearest_even)).nonfinite, 3u);
}

// Random fp16/bf16 weights and deltas within 2^24 of them, so w + delta is
// exact in fp64 and num::from_double rounds it once: an independent path.
TEST(Swamping, MatchesScalarCoreInEveryMode) {
  std::mt19937 gen(17);
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> scale(-24, 4);  // keeps w + delta within 53 bits
  for (const num::format f : {num::binary16, num::bfloat16_format}) {
    std::vector<float> w, delta;
    for (int i = 0; i < 3000; ++i) {
      const float x = num::to_float(f, num::from_float(f, normal(gen), {}).bits);
      w.push_back(x);
      delta.push_back(i % 10 == 0 ? 0.0f : std::ldexp(normal(gen), scale(gen)) * (x == 0 ? 0x1p-10f : std::fabs(x)));
    }
    for (const num::rounding mode : num::all_roundings) {
      const num::swamping_options options = options_for(f, mode);
      std::vector<float> out(w.size());
      const num::swamping_stats s = num::detect_swamping(w, delta, options, out);
      std::uint64_t total = 0, partial = 0, zero = 0;
      for (std::size_t i = 0; i < w.size(); ++i) {
        const double exact = static_cast<double>(w[i]) + delta[i];
        const std::uint32_t word = options.random.word(i);
        const float expected = num::to_float(f, num::from_double(f, exact, options.spec, word).bits);
        ASSERT_EQ(out[i], expected) << i << " " << w[i] << " + " << delta[i];
        if (delta[i] == 0) { ++zero; continue; }
        const double effective = static_cast<double>(expected) - w[i];
        if (expected == w[i]) ++total;
        else if (std::fabs(effective - delta[i]) > 0.1 * std::fabs(delta[i])) ++partial;
      }
      EXPECT_EQ(s.total_swamped, total);
      EXPECT_EQ(s.partially_swamped, partial);
      EXPECT_EQ(s.zero_deltas, zero);
      // The same weights in real 16-bit storage give the same encodings.
      std::vector<std::uint16_t> bits, out_bits(w.size());
      for (const float x : w) bits.push_back(static_cast<std::uint16_t>(num::from_float(f, x, {}).bits));
      const num::swamping_stats s16 = num::detect_swamping(bits, delta, options, out_bits);
      EXPECT_EQ(s16.total_swamped, total);
      for (std::size_t i = 0; i < w.size(); ++i) ASSERT_EQ(num::to_float(f, out_bits[i]), out[i]);
      // Judging the performed update gives the same statistics.
      const num::swamping_stats judged = num::measure_swamping(w, delta, out, f);
      EXPECT_EQ(judged.total_swamped, total);
      EXPECT_EQ(judged.partially_swamped, partial);
      EXPECT_EQ(judged.ratio_histogram, s.ratio_histogram);
    }
  }
}

TEST(Swamping, MergeAndBadSizes) {
  const std::vector<float> w(10, 1.0f), delta(10, 0x1p-12f);
  const auto options = options_for(num::binary16, num::rounding::nearest_even);
  num::swamping_stats merged;
  num::merge_into(merged, num::detect_swamping(std::span(w).first(4), std::span(delta).first(4), options));
  num::merge_into(merged, num::detect_swamping(std::span(w).subspan(4), std::span(delta).subspan(4), options));
  EXPECT_EQ(merged.total_swamped, 10u);
  EXPECT_EQ(merged.ratio_binade(-2), 10u);
  EXPECT_THROW(num::detect_swamping(w, std::span(delta).first(3), options), std::invalid_argument);
  num::swamping_stats other = num::detect_swamping(w, delta, options_for(num::bfloat16_format, num::rounding::nearest_even));
  EXPECT_THROW(num::merge_into(merged, other), std::invalid_argument);
}

}  // namespace
