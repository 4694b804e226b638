// The oracle against hand-derived results: ties, overflow by direction,
// the two tininess rules, and the special operands.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "certify/oracle.hpp"

namespace {

using certify::direction;
using certify::format16;
using certify::operation;
namespace flag = certify::flag;

struct one_result {
  std::uint16_t bits;
  std::uint8_t flags;
};

one_result oracle(format16 f, operation op, direction d, std::uint16_t a, std::uint16_t b, std::uint16_t c = 0) {
  std::vector<std::uint16_t> bits(certify::row_length);
  std::vector<std::uint8_t> flags(certify::row_length);
  certify::oracle_row(f, op, d, {a, c}, bits, flags);
  return {bits[b], flags[b]};
}

class OracleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!certify::oracle_supported()) GTEST_SKIP() << "no AVX-512 F on this CPU";
  }
};

// 1 + 2^-11 is the midpoint between fp16's 1 (0x3C00) and 1 + 2^-10 (0x3C01).
TEST_F(OracleTest, Fp16TieOneAndHalfUlpInEveryDirection) {
  const std::uint16_t one = 0x3C00, half_ulp = 0x1000;  // 2^-11
  const struct {
    direction d;
    std::uint16_t expected;
  } cases[] = {{direction::nearest_even, 0x3C00}, {direction::nearest_away, 0x3C01},
               {direction::toward_zero, 0x3C00},  {direction::toward_positive, 0x3C01},
               {direction::toward_negative, 0x3C00}, {direction::to_odd, 0x3C01}};
  for (const auto& c : cases) {
    const one_result r = oracle(format16::fp16, operation::add, c.d, one, half_ulp);
    EXPECT_EQ(r.bits, c.expected) << certify::name(c.d);
    EXPECT_EQ(r.flags, flag::inexact) << certify::name(c.d);
  }
  // -1 - 2^-11 rounds the other way in the directed modes.
  EXPECT_EQ(oracle(format16::fp16, operation::sub, direction::toward_positive, 0xBC00, half_ulp).bits, 0xBC00);
  EXPECT_EQ(oracle(format16::fp16, operation::sub, direction::toward_negative, 0xBC00, half_ulp).bits, 0xBC01);
}

TEST_F(OracleTest, Fp16OverflowByDirection) {
  const std::uint16_t max = 0x7BFF;  // 65504; 65504 + 65504 overflows
  const std::uint8_t overflow = flag::overflow | flag::inexact;
  EXPECT_EQ(oracle(format16::fp16, operation::add, direction::nearest_even, max, max).bits, 0x7C00);
  EXPECT_EQ(oracle(format16::fp16, operation::add, direction::nearest_even, max, max).flags, overflow);
  EXPECT_EQ(oracle(format16::fp16, operation::add, direction::toward_zero, max, max).bits, max);
  EXPECT_EQ(oracle(format16::fp16, operation::add, direction::to_odd, max, max).bits, max);
  EXPECT_EQ(oracle(format16::fp16, operation::add, direction::toward_negative, max, max).bits, max);
  EXPECT_EQ(oracle(format16::fp16, operation::add, direction::toward_negative, 0xFBFF, 0xFBFF).bits, 0xFC00);
  // 65504 + 8 is below the overflow threshold 65520: rounds back to 65504.
  EXPECT_EQ(oracle(format16::fp16, operation::add, direction::nearest_even, max, 0x4800).bits, max);
  EXPECT_EQ(oracle(format16::fp16, operation::add, direction::nearest_even, max, 0x4800).flags, flag::inexact);
}

// (1 - 2^-10) * 2^-14 (1 + 2^-10) = 2^-14 (1 - 2^-20): tiny before rounding;
// to 11 bits with an unbounded exponent it rounds to nearest 2^-14 (not tiny
// after rounding) but toward zero to 2^-14 (1 - 2^-11) (tiny).
TEST_F(OracleTest, Fp16TininessBeforeAndAfterRounding) {
  const std::uint16_t a = 0x3BFE, b = 0x0401;
  const one_result nearest = oracle(format16::fp16, operation::mul, direction::nearest_even, a, b);
  EXPECT_EQ(nearest.bits, 0x0400);
  EXPECT_EQ(nearest.flags, flag::inexact | flag::underflow_before);
  const one_result truncated = oracle(format16::fp16, operation::mul, direction::toward_zero, a, b);
  EXPECT_EQ(truncated.bits, 0x03FF);
  EXPECT_EQ(truncated.flags, flag::inexact | flag::underflow | flag::underflow_before);
}

// bf16's smallest subnormal is 2^-133; 2^-133 * 2^-133 = 2^-266 lies far below
// binary32's range, where the binary32 intermediate is 2^-149 rounded to odd.
TEST_F(OracleTest, Bf16ProductBelowBinary32Range) {
  const std::uint16_t tiny = 0x0001;
  const std::uint8_t underflow = flag::inexact | flag::underflow | flag::underflow_before;
  EXPECT_EQ(oracle(format16::bf16, operation::mul, direction::nearest_even, tiny, tiny).bits, 0x0000);
  EXPECT_EQ(oracle(format16::bf16, operation::mul, direction::nearest_even, tiny, tiny).flags, underflow);
  EXPECT_EQ(oracle(format16::bf16, operation::mul, direction::toward_positive, tiny, tiny).bits, 0x0001);
  EXPECT_EQ(oracle(format16::bf16, operation::mul, direction::to_odd, 0x8001, tiny).bits, 0x8001);
  EXPECT_EQ(oracle(format16::bf16, operation::mul, direction::toward_positive, 0x8001, tiny).bits, 0x8000);
  // And max * max = 2^256 (1 - 2^-8)^2, far above binary32's range.
  EXPECT_EQ(oracle(format16::bf16, operation::mul, direction::toward_zero, 0x7F7F, 0x7F7F).bits, 0x7F7F);
  EXPECT_EQ(oracle(format16::bf16, operation::mul, direction::nearest_even, 0x7F7F, 0xFF7F).bits, 0xFF80);
}

