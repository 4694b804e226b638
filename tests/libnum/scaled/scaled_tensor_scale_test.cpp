// FP8 per-tensor scaling: TransformerEngine's current and delayed scaling.
#include <gtest/gtest.h>

#include <libnum/scaled_tensor_scale.hpp>
#include <stdexcept>
#include <vector>

#include "scaled_run.hpp"

namespace {

TEST(ScaledTensorScale, HistoryKeepsTheLastLengthAmaxesAndReducesThem) {
  num::amax_history h(3);
  EXPECT_EQ(h.reduced(num::amax_reduction::max), 0.0f);
  for (float a : {5.0f, 1.0f, 2.0f, 3.0f}) h.record(a);  // 5 drops out
  EXPECT_EQ(h.size(), 3u);
  EXPECT_EQ(h.reduced(num::amax_reduction::max), 3.0f);
  EXPECT_EQ(h.reduced(num::amax_reduction::most_recent), 3.0f);
  h.record(0.5f);
  EXPECT_EQ(h.reduced(num::amax_reduction::max), 3.0f);
  EXPECT_EQ(h.reduced(num::amax_reduction::most_recent), 0.5f);
  EXPECT_THROW(num::amax_history(0), std::invalid_argument);
  EXPECT_THROW(h.record(-1.0f), std::invalid_argument);
}

TEST(ScaledTensorScale, ScaleIsAmaxTimesTwoToTheMarginOverFp8Max) {
  // E4M3: 896 / 448 = 2; with margin 2: 8. E5M2: 57344 / 57344 = 1.
  EXPECT_EQ(num::amax_scale(896.0f, num::element_type::e4m3, 0), 2.0f);
  EXPECT_EQ(num::amax_scale(896.0f, num::element_type::e4m3, 2), 8.0f);
  EXPECT_EQ(num::amax_scale(57344.0f, num::element_type::e5m2, 0), 1.0f);
  EXPECT_EQ(num::amax_scale(0.0f, num::element_type::e4m3, 0), 1.0f);
  // 1/448 = 1/(7·64): rounded to nearest fp32, 0x3B124925 (1.142857...·2^-9;
  // 2^32/7 = 613566756.57 -> the 24-bit significand 0x924924.9 rounds up).
  EXPECT_EQ(std::bit_cast<std::uint32_t>(num::amax_scale(1.0f, num::element_type::e4m3, 0)), 0x3B124925u);
}

TEST(ScaledTensorScale, DelayedScalingQuantizesWithTheHistorysScale) {
  num::amax_history h(4);
  h.record(896.0f);
  h.record(100.0f);
  num::scaled_options o;
  o.format = {num::element_type::e4m3, num::scale_rule::fp32_given, num::whole_tensor_block};
  o.given_scale = num::delayed_scale(h, num::amax_reduction::max, num::element_type::e4m3, 0);
  EXPECT_EQ(o.given_scale, 2.0f);
  // With scale 2 (from the history, not this tensor's amax 100): 100 / 2 = 50
  // = 1.1001b·2^5, the tie of 1.100b·2^5 = 48 and 1.101b·2^5 = 52 -> even:
  // 48 = exponent 5 + 7 = 1100, mantissa 100 -> 0x64.
  const auto q = scaled_test::run({100.0f, -1.0f}, o);
  EXPECT_EQ(q.scales[0], 0x40000000u);
  EXPECT_EQ(q.codes[0], 0x64u);
  EXPECT_EQ(q.codes[1], 0xB0u);  // -0.5 = -1.0·2^-1: exponent 6 = 0110
}

}  // namespace
