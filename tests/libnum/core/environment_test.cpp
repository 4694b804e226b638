// The per-thread numeric environment: sticky flags, rounding attributes,
// scoped installation, and traps that report op, operands and result.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>

#include <libnum/small_float.hpp>

namespace {

using num::flags;
using num::float16;

TEST(Environment, FlagsAreStickyUntilCleared) {
  num::scoped_environment scope(num::environment{});
  num::environment& env = num::current_environment();
  EXPECT_EQ(env.sticky, flags::none);
  (void)(float16(1.0) + float16(2.0));  // exact
  EXPECT_EQ(env.sticky, flags::none);
  (void)(float16(1.0) / float16(3.0));  // 1/3 is inexact
  EXPECT_EQ(env.sticky, flags::inexact);
  (void)(float16(1.0) / float16(0.0));
  EXPECT_EQ(env.sticky, flags::inexact | flags::divide_by_zero);
  (void)(float16(60000.0) * float16(2.0));
  EXPECT_EQ(env.sticky, flags::inexact | flags::divide_by_zero | flags::overflow);
  (void)(float16(std::ldexp(1.0, -14)) * float16(0.3));  // tiny and inexact
  EXPECT_TRUE(any(env.sticky, flags::underflow));
  (void)sqrt(float16(-1.0));
  EXPECT_TRUE(any(env.sticky, flags::invalid));
  env.sticky = flags::none;
  (void)(float16(1.0) + float16(1.0));
  EXPECT_EQ(env.sticky, flags::none);
}

TEST(Environment, ScopedEnvironmentRestoresThePreviousOne) {
  num::environment outer;
  outer.spec.mode = num::rounding::toward_zero;
  num::scoped_environment a(outer);
  {
    num::environment inner;
    inner.spec.mode = num::rounding::toward_positive;
    num::scoped_environment b(inner);
    // 1 + 2^-11 is a tie: rounds up toward +inf.
    EXPECT_EQ((float16(1.0) + float16(std::ldexp(1.0, -11))).bits(), 0x3C01u);
  }
  EXPECT_EQ(num::current_environment().spec.mode, num::rounding::toward_zero);
  EXPECT_EQ((float16(1.0) + float16(std::ldexp(1.0, -11))).bits(), 0x3C00u);
}

TEST(Environment, EachThreadHasItsOwn) {
  num::environment env;
  env.spec.mode = num::rounding::toward_positive;
  num::scoped_environment scope(env);
  num::rounding seen = num::rounding::toward_zero;
  std::thread([&] { seen = num::current_environment().spec.mode; }).join();
  EXPECT_EQ(seen, num::rounding::nearest_even);
}

TEST(Environment, TinenessBeforeRoundingOnRequest) {
  // 2^-14 - 2^-26 rounds to 2^-14 (min normal); tiny before rounding only.
  const double x = std::ldexp(1.0, -14) - std::ldexp(1.0, -26);
  num::environment env;
  num::scoped_environment scope(env);
  EXPECT_EQ(float16(x).bits(), 0x0400u);
  EXPECT_EQ(num::current_environment().sticky, flags::inexact);
  num::current_environment().spec.tiny = num::tininess::before_rounding;
  num::current_environment().sticky = flags::none;
  EXPECT_EQ(float16(x).bits(), 0x0400u);
  EXPECT_EQ(num::current_environment().sticky, flags::inexact | flags::underflow);
}

TEST(Environment, OverflowTrapReportsOpOperandsAndResult) {
  num::environment env;
  env.traps = flags::overflow;
  num::scoped_environment scope(env);
  const float16 big(65504.0);
  (void)(big + float16(1.0));  // inexact but no overflow: not trapped
  try {
    (void)(big + float16(32.0));  // 65536 rounds to inf
    ADD_FAILURE() << "no trap";
  } catch (const num::floating_point_trap& trap) {
    const num::trap_report& r = trap.report();
    EXPECT_EQ(r.operation, "add");
    EXPECT_EQ(r.format, "fp16");
    ASSERT_EQ(r.operands.size(), 2u);
    EXPECT_EQ(r.operands[0], 65504.0);
    EXPECT_EQ(r.operands[1], 32.0);
    EXPECT_TRUE(std::isinf(r.result));
    EXPECT_EQ(r.result_bits, 0x7C00u);
    EXPECT_EQ(r.raised, flags::overflow | flags::inexact);
    const std::string what = trap.what();
    EXPECT_NE(what.find("overflow"), std::string::npos) << what;
    EXPECT_NE(what.find("add"), std::string::npos) << what;
    EXPECT_NE(what.find("65504"), std::string::npos) << what;
  }
  // The flags of the trapped operation are still recorded.
  EXPECT_TRUE(any(num::current_environment().sticky, flags::overflow));
}

TEST(Environment, DivideByZeroAndInvalidTraps) {
  num::environment env;
  env.traps = flags::divide_by_zero | flags::invalid;
  num::scoped_environment scope(env);
  EXPECT_THROW((void)(float16(1.0) / float16(0.0)), num::floating_point_trap);
  EXPECT_THROW((void)sqrt(float16(-4.0)), num::floating_point_trap);
  // < is a signalling predicate: a NaN operand raises invalid.
  const float16 nan = std::numeric_limits<float16>::quiet_NaN();
  EXPECT_THROW((void)(nan < float16(1.0)), num::floating_point_trap);
  // == is quiet: no trap for a quiet NaN.
  EXPECT_FALSE(nan == float16(1.0));
  try {
    (void)(float16(0.0) / float16(0.0));
    ADD_FAILURE() << "no trap";
  } catch (const num::floating_point_trap& trap) {
    EXPECT_EQ(trap.report().operation, "div");
    EXPECT_EQ(trap.report().raised, flags::invalid);
    EXPECT_EQ(trap.report().result_bits, 0x7E00u);
  }
}

}  // namespace