TEST_F(OracleTest, SpecialOperands) {
  const auto f = format16::fp16;
  const auto ne = direction::nearest_even;
  // x - x is +0, except toward negative.
  EXPECT_EQ(oracle(f, operation::sub, ne, 0x3C00, 0x3C00).bits, 0x0000);
  EXPECT_EQ(oracle(f, operation::sub, direction::toward_negative, 0x3C00, 0x3C00).bits, 0x8000);
  EXPECT_EQ(oracle(f, operation::add, ne, 0x8000, 0x8000).bits, 0x8000);
  // inf - inf, 0 * inf, 0 / 0, sqrt(-1): invalid, the positive quiet NaN.
  EXPECT_EQ(oracle(f, operation::sub, ne, 0x7C00, 0x7C00).bits, 0x7E00);
  EXPECT_EQ(oracle(f, operation::sub, ne, 0x7C00, 0x7C00).flags, flag::invalid);
  EXPECT_EQ(oracle(f, operation::mul, ne, 0x0000, 0xFC00).flags, flag::invalid);
  EXPECT_EQ(oracle(f, operation::div, ne, 0x8000, 0x0000).flags, flag::invalid);
  EXPECT_EQ(oracle(f, operation::sqrt, ne, 0, 0xBC00).bits, 0x7E00);
  EXPECT_EQ(oracle(f, operation::sqrt, ne, 0, 0x8000).bits, 0x8000);
  // -1 / 0 is -inf with divide-by-zero; inf / 0 is inf without.
  EXPECT_EQ(oracle(f, operation::div, ne, 0xBC00, 0x0000).bits, 0xFC00);
  EXPECT_EQ(oracle(f, operation::div, ne, 0xBC00, 0x0000).flags, flag::divide_by_zero);
  EXPECT_EQ(oracle(f, operation::div, ne, 0x7C00, 0x0000).flags, 0);
  // NaN operands: the first NaN, made quiet; invalid only for a signalling one.
  EXPECT_EQ(oracle(f, operation::add, ne, 0xFD01, 0x7E02).bits, 0xFF01);
  EXPECT_EQ(oracle(f, operation::add, ne, 0xFD01, 0x7E02).flags, flag::invalid);
  EXPECT_EQ(oracle(f, operation::mul, ne, 0x3C00, 0x7E02).bits, 0x7E02);
  EXPECT_EQ(oracle(f, operation::mul, ne, 0x3C00, 0x7E02).flags, 0);
}

TEST_F(OracleTest, Sqrt) {
  EXPECT_EQ(oracle(format16::fp16, operation::sqrt, direction::nearest_even, 0, 0x4400).bits, 0x4000);  // sqrt 4
  const one_result two = oracle(format16::fp16, operation::sqrt, direction::toward_zero, 0, 0x4000);
  EXPECT_EQ(two.bits, 0x3DA8);  // sqrt 2 = 1.0110101000001..b: truncated to 10 fraction bits
  EXPECT_EQ(two.flags, flag::inexact);
}

// (1 + 2^-10)(1 - 2^-10) - 1 = -2^-20 exactly, fused (a separate product
// would round to 1 and give 0); 2^-20 is an fp16 subnormal, so it is exact.
TEST_F(OracleTest, FmaRoundsOnce) {
  const one_result r = oracle(format16::fp16, operation::fma, direction::nearest_even, 0x3C01, 0x3BFE, 0xBC00);
  EXPECT_EQ(r.bits, 0x8010);  // -2^-20 = -16 * 2^-24
  EXPECT_EQ(r.flags, 0);
  // inf * 0 + c is invalid, even for a quiet NaN c, whose payload it keeps.
  EXPECT_EQ(oracle(format16::fp16, operation::fma, direction::nearest_even, 0x7C00, 0x0000, 0x7E05).bits, 0x7E05);
  EXPECT_EQ(oracle(format16::fp16, operation::fma, direction::nearest_even, 0x7C00, 0x0000, 0x7E05).flags,
            flag::invalid);
  // inf * 1 - inf is invalid too; 1 * 1 - 1 is +0 (-0 toward negative).
  EXPECT_EQ(oracle(format16::bf16, operation::fma, direction::nearest_even, 0x7F80, 0x3F80, 0xFF80).bits, 0x7FC0);
  EXPECT_EQ(oracle(format16::bf16, operation::fma, direction::toward_negative, 0x3F80, 0x3F80, 0xBF80).bits, 0x8000);
}

TEST(OracleSpans, WrongSizeIsRejected) {
  std::vector<std::uint16_t> bits(10);
  std::vector<std::uint8_t> flags(10);
  EXPECT_THROW(certify::oracle_row(format16::fp16, operation::add, direction::nearest_even, {}, bits, flags),
               std::invalid_argument);
}

}  // namespace
