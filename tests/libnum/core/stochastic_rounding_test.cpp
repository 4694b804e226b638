// Stochastic rounding against its definition (docs/NUMERICS.md): with f the exact
// discarded fraction in ulps and R the top r bits of the random word, round
// away from zero iff floor(f * 2^r) + R >= 2^r. Every expected value here is
// derived by hand from that rule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include <libnum/arithmetic.hpp>
#include <libnum/convert.hpp>
#include <libnum/small_float.hpp>

namespace {

using num::flags;

num::round_spec sr(int r) { return {num::rounding::stochastic, r}; }

// The word whose top r bits are R.
std::uint32_t word_for(std::uint32_t draw, int r) { return r == 32 ? draw : draw << (32 - r); }

// fp16: ulp(1) = 2^-10, so 1 + 2^-11 has f = 1/2 and rounds up iff R >= 2^(r-1).
TEST(StochasticRounding, PinnedWordsGivePinnedBits) {
  const double half_ulp_above_one = 1 + std::ldexp(1.0, -11);
  for (int r : {1, 2, 4, 16, 31, 32}) {
    const std::uint32_t threshold = std::uint32_t{1} << (r - 1);
    const num::rounded up = num::from_double(num::binary16, half_ulp_above_one, sr(r), word_for(threshold, r));
    const num::rounded down = num::from_double(num::binary16, half_ulp_above_one, sr(r), word_for(threshold - 1, r));
    EXPECT_EQ(up.bits, 0x3C01u) << "r=" << r;
    EXPECT_EQ(down.bits, 0x3C00u) << "r=" << r;
    EXPECT_EQ(up.raised, flags::inexact);
    // Away from zero for negative values too.
    EXPECT_EQ(num::from_double(num::binary16, -half_ulp_above_one, sr(r), word_for(threshold, r)).bits, 0xBC01u);
  }
  // The same exact value from an addition: 1 + 2^-11 (0x1000) in fp16.
  EXPECT_EQ(num::add(num::binary16, 0x3C00, 0x1000, sr(32), 0x80000000u).bits, 0x3C01u);
  EXPECT_EQ(num::add(num::binary16, 0x3C00, 0x1000, sr(32), 0x7FFFFFFFu).bits, 0x3C00u);
  // Exact values never move, whatever the word.
  EXPECT_EQ(num::from_double(num::binary16, 1.0, sr(32), 0xFFFFFFFFu).bits, 0x3C00u);
  EXPECT_EQ(num::from_double(num::binary16, 1.0, sr(32), 0xFFFFFFFFu).raised, flags::none);
}

// Counting over every R in [0, 2^r) gives the exact probability the rule implies.
int ups_over_all_draws(double x, int r) {
  int ups = 0;
  for (std::uint32_t draw = 0; draw < (std::uint32_t{1} << r); ++draw) {
    ups += num::from_double(num::binary16, x, sr(r), word_for(draw, r)).bits == 0x3C01u ? 1 : 0;
  }
  return ups;
}

TEST(StochasticRounding, FewRandomBitsShowExactlyTheirBias) {
  const double quarter = 1 + std::ldexp(1.0, -12);                           // f = 1/4
  const double three_eighths = 1 + 3 * std::ldexp(1.0, -13);                  // f = 3/8
  EXPECT_EQ(ups_over_all_draws(quarter, 1), 0);       // floor(1/2) = 0: never rounds up
  EXPECT_EQ(ups_over_all_draws(quarter, 2), 1);       // exactly 1 of 4
  EXPECT_EQ(ups_over_all_draws(quarter, 8), 64);      // exactly 1/4 for every r >= 2
  EXPECT_EQ(ups_over_all_draws(three_eighths, 1), 0);  // floor(3/4) = 0
  EXPECT_EQ(ups_over_all_draws(three_eighths, 2), 1);  // floor(3/2) = 1: 1/4, biased by -1/8
  EXPECT_EQ(ups_over_all_draws(three_eighths, 3), 3);  // exact from r = 3 on: 3/8
  EXPECT_EQ(ups_over_all_draws(three_eighths, 10), 384);
}

// With Philox words the frequency of rounding up matches f within 5 standard
// deviations of the binomial (a false alarm about once in 1.7 million runs).
void expect_frequency(double x, double f, std::uint64_t seed) {
  constexpr int n = 100000;
  const num::random_stream stream(seed, 3);
  int ups = 0;
  for (int i = 0; i < n; ++i) ups += num::from_double(num::binary16, x, sr(32), stream.word(i)).bits == 0x3C01u;
  const double sigma = std::sqrt(n * f * (1 - f));
  EXPECT_NEAR(ups, n * f, 5 * sigma) << "x=" << x << " f=" << f;
}

TEST(StochasticRounding, GeneratedWordsMatchTheFraction) {
  expect_frequency(1 + 307 * std::ldexp(1.0, -20), 307.0 / 1024, 1);   // f = 0.2998...
  expect_frequency(1 + std::ldexp(1.0, -11), 0.5, 2);
  expect_frequency(1 + 1000 * std::ldexp(1.0, -20), 1000.0 / 1024, 3);
  expect_frequency(1 + std::ldexp(1.0, -20), 1.0 / 1024, 4);
}

TEST(StochasticRounding, ValueTypeDrawsFromTheEnvironmentStream) {
  num::environment env;
  env.spec = sr(32);
  env.random = num::random_stream(42, 0);
  const num::float16 one(1.0), quarter_ulp(std::ldexp(1.0, -12));  // exact in fp16
  int ups = 0;
  {
    num::scoped_environment scope(env);
    for (int i = 0; i < 4000; ++i) ups += (one + quarter_ulp).bits() == 0x3C01u;
    EXPECT_EQ(num::current_environment().draws, 4000u);
  }
  // The same stream, addressed by position, decides the same way.
  int expected_ups = 0;
  for (std::uint64_t i = 0; i < 4000; ++i) expected_ups += num::random_stream(42, 0).word(i) >= 0xC0000000u;
  EXPECT_EQ(ups, expected_ups);
  EXPECT_NEAR(ups, 1000, 5 * std::sqrt(4000 * 0.25 * 0.75));
}

// Beyond max, max + ulp(max) is the overflow point: 65504 + 8 (f = 1/4 of
// ulp 32) overflows for exactly 1 draw of 4 with r = 2; 65536 and above always.
TEST(StochasticRounding, OverflowWithTheDefinedProbability) {
  int overflows = 0;
  for (std::uint32_t draw = 0; draw < 4; ++draw) {
    const num::rounded r = num::from_double(num::binary16, 65512.0, sr(2), word_for(draw, 2));
    if (r.bits == 0x7C00u) {
      ++overflows;
      EXPECT_EQ(r.raised, flags::overflow | flags::inexact);
    } else {
      EXPECT_EQ(r.bits, 0x7BFFu);
      EXPECT_EQ(r.raised, flags::inexact);
    }
  }
  EXPECT_EQ(overflows, 1);
  num::round_spec saturating = sr(32);
  saturating.overflow = num::overflow_mode::saturate;
  EXPECT_EQ(num::from_double(num::binary16, 65512.0, saturating, 0xFFFFFFFFu).bits, 0x7BFFu);
  EXPECT_EQ(num::from_double(num::binary16, 65512.0, saturating, 0xFFFFFFFFu).raised, flags::overflow | flags::inexact);
  EXPECT_EQ(num::from_double(num::binary16, 65536.0, sr(32), 0).bits, 0x7C00u);
  // E4M3 (no infinities): 448 + 8 is f = 1/4 of ulp 32 below the would-be 480.
  int nans = 0;
  for (std::uint32_t draw = 0; draw < 4; ++draw) {
    nans += num::from_double(num::fp8_e4m3, 456.0, sr(2), word_for(draw, 2)).bits == 0x7Fu;
  }
  EXPECT_EQ(nans, 1);
}

// Below the smallest subnormal the fraction is measured in subnormal ulps:
// 2^-26 is 1/4 of fp16's 2^-24.
TEST(StochasticRounding, SubnormalFractionAndUnderflow) {
  const double quarter_min = std::ldexp(1.0, -26);
  int ups = 0;
  for (std::uint32_t draw = 0; draw < 16; ++draw) {
    const num::rounded r = num::from_double(num::binary16, quarter_min, sr(4), word_for(draw, 4));
    ups += r.bits == 0x0001u;
    EXPECT_EQ(r.raised, flags::underflow | flags::inexact);
  }
  EXPECT_EQ(ups, 4);
}

}  // namespace
