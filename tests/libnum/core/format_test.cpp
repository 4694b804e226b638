// Parameters and encodings of every built-in format, derived by hand from the
// format definitions (IEEE 754, the bfloat16 and TF32 layouts, OCP FP8), and
// parse_format's names and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include <libnum/codec.hpp>
#include <libnum/format.hpp>

namespace {

struct expected_format {
  const char* name;
  num::format f;
  int exponent_bits, bias, total_bits;
  double max, min_normal, min_subnormal, epsilon;
  std::uint32_t max_bits, min_normal_bits, one_bits, infinity_bits, nan_bits;
};

// Values: max = (2 - 2^(1-p)) * 2^emax (E4M3: 1.75 * 2^8); bits = sign | biased exponent | fraction.
const expected_format built_in[] = {
    {"fp16", num::binary16, 5, 15, 16, 65504.0, std::ldexp(1.0, -14), std::ldexp(1.0, -24), std::ldexp(1.0, -10),
     0x7BFF, 0x0400, 0x3C00, 0x7C00, 0x7E00},
    {"bf16", num::bfloat16_format, 8, 127, 16, (2 - std::ldexp(1.0, -7)) * std::ldexp(1.0, 127),
     std::ldexp(1.0, -126), std::ldexp(1.0, -133), std::ldexp(1.0, -7), 0x7F7F, 0x0080, 0x3F80, 0x7F80, 0x7FC0},
    {"e5m2", num::fp8_e5m2, 5, 15, 8, 57344.0, std::ldexp(1.0, -14), std::ldexp(1.0, -16), 0.25, 0x7B, 0x04, 0x3C,
     0x7C, 0x7E},
    // No infinities: infinity_bits gives the NaN S.1111.111.
    {"e4m3", num::fp8_e4m3, 4, 7, 8, 448.0, std::ldexp(1.0, -6), std::ldexp(1.0, -9), 0.125, 0x7E, 0x08, 0x38, 0x7F,
     0x7F},
    {"tf32", num::tf32, 8, 127, 19, (2 - std::ldexp(1.0, -10)) * std::ldexp(1.0, 127), std::ldexp(1.0, -126),
     std::ldexp(1.0, -136), std::ldexp(1.0, -10), 0x3FBFF, 0x00400, 0x1FC00, 0x3FC00, 0x3FE00},
    {"fp32", num::binary32, 8, 127, 32, 3.4028234663852886e38, std::ldexp(1.0, -126), std::ldexp(1.0, -149),
     std::ldexp(1.0, -23), 0x7F7FFFFF, 0x00800000, 0x3F800000, 0x7F800000, 0x7FC00000},
};

TEST(Formats, ParametersOfEveryBuiltInFormat) {
  for (const expected_format& e : built_in) {
    SCOPED_TRACE(e.name);
    const num::format& f = e.f;
    EXPECT_EQ(num::format_name(f), e.name);
    EXPECT_EQ(f.exponent_bits(), e.exponent_bits);
    EXPECT_EQ(f.bias(), e.bias);
    EXPECT_EQ(f.total_bits(), e.total_bits);
    EXPECT_EQ(f.max(), e.max);
    EXPECT_EQ(f.min_normal(), e.min_normal);
    EXPECT_EQ(f.min_subnormal(), e.min_subnormal);
    EXPECT_EQ(f.epsilon(), e.epsilon);
    EXPECT_FALSE(f.problem().has_value());
  }
}

TEST(Formats, EncodingsOfEveryBuiltInFormat) {
  for (const expected_format& e : built_in) {
    SCOPED_TRACE(e.name);
    const num::format& f = e.f;
    const std::uint32_t sign = std::uint32_t{1} << (e.total_bits - 1);
    EXPECT_EQ(num::max_finite_bits(f, false), e.max_bits);
    EXPECT_EQ(num::max_finite_bits(f, true), e.max_bits | sign);
    EXPECT_EQ(num::infinity_bits(f, false), e.infinity_bits);
    EXPECT_EQ(num::default_nan_bits(f), e.nan_bits);
    EXPECT_EQ(num::zero_bits(f, true), sign);
    EXPECT_EQ(num::to_double(f, e.max_bits), e.max);
    EXPECT_EQ(num::to_double(f, e.max_bits | sign), -e.max);
    EXPECT_EQ(num::to_double(f, e.min_normal_bits), e.min_normal);
    EXPECT_EQ(num::to_double(f, 1), e.min_subnormal);
    EXPECT_EQ(num::to_double(f, e.one_bits), 1.0);
    EXPECT_EQ(num::classify(f, 1), num::value_class::subnormal);
    EXPECT_EQ(num::classify(f, e.min_normal_bits), num::value_class::normal);
    EXPECT_EQ(num::classify(f, sign), num::value_class::zero);
    EXPECT_EQ(num::classify(f, e.nan_bits), num::value_class::quiet_nan);
    EXPECT_EQ(num::classify(f, e.infinity_bits),
              f.infinities ? num::value_class::infinite : num::value_class::quiet_nan);
    if (f.infinities) {
      EXPECT_EQ(num::classify(f, e.infinity_bits | 1), num::value_class::signaling_nan);
    }
  }
  // E4M3's all-ones exponent still holds normals: 0x78 = 2^8 = 256, 0x7D = 1.625 * 2^8.
  EXPECT_EQ(num::to_double(num::fp8_e4m3, 0x78), 256.0);
  EXPECT_EQ(num::to_double(num::fp8_e4m3, 0x7D), 416.0);
  EXPECT_EQ(num::classify(num::fp8_e4m3, 0xFF), num::value_class::quiet_nan);
}

TEST(Formats, UlpAtHandPickedValues) {
  EXPECT_EQ(num::ulp(num::binary16, 1.0), std::ldexp(1.0, -10));
  EXPECT_EQ(num::ulp(num::binary16, 65504.0), 32.0);
  EXPECT_EQ(num::ulp(num::binary16, -1e-6), std::ldexp(1.0, -24));  // subnormal range
  EXPECT_EQ(num::ulp(num::binary16, 0.0), std::ldexp(1.0, -24));
  EXPECT_EQ(num::ulp(num::bfloat16_format, 1.0), std::ldexp(1.0, -7));
  EXPECT_EQ(num::ulp(num::fp8_e4m3, 448.0), 32.0);
}

TEST(Formats, CustomFormatsFromParameters) {
  const num::format f = num::make_format(5, -6, 7, false, true);
  EXPECT_EQ(f.total_bits(), 9);  // 1 + 4 + 4
  EXPECT_EQ(f.max(), 31.0 * std::ldexp(1.0, 3));
  EXPECT_EQ(f.min_subnormal(), std::ldexp(1.0, -6));  // no subnormals: the smallest is 2^emin
  EXPECT_EQ(num::parse_format("p=5,emin=-6,emax=7,subnormals=0"), f);
  EXPECT_EQ(num::parse_format(num::format_name(f)), f);
  // eXmY is IEEE-like: e3m4 has emax 3, emin -2, p 5.
  EXPECT_EQ(num::parse_format("e3m4"), (num::format{5, -2, 3, true, true}));
  EXPECT_EQ(num::parse_format("e5m2"), num::fp8_e5m2);
  EXPECT_EQ(num::parse_format("e8m7"), num::bfloat16_format);
  EXPECT_EQ(num::parse_format("binary16"), num::binary16);
  EXPECT_EQ(num::parse_format("half"), num::binary16);
  EXPECT_EQ(num::parse_format("bfloat16"), num::bfloat16_format);
  EXPECT_EQ(num::parse_format("float"), num::binary32);
  EXPECT_EQ(num::parse_format("e4m3"), num::fp8_e4m3);
  EXPECT_EQ(num::parse_format("tf32"), num::tf32);
}

void expect_rejected(const std::string& text, const std::string& mentions) {
  try {
    num::parse_format(text);
    ADD_FAILURE() << "'" << text << "' was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
  }
}

TEST(Formats, ParseFormatErrorsNameTheProblem) {
  expect_rejected("fp17", "fp17");
  expect_rejected("", "unknown format");
  expect_rejected("p=30,emin=-6,emax=7", "precision");
  expect_rejected("p=5,emin=-200,emax=7", "emin");
  expect_rejected("p=5,emin=-6,emax=200", "emax");
  expect_rejected("p=5,emin=-6", "required");
  expect_rejected("p=x,emin=-6,emax=7", "'x' is not an integer");
  expect_rejected("p=5,emin=-6,emax=7,q=1", "unknown key 'q'");
  expect_rejected("p=5,emin=-5,emax=7", "exponent field");
  expect_rejected("p5,emin=-6,emax=7", "key=value");
  expect_rejected("e9m2", "exponent bits");
  expect_rejected("e1m2", "exponent bits");
  EXPECT_THROW(num::make_format(1, -6, 7, true, true), std::invalid_argument);
  EXPECT_THROW(num::make_format(24, -126, 128, true, true), std::invalid_argument);
}

}  // namespace
