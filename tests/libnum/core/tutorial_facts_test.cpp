// The facts the tutorial teaches, as regression tests. Each expected value is
// derived by hand in the comment above it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <libnum/small_float.hpp>

namespace {

using num::bfloat16;
using num::float16;
using num::float8_e4m3;

// fp16(0.0004) = 1678 * 2^-22; + 0.25 (ulp 2^-12) is 0.25 + 1.64 ulp -> 0.25 + 2 ulp;
// minus 0.25 leaves 2 * 2^-12 = 0.00048828125.
TEST(TutorialFacts, SmallAddendSurvivesAsTwoUlps) {
  num::scoped_environment scope(num::environment{});
  const float16 r = float16(0.0004) + float16(0.25) - float16(0.25);
  EXPECT_EQ(static_cast<double>(r), 0.00048828125);
}

// fp16(0.0001) = 1678 * 2^-24 is 0.41 ulp of 0.25: the sum rounds back to 0.25.
TEST(TutorialFacts, SmallerAddendIsSwamped) {
  num::scoped_environment scope(num::environment{});
  const float16 r = float16(0.0001) + float16(0.25) - float16(0.25);
  EXPECT_EQ(static_cast<double>(r), 0.0);
}

// Each step adds 0.0001 while it exceeds half an ulp of the sum; at 0.25 the
// ulp is 2^-12 and half of it (1.22e-4) is more than 0.0001, so the sum stalls.
TEST(TutorialFacts, AccumulationStallsAtAQuarter) {
  num::scoped_environment scope(num::environment{});
  float16 sum(0.0);
  const float16 step(0.0001);
  for (int i = 0; i < 10000; ++i) sum += step;
  EXPECT_EQ(static_cast<double>(sum), 0.25);
}

TEST(TutorialFacts, Fp16Range) {
  EXPECT_EQ(static_cast<double>(std::numeric_limits<float16>::max()), 65504.0);
  EXPECT_EQ(static_cast<double>(std::numeric_limits<float16>::min()), std::ldexp(1.0, -14));
  EXPECT_EQ(static_cast<double>(std::numeric_limits<float16>::denorm_min()), std::ldexp(1.0, -24));
  EXPECT_EQ(num::binary16.max(), 65504.0);
  EXPECT_EQ(num::binary16.min_normal(), std::ldexp(1.0, -14));
  EXPECT_EQ(num::binary16.min_subnormal(), std::ldexp(1.0, -24));
}

// 1e-8 is below half of fp16's smallest subnormal (2.98e-8): it becomes 0 with
// underflow. In bf16 it is normal: 1e-8 = 1.3422 * 2^-27, fraction 43.8/128 -> 44,
// bits 0 | 100 << 7 | 44 = 0x322c.
TEST(TutorialFacts, OneEMinusEightVanishesInFp16NotInBf16) {
  num::scoped_environment scope(num::environment{});
  EXPECT_EQ(float16(1e-8).bits(), 0x0000u);
  EXPECT_TRUE(any(num::current_environment().sticky, num::flags::underflow));
  EXPECT_EQ(bfloat16(1e-8).bits(), 0x322Cu);
  EXPECT_EQ(static_cast<double>(bfloat16(1e-8)), 1.34375 * std::ldexp(1.0, -27));
}

// E4M3: max 1.75 * 2^8 = 448, no infinities; past max IEEE overflow gives NaN,
// saturation gives 448.
TEST(TutorialFacts, E4m3MaxAndNoInfinities) {
  EXPECT_FALSE(std::numeric_limits<float8_e4m3>::has_infinity);
  EXPECT_EQ(static_cast<double>(std::numeric_limits<float8_e4m3>::max()), 448.0);
  num::environment env;
  num::scoped_environment scope(env);
  EXPECT_TRUE(isnan(float8_e4m3(1000.0)));
  num::current_environment().spec.overflow = num::overflow_mode::saturate;
  EXPECT_EQ(static_cast<double>(float8_e4m3(1000.0)), 448.0);
  EXPECT_EQ(static_cast<double>(float8_e4m3(-1e30)), -448.0);
}

}  // namespace
