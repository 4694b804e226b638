// Scaled-format statistics on hand-derived tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <libnum/scaled_stats.hpp>
#include <vector>

namespace {

TEST(ScaledStats, Mxfp4BlocksScalesFractionsAndSnr) {
  // Block 0 (amax 4, X = 1): 4, 1, 0.25 (flushed: tie to 0), 3 -> errors 0, 0, 0.25, 0.
  // Block 1 (amax 7, X = 1): 7 saturates to 6 (error 1), 2 exact.
  num::scaled_options o;
  o.format = {num::element_type::e2m1, num::scale_rule::mx_floor, {1, 4}};
  const std::vector<float> in{4.0f, 1.0f, 0.25f, 3.0f, 7.0f, 2.0f, 0.0f, 0.0f};
  const num::scaled_stats s = num::compute_scaled_stats(in, {1, in.size()}, o);
  EXPECT_EQ(s.scale_binades.size(), 1u);
  EXPECT_EQ(s.scale_binades.at(0), 2u);
  EXPECT_EQ(s.amax_over_scale, (std::vector<double>{4.0, 7.0}));
  EXPECT_EQ(s.nonzero_finite, 6u);
  EXPECT_DOUBLE_EQ(s.block_underflow_fraction(), 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(s.saturation_fraction(), 1.0 / 8.0);
  const double signal = 16 + 1 + 0.0625 + 9 + 49 + 4, noise = 0.0625 + 1;
  EXPECT_DOUBLE_EQ(s.snr_db(), 10 * std::log10(signal / noise));
}

TEST(ScaledStats, Nvfp4ScalesIncludeTheTensorScale) {
  // Tensor amax 2688 -> s = 1; the block scale 448 (binade 8) and 1 (binade 0).
  std::vector<float> in(32, 0.0f);
  in[0] = 2688.0f;
  in[16] = 6.0f;
  num::scaled_options o;
  o.format = *num::find_scaled_format("nvfp4");
  const num::scaled_stats s = num::compute_scaled_stats(in, {1, 32}, o);
  EXPECT_EQ(s.scale_binades.at(8), 1u);
  EXPECT_EQ(s.scale_binades.at(0), 1u);
  EXPECT_EQ(s.amax_over_scale, (std::vector<double>{6.0, 6.0}));
  EXPECT_TRUE(std::isinf(s.snr_db()));
}

}  // namespace
