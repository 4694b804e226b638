// Bad parameters give one clear error and write nothing; the packed layouts
// hold the same codes as one element per byte, in the documented bit places.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "scaled_run.hpp"

namespace {

using scaled_test::options_for;
using scaled_test::run;

std::string error_of(const num::scaled_options& o, std::size_t n = 4, std::size_t element_bytes = 4,
                     std::size_t scales = 1) {
  std::vector<float> in(n, 1.0f);
  std::vector<std::uint8_t> elements(element_bytes, 0xAB);
  std::vector<std::uint32_t> scale(scales, 0xABu);
  try {
    num::quantize(in, {1, n}, elements, scale, o);
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(elements, std::vector<std::uint8_t>(element_bytes, 0xAB)) << "written before the error";
    return e.what();
  }
  return "no error";
}

TEST(ScaledOptions, BadParametersNameWhatIsWrong) {
  auto o = options_for("mxfp8");
  o.format.block.cols = 0;
  EXPECT_EQ(error_of(o), "quantize: block size 1x0 has a zero dimension");
  o = options_for("mxfp8");
  o.spec.mode = num::rounding::stochastic;
  o.spec.random_bits = 0;
  EXPECT_EQ(error_of(o), "quantize: random bits r = 0 is out of range [1, 32]");
  o.spec.random_bits = 33;
  EXPECT_EQ(error_of(o), "quantize: random bits r = 33 is out of range [1, 32]");
  o = options_for("mxfp4");
  o.spec.overflow = num::overflow_mode::ieee;
  EXPECT_EQ(error_of(o, 4, 4), "quantize: element format e2m1 has no infinity or NaN, so overflow must saturate");
  o = options_for("nvfp4");
  o.format.element = num::element_type::e4m3;
  EXPECT_EQ(error_of(o), "quantize: scale rule nvfp4 needs e2m1 elements (got e4m3)");
  o = options_for("mxfp6-e2m3");
  o.specials = num::special_block_policy::keep_in_elements;
  EXPECT_NE(error_of(o).find("cannot keep NaN/inf"), std::string::npos);
  o = options_for("mxfp8");
  EXPECT_EQ(error_of(o, 4, 3), "quantize: the element array has 3 entries, expected 4");
  EXPECT_EQ(error_of(o, 4, 4, 2), "quantize: the scale array has 2 entries, expected 1");
  o.format = {num::element_type::e4m3, num::scale_rule::fp32_given, num::whole_tensor_block};
  o.given_scale = 0.0f;
  EXPECT_NE(error_of(o).find("given scale must be finite and positive"), std::string::npos);
}

TEST(ScaledOptions, Fp4AndFp6PackAsDocumented) {
  // FP4 with X = 1 (amax 4): element 2k in the low nibble. 1.0 -> 0b0010,
  // -0.5 -> 0b1001, 4 -> 0b0110 (the last byte's high nibble stays 0).
  auto o = options_for("mxfp4");
  o.layout = num::element_layout::packed;
  EXPECT_EQ(run({1.0f, -0.5f, 4.0f}, o).elements, (std::vector<std::uint8_t>{0x92, 0x06}));
  // FP6 E2M3 with X = 1 (amax 7.5 = 1.111b·2^2): codes 0x01 (0.125),
  // 0x02 (0.25), 0x03 (0.375), 0x1F (7.5) at bits 0, 6, 12, 18 of a
  // little-endian 24-bit group: 0x01 | 0x02<<6 | 0x03<<12 | 0x1F<<18 = 0x7C3081.
  o = options_for("mxfp6-e2m3");
  o.layout = num::element_layout::packed;
  EXPECT_EQ(run({0.125f, 0.25f, 0.375f, 7.5f}, o).elements, (std::vector<std::uint8_t>{0x81, 0x30, 0x7C}));
}

TEST(ScaledOptions, PackedAndBytePerElementHoldTheSameCodes) {
  std::mt19937 gen(3);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> in(1001);
  for (float& x : in) x = normal(gen);
  for (const auto& named : num::named_scaled_formats()) {
    if (named.format.block.rows > 1 && named.format.block.rows < 1000) continue;
    auto o = options_for(std::string(named.name).c_str());
    const auto bytes = run(in, o);
    o.layout = num::element_layout::packed;
    const auto packed = run(in, o);
    EXPECT_EQ(bytes.codes, packed.codes) << named.name;
    EXPECT_EQ(bytes.decoded, packed.decoded) << named.name;
    EXPECT_EQ(packed.elements.size(),
              (in.size() * static_cast<std::size_t>(num::element_bits(o.format.element)) + 7) / 8);
  }
}

TEST(ScaledOptions, GridValuesRoundTripExactly) {
  // Every element value times a block's power-of-two scale is on the grid:
  // quantize then dequantize returns it unchanged (MXFP8 E4M3, X = 2^-3).
  std::vector<float> in;
  for (std::uint32_t code = 0; code < 256; ++code) {
    const double v = num::element_value(num::element_type::e4m3, code);
    if (!std::isnan(v) && std::fabs(v) <= 448.0 && std::fabs(v) >= 0x1p-6) in.push_back(static_cast<float>(v / 8));
  }
  auto o = options_for("mxfp8");
  o.format.block.cols = in.size();
  in[0] = 448.0f / 8;  // amax 56 = 1.75·2^5 -> X = 2^(5-8)
  const auto q = run(in, o);
  EXPECT_EQ(q.scales[0], 124u);
  EXPECT_EQ(q.decoded, in);
  EXPECT_EQ(q.result.counts.inexact, 0u);
}

}  // namespace

