// The oracle harness itself against values derived by hand, so that an
// agreement between libnum and the oracle means something.
#include <gtest/gtest.h>

#include <cmath>

#include "operation_oracle.hpp"

namespace {

using num::flags;
using num::rounding;

num::rounded round_double(const num::format& f, double x, rounding mode, num::round_spec spec = {},
                          std::uint32_t word = 0, int r = 32) {
  spec.mode = mode;
  return oracle::from_value(f, x, {mode, r, word}).under(f, spec);
}

void expect_rounded(num::rounded got, std::uint32_t bits, flags raised) {
  EXPECT_EQ(got.bits, bits);
  EXPECT_EQ(got.raised, raised) << num::flags_to_string(got.raised);
}

TEST(OracleSelfTest, TieBetweenOneAndItsSuccessorInEveryMode) {
  const double tie = 1 + std::ldexp(1.0, -11);  // halfway between 0x3c00 and 0x3c01
  expect_rounded(round_double(num::binary16, tie, rounding::nearest_even), 0x3C00, flags::inexact);
  expect_rounded(round_double(num::binary16, tie, rounding::nearest_away), 0x3C01, flags::inexact);
  expect_rounded(round_double(num::binary16, tie, rounding::toward_zero), 0x3C00, flags::inexact);
  expect_rounded(round_double(num::binary16, tie, rounding::toward_positive), 0x3C01, flags::inexact);
  expect_rounded(round_double(num::binary16, -tie, rounding::toward_positive), 0xBC00, flags::inexact);
  expect_rounded(round_double(num::binary16, -tie, rounding::toward_negative), 0xBC01, flags::inexact);
  expect_rounded(round_double(num::binary16, tie, rounding::to_odd), 0x3C01, flags::inexact);
  expect_rounded(round_double(num::binary16, 1.0, rounding::to_odd), 0x3C00, flags::none);
  // Odd already: 1 + 2^-10 + 2^-12 keeps 0x3c01 under round-to-odd.
  expect_rounded(round_double(num::binary16, 1 + std::ldexp(1.0, -10) + std::ldexp(1.0, -12), rounding::to_odd),
                 0x3C01, flags::inexact);
}

TEST(OracleSelfTest, StochasticDrawAgainstTheFraction) {
  const double x = 1 + std::ldexp(1.0, -12);  // f = 1/4 ulp: floor(f * 2^r) = 2^(r-2)
  expect_rounded(round_double(num::binary16, x, rounding::stochastic, {}, 0xC0000000u), 0x3C01, flags::inexact);
  expect_rounded(round_double(num::binary16, x, rounding::stochastic, {}, 0xBFFFFFFFu), 0x3C00, flags::inexact);
  // r = 1: floor(1/4 * 2) = 0, and R <= 1 never reaches 2.
  expect_rounded(round_double(num::binary16, x, rounding::stochastic, {}, 0xFFFFFFFFu, 1), 0x3C00, flags::inexact);
}

TEST(OracleSelfTest, SubnormalsUnderflowAndTininess) {
  const double min_sub = std::ldexp(1.0, -24);
  expect_rounded(round_double(num::binary16, min_sub / 2, rounding::nearest_even), 0x0000,
                 flags::underflow | flags::inexact);
  expect_rounded(round_double(num::binary16, min_sub / 2, rounding::nearest_away), 0x0001,
                 flags::underflow | flags::inexact);
  expect_rounded(round_double(num::binary16, 3 * min_sub, rounding::nearest_even), 0x0003, flags::none);
  // 2^-14 - 2^-26: rounds to 2^-14 on the subnormal grid; rounded to 11 bits with
  // unbounded exponent it is a tie resolved to 2^-14, so it is tiny only before rounding.
  const double x = std::ldexp(1.0, -14) - std::ldexp(1.0, -26);
  expect_rounded(round_double(num::binary16, x, rounding::nearest_even), 0x0400, flags::inexact);
  num::round_spec before;
  before.tiny = num::tininess::before_rounding;
  expect_rounded(round_double(num::binary16, x, rounding::nearest_even, before), 0x0400,
                 flags::underflow | flags::inexact);
  // Without subnormals (p = 5, emin = -6) the grid below 2^-6 is {0}.
  const num::format flush{5, -6, 7, false, true};
  expect_rounded(round_double(flush, std::ldexp(0.75, -6), rounding::nearest_even), 0x010,
                 flags::underflow | flags::inexact);
  expect_rounded(round_double(flush, std::ldexp(0.5, -6), rounding::nearest_even), 0x000,
                 flags::underflow | flags::inexact);
}

TEST(OracleSelfTest, OverflowInEveryBehaviour) {
  expect_rounded(round_double(num::binary16, 65519.0, rounding::nearest_even), 0x7BFF, flags::inexact);
  expect_rounded(round_double(num::binary16, 65520.0, rounding::nearest_even), 0x7C00,
                 flags::overflow | flags::inexact);
  expect_rounded(round_double(num::binary16, 1e6, rounding::toward_zero), 0x7BFF, flags::overflow | flags::inexact);
  expect_rounded(round_double(num::binary16, -1e6, rounding::toward_positive), 0xFBFF,
                 flags::overflow | flags::inexact);
  num::round_spec saturate, nan;
  saturate.overflow = num::overflow_mode::saturate;
  nan.overflow = num::overflow_mode::nan;
  expect_rounded(round_double(num::binary16, -1e6, rounding::nearest_even, saturate), 0xFBFF,
                 flags::overflow | flags::inexact);
  expect_rounded(round_double(num::binary16, -1e6, rounding::nearest_even, nan), 0xFE00,
                 flags::overflow | flags::inexact);
  // E4M3: 464 is the tie between 448 (even) and the would-be 480; above it overflows to NaN.
  expect_rounded(round_double(num::fp8_e4m3, 464.0, rounding::nearest_even), 0x7E, flags::inexact);
  expect_rounded(round_double(num::fp8_e4m3, 465.0, rounding::nearest_even), 0x7F, flags::overflow | flags::inexact);
  expect_rounded(round_double(num::fp8_e4m3, 449.0, rounding::to_odd), 0x7E, flags::overflow | flags::inexact);
}

TEST(OracleSelfTest, SpecialOperandsAndNaNConventions) {
  const auto run = [](oracle::operation op, oracle::operands3 x, rounding mode = rounding::nearest_even) {
    return oracle::arithmetic(num::binary16, op, x, {mode}).under(num::binary16, {mode});
  };
  expect_rounded(run(oracle::operation::add, {0x7C00, 0xFC00, 0}), 0x7E00, flags::invalid);
  expect_rounded(run(oracle::operation::div, {0xBC00, 0x0000, 0}), 0xFC00, flags::divide_by_zero);
  expect_rounded(run(oracle::operation::add, {0x3C00, 0xBC00, 0}), 0x0000, flags::none);
  expect_rounded(run(oracle::operation::add, {0x3C00, 0xBC00, 0}, rounding::toward_negative), 0x8000, flags::none);
  expect_rounded(run(oracle::operation::sqrt, {0x8000, 0, 0}), 0x8000, flags::none);
  expect_rounded(run(oracle::operation::mul, {0x7D23, 0xFE01, 0}), 0x7F23, flags::invalid);  // first NaN, quieted
  expect_rounded(run(oracle::operation::fma, {0x7C00, 0x0000, 0x7E05}), 0x7E05, flags::invalid);
  EXPECT_EQ(oracle::quiet_nan_from(num::binary16, 0xFD23, num::bfloat16_format), 0xFFE4u);
}

TEST(OracleSelfTest, ReferenceCodecOnHandDerivedPatterns) {
  EXPECT_EQ(oracle::decode(num::binary16, 0x3C00).magnitude, 1.0);
  EXPECT_EQ(oracle::decode(num::binary16, 0x7BFF).magnitude, 65504.0);
  EXPECT_EQ(oracle::decode(num::binary16, 0x0001).magnitude, std::ldexp(1.0, -24));
  EXPECT_EQ(oracle::decode(num::bfloat16_format, 0x3F80).magnitude, 1.0);
  EXPECT_EQ(oracle::decode(num::fp8_e4m3, 0x7E).magnitude, 448.0);
  EXPECT_EQ(oracle::decode(num::fp8_e4m3, 0x7F).what, oracle::kind::quiet_nan);
  EXPECT_EQ(oracle::decode(num::fp8_e5m2, 0x7B).magnitude, 57344.0);
  EXPECT_EQ(oracle::encode(num::tf32, false, 1.0), 0x1FC00u);
}

}  // namespace
