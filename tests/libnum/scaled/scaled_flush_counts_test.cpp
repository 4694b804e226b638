// num::count_flushes_as_block_underflow: the flushes of a given per-tensor
// scale split as quantize() splits those of a block, worked out by hand and
// checked against quantize() of the rule the scale stands for.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include <libnum/scaled_flush_counts.hpp>
#include <libnum/scaled_tensor_scale.hpp>

namespace {

// quantize_dequantize of `in` under the given scale `scale`, and its counts
// after the split.
num::scaled_counts given_scale_counts(const std::vector<float>& in, float scale, int margin,
                                      num::scaled_counts* before = nullptr) {
  num::scaled_options o;
  o.format = {num::element_type::e4m3, num::scale_rule::fp32_given, num::whole_tensor_block};
  o.given_scale = scale;
  o.margin = margin;
  const num::tensor_shape shape{2, in.size() / 2};
  std::vector<float> back(in.size());
  std::vector<std::uint32_t> scales(1);
  num::scaled_counts c = num::quantize_dequantize(in, shape, back, scales, o).counts;
  if (before != nullptr) *before = c;
  num::count_flushes_as_block_underflow(in, back, o, num::scale_rule::fp32_amax, c);
  return c;
}

// quantize()'s own counts of one fp32_amax block over the tensor.
num::scaled_counts amax_block_counts(const std::vector<float>& in, int margin) {
  num::scaled_options o;
  o.format = {num::element_type::e4m3, num::scale_rule::fp32_amax, num::whole_tensor_block};
  o.margin = margin;
  const num::tensor_shape shape{2, in.size() / 2};
  std::vector<std::uint8_t> codes(in.size());
  std::vector<std::uint32_t> scales(1);
  return num::quantize(in, shape, codes, scales, o).counts;
}

// Amax 448 (E4M3's largest): the fp32_amax scale at margin 0 is 1, and an
// element flushes where |x| <= 2^-10 (half the smallest subnormal 2^-9, the
// tie to even zero). Flushed: 2^-11, -2^-12, 1e-30, 2^-149, 2^-10, 5e-4; kept:
// 1.5·2^-10, 1e-3, 2^-9 and the large values. 14 nonzero, 6 flushed.
const std::vector<float> with_tiny = {448.0f, 0x1p-11f, -0x1p-12f, 1e-30f, 0x1p-149f, 0.0f, 1.0f, 0x1p-10f,
                                      -3.0f, 0.25f, 0x1.8p-10f, 1e-3f, 0.0f, 5e-4f, 0x1p-9f, 7.0f};

TEST(ScaledFlushCounts, FlushesTheElementsOwnScaleHoldsMoveToBlockUnderflow) {
  // 1e-30 and 2^-149 lie below max_elem · 2^-100, where quantize() decides
  // each one alone: its own scale (clamped to 2^-149 for 2^-149) holds it.
  num::scaled_counts before;
  const num::scaled_counts c = given_scale_counts(with_tiny, 1.0f, 0, &before);
  EXPECT_EQ(before.underflow_to_zero, 6u);
  EXPECT_EQ(before.block_underflow, 0u);
  EXPECT_EQ(c.block_underflow, 6u);
  EXPECT_EQ(c.underflow_to_zero, 0u);
  EXPECT_EQ(c, amax_block_counts(with_tiny, 0));
}

TEST(ScaledFlushCounts, WithNoInputNearTheBottomEveryFlushIsTheScalesAtMarginZero) {
  // No input at or below max_elem · 2^-100: the one-pass case. Flushed:
  // 2^-11, -2^-12, 2^-10, 5e-4 (4 of 12 nonzero).
  const std::vector<float> in = {448.0f, 0x1p-11f, -0x1p-12f, 0.5f, 2.0f, 0.0f, 1.0f, 0x1p-10f,
                                 -3.0f, 0.25f, 0x1.8p-10f, 1e-3f, 0.0f, 5e-4f, 0x1p-9f, 7.0f};
  const num::scaled_counts c = given_scale_counts(in, 1.0f, 0);
  EXPECT_EQ(c.block_underflow, 4u);
  EXPECT_EQ(c.underflow_to_zero, 0u);
  EXPECT_EQ(c, amax_block_counts(in, 0));
}

TEST(ScaledFlushCounts, FlushesEvenTheOwnScaleMakesStayUnderflowToZero) {
  // Margin 20: the scale is 448 · 2^20 / 448 = 2^20, every |x| <= 448 becomes
  // at most 448 · 2^-20 < 2^-10, so all 14 nonzero inputs flush; a lone x's
  // own scale |x| · 2^20 / 448 maps it onto the same 448 · 2^-20, which
  // flushes too.
  const float scale = num::amax_scale(448.0f, num::element_type::e4m3, 20);
  ASSERT_EQ(scale, 0x1p20f);
  const num::scaled_counts c = given_scale_counts(with_tiny, scale, 20);
  EXPECT_EQ(c.block_underflow, 0u);
  EXPECT_EQ(c.underflow_to_zero, 14u);
  EXPECT_EQ(c, amax_block_counts(with_tiny, 20));
}

TEST(ScaledFlushCounts, RejectsMismatchedSizesAndAScaleThatWasNotGiven) {
  num::scaled_options o;
  o.format = {num::element_type::e4m3, num::scale_rule::fp32_given, num::whole_tensor_block};
  const std::vector<float> in(4, 1.0f), back(3, 1.0f);
  num::scaled_counts c;
  EXPECT_THROW(num::count_flushes_as_block_underflow(in, back, o, num::scale_rule::fp32_amax, c),
               std::invalid_argument);
  o.format.rule = num::scale_rule::fp32_amax;
  EXPECT_THROW(num::count_flushes_as_block_underflow(in, in, o, num::scale_rule::fp32_amax, c),
               std::invalid_argument);
}

}  // namespace