namespace {

std::string parse_error(const char* text) {
  try {
    num::parse_scaled_format(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(ScaledFormatNames, ParseNamesAndElementRuleBlock) {
  EXPECT_EQ(num::parse_scaled_format("mxfp4"), *num::find_scaled_format("mxfp4"));
  EXPECT_EQ(num::parse_scaled_format("e2m1/mx-rceil"),
            (num::scaled_format{num::element_type::e2m1, num::scale_rule::mx_rceil, {1, 32}}));
  EXPECT_EQ(num::parse_scaled_format("e2m1/nvfp4/16x16"), *num::find_scaled_format("nvfp4-2d"));
  EXPECT_EQ(num::parse_scaled_format("e4m3/fp32-amax/tensor"), *num::find_scaled_format("fp8-tensor"));
  EXPECT_EQ(num::parse_scaled_format("int8/mx-floor/64").block, (num::block_shape{1, 64}));
  EXPECT_EQ(num::scaled_format_name(num::parse_scaled_format("e3m2/mx-even/4x8")), "e3m2/mx-even/4x8");
  EXPECT_TRUE(num::looks_like_scaled_format("nvfp4"));
  EXPECT_FALSE(num::looks_like_scaled_format("e3m2"));  // the IEEE-style per-element format of parse_format
}

TEST(ScaledFormatNames, BadNamesSayWhatIsMissing) {
  EXPECT_EQ(parse_error("e2m1/"),
            "scaled format 'e2m1/': element format e2m1 needs a scale rule (e2m1/RULE[/BLOCK] with RULE mx-floor, "
            "mx-rceil, mx-even, nvfp4, fp32-amax, fp32-amax-pow2)");
  EXPECT_EQ(parse_error("e2m1/mx-floor/0"), "scaled format 'e2m1/mx-floor/0': block size 1x0 has a zero dimension");
  EXPECT_EQ(parse_error("e4m3/nvfp4"), "scaled format 'e4m3/nvfp4': scale rule nvfp4 needs e2m1 elements (got e4m3)");
  EXPECT_NE(parse_error("e9m9/mx-floor").find("unknown scaled format 'e9m9/mx-floor'"), std::string::npos);
  EXPECT_NE(parse_error("e2m1/floor").find("unknown scale rule 'floor'"), std::string::npos);
  EXPECT_NE(parse_error("e2m1/mx-floor/4y").find("block '4y' is not N, RxC or tensor"), std::string::npos);
}

}  // namespace
