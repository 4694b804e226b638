// NaN conventions (rounding.hpp, nan_convention): which NaN each operation
// and conversion returns, against bit patterns derived by hand from the
// cited manuals: first_operand (libnum's default), Intel SSE's negative
// "QNaN floating-point indefinite", Arm's default NaN and CUDA's canonical NaN.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <libnum/arithmetic.hpp>
#include <libnum/codec.hpp>
#include <libnum/convert.hpp>

namespace {

using num::nan_convention;

num::round_spec under(nan_convention c) {
  num::round_spec s;
  s.nans = c;
  return s;
}

// One NaN result under each convention, in all_nan_conventions order.
struct expected_nans {
  std::uint32_t first_operand, x86, arm, cuda;
  [[nodiscard]] std::uint32_t of(nan_convention c) const {
    switch (c) {
      case nan_convention::first_operand: return first_operand;
      case nan_convention::x86_sse: return x86;
      case nan_convention::arm_default_nan: return arm;
      case nan_convention::cuda_canonical: return cuda;
    }
    throw std::logic_error("convention");
  }
};

// fp16 operands: 0xFE05 is a negative quiet NaN with payload 5 (sign 1,
// exponent 11111, fraction 10 0000 0101); 0x7C03 a positive signalling NaN
// (quiet bit clear, payload 3); 0x3C00 is 1, 0x7C00 / 0xFC00 are +-inf,
// 0xBC00 is -1.
constexpr std::uint16_t qnan_negative = 0xFE05, snan_positive = 0x7C03, one = 0x3C00, inf = 0x7C00,
                        minus_inf = 0xFC00, minus_one = 0xBC00;

TEST(NanConvention, Fp16ArithmeticOnNanOperands) {
  const num::format& f = num::binary16;
  // A quiet NaN operand: kept as it is (first_operand, x86), else the one NaN.
  const expected_nans quiet{0xFE05, 0xFE05, 0x7E00, 0x7FFF};
  // A signalling NaN first: quieted (0x7C03 | 0x0200 = 0x7E03), invalid.
  const expected_nans signalling{0x7E03, 0x7E03, 0x7E00, 0x7FFF};
  for (const nan_convention c : num::all_nan_conventions) {
    const auto s = under(c);
    SCOPED_TRACE(std::string(num::nan_convention_name(c)));
    EXPECT_EQ(num::add(f, one, qnan_negative, s).bits, quiet.of(c));
    EXPECT_EQ(num::mul(f, qnan_negative, one, s).bits, quiet.of(c));
    EXPECT_EQ(num::sqrt(f, qnan_negative, s).bits, quiet.of(c));
    const auto both = num::add(f, snan_positive, qnan_negative, s);
    EXPECT_EQ(both.bits, signalling.of(c));
    EXPECT_EQ(both.raised, num::flags::invalid);
    EXPECT_EQ(num::fma(f, one, snan_positive, one, s).bits, signalling.of(c));
    EXPECT_EQ(num::round_to_integral(f, qnan_negative, s).bits, quiet.of(c));
    EXPECT_EQ(num::propagate_nan(f, one, qnan_negative, c).bits, quiet.of(c));
  }
}

TEST(NanConvention, Fp16InvalidOperationsCreateTheConventionsNan) {
  const num::format& f = num::binary16;
  // +qNaN 0x7E00; Intel's indefinite has the sign set: 0xFE00; CUDA 0x7FFF.
  const expected_nans created{0x7E00, 0xFE00, 0x7E00, 0x7FFF};
  for (const nan_convention c : num::all_nan_conventions) {
    const auto s = under(c);
    SCOPED_TRACE(std::string(num::nan_convention_name(c)));
    for (const num::rounded r : {num::add(f, inf, minus_inf, s), num::sub(f, inf, inf, s), num::mul(f, 0, inf, s),
                                 num::div(f, 0, 0, s), num::div(f, inf, minus_inf, s), num::sqrt(f, minus_one, s),
                                 num::fma(f, inf, 0, one, s)}) {
      EXPECT_EQ(r.bits, created.of(c));
      EXPECT_EQ(r.raised, num::flags::invalid);
    }
  }
}

TEST(NanConvention, Binary32InvalidOperation) {
  const num::format& f = num::binary32;
  // 0x7F800000 = +inf, 0xFF800000 = -inf; x86's indefinite 0xFFC00000 (SDM
  // vol. 1 Table 4-3), Arm's default NaN 0x7FC00000, CUDA's 0x7FFFFFFF.
  const expected_nans created{0x7FC00000, 0xFFC00000, 0x7FC00000, 0x7FFFFFFF};
  for (const nan_convention c : num::all_nan_conventions)
    EXPECT_EQ(num::add(f, 0x7F800000, 0xFF800000, under(c)).bits, created.of(c)) << num::nan_convention_name(c);
}

TEST(NanConvention, ConversionsOfANan) {
  // fp32 0xFFE02000: sign 1, fraction 0x602000. Into fp16 the top 10
  // fraction bits 0x602000 >> 13 = 0x301 are kept: 0x8000 | 0x7C00 | 0x301.
  const float x = std::bit_cast<float>(std::uint32_t{0xFFE02000});
  const expected_nans fp16{0xFF01, 0xFF01, 0x7E00, 0x7FFF};
  // Into E5M2 (2 fraction bits): 0x602000 >> 21 = 3, so 0x80 | 0x7C | 3.
  const expected_nans e5m2{0xFF, 0xFF, 0x7E, 0x7F};
  // E4M3 has one NaN per sign, S.1111.111: CUDA and Arm drop the sign.
  const expected_nans e4m3{0xFF, 0xFF, 0x7F, 0x7F};
  // bf16: the top 7 fraction bits 0x602000 >> 16 = 0x60: 0x8000 | 0x7F80 | 0x60.
  const expected_nans bf16{0xFFE0, 0xFFE0, 0x7FC0, 0x7FFF};
  for (const nan_convention c : num::all_nan_conventions) {
    const auto s = under(c);
    SCOPED_TRACE(std::string(num::nan_convention_name(c)));
    EXPECT_EQ(num::from_float(num::binary16, x, s).bits, fp16.of(c));
    EXPECT_EQ(num::from_double(num::binary16, static_cast<double>(x), s).bits, fp16.of(c));
    EXPECT_EQ(num::from_float(num::fp8_e5m2, x, s).bits, e5m2.of(c));
    EXPECT_EQ(num::from_float(num::fp8_e4m3, x, s).bits, e4m3.of(c));
    EXPECT_EQ(num::from_float(num::bfloat16_format, x, s).bits, bf16.of(c));
    EXPECT_EQ(num::convert(num::binary16, 0xFF01, num::fp8_e5m2, s).bits, e5m2.of(c));
  }
}

TEST(NanConvention, OverflowIntoAFormatWithoutInfinities) {
  // E4M3 has no inf: without saturation an overflow gives NaN, S.1111.111.
  // An H100 keeps the sign there (__nv_cvt_float_to_fp8(-1000, __NV_NOSAT,
  // __NV_E4M3) is 0xFF, tests/device) while a NaN input gives 0x7F; Arm's
  // default NaN is positive. 1000 > 480, the rounding boundary above 448.
  const expected_nans negative{0xFF, 0xFF, 0x7F, 0xFF};
  const expected_nans positive{0x7F, 0x7F, 0x7F, 0x7F};
  for (const nan_convention c : num::all_nan_conventions) {
    const auto s = under(c);
    SCOPED_TRACE(std::string(num::nan_convention_name(c)));
    const auto r = num::from_float(num::fp8_e4m3, -1000.0f, s);
    EXPECT_EQ(r.bits, negative.of(c));
    EXPECT_EQ(r.raised, num::flags::overflow | num::flags::inexact);
    EXPECT_EQ(num::from_float(num::fp8_e4m3, 1000.0f, s).bits, positive.of(c));
    // fp16 -1024 (0xE400) into E4M3, and the E4M3 product -448 * 2.
    EXPECT_EQ(num::convert(num::binary16, 0xE400, num::fp8_e4m3, s).bits, negative.of(c));
    EXPECT_EQ(num::mul(num::fp8_e4m3, 0xFE, 0x40, s).bits, negative.of(c));
    // An infinity, which E4M3 cannot hold, likewise (the H100 gives 0xFF
    // for -inf); libnum raises invalid there (docs/NUMERICS.md).
    const auto inf = num::from_float(num::fp8_e4m3, -std::numeric_limits<float>::infinity(), s);
    EXPECT_EQ(inf.bits, negative.of(c));
    EXPECT_EQ(inf.raised, num::flags::invalid);
    EXPECT_EQ(num::convert(num::binary16, minus_inf, num::fp8_e4m3, s).bits, negative.of(c));
    EXPECT_EQ(num::from_double(num::fp8_e4m3, -std::numeric_limits<double>::infinity(), s).bits, negative.of(c));
  }
}

TEST(NanConvention, NumbersAndFlagsDoNotDependOnIt) {
  const num::format& f = num::binary16;
  for (const nan_convention c : num::all_nan_conventions) {
    const auto s = under(c);
    // 1 + 2^-11 is the midpoint between 1 and 1 + 2^-10: ties to even, inexact.
    const auto sum = num::add(f, one, 0x1000, s);
    EXPECT_EQ(sum.bits, one);
    EXPECT_EQ(sum.raised, num::flags::inexact);
    EXPECT_EQ(num::div(f, one, 0, s).bits, inf);
    EXPECT_EQ(num::from_float(f, 1e6f, s).bits, inf);
  }
}

TEST(NanConvention, Names) {
  for (const nan_convention c : num::all_nan_conventions)
    EXPECT_EQ(num::parse_nan_convention(num::nan_convention_name(c)), c);
  EXPECT_THROW((void)num::parse_nan_convention("riscv"), std::invalid_argument);
}

}  // namespace
