// Loss-scale advice on hand-built gradient sets (fp16: emax 15, max 65504,
// half the smallest subnormal 2^-25).
#include <vector>

#include <gtest/gtest.h>

#include "libnum/loss_scale_advice.hpp"

namespace {

num::tensor_stats fp32_stats(const std::vector<float>& x) { return num::compute_stats(x, num::binary32); }

TEST(LossScaleAdvice, LargestScaleKeepingEverythingBelowOverflow) {
  // Binades -30, -20, -10, 0, 3: the largest reaches binade 15 at k = 12.
  const std::vector<num::tensor_stats> grads{fp32_stats({0x1p-30f, 0x1p-20f}), fp32_stats({0x1p-10f, 1.0f, 8.0f})};
  const num::loss_scale_advice a = num::advise_loss_scale(grads, {});
  EXPECT_TRUE(a.feasible);
  EXPECT_TRUE(a.exact);
  EXPECT_EQ(a.scale_log2, 12);
  EXPECT_EQ(a.scale, 4096.0);
  EXPECT_EQ(a.values, 5u);
  EXPECT_EQ(a.overflow_fraction, 0.0);
  EXPECT_EQ(a.underflow_fraction, 0.0);  // 2^-30 * 2^12 = 2^-18 is representable
  // Letting one value in five overflow allows k = 15 (8 * 2^15 = 2^18 overflows, 2^15 does not).
  const num::loss_scale_advice b = num::advise_loss_scale(grads, {.keep_fraction = 0.8});
  EXPECT_EQ(b.scale_log2, 15);
  EXPECT_DOUBLE_EQ(b.overflow_fraction, 0.2);
}

TEST(LossScaleAdvice, TopBinadeIsCheckedExactlyForTheLargestValue) {
  // 15.999 * 2^12 = 65531.9 rounds to 2^16 in fp16 (past the 65520 tie);
  // 15.99 * 2^12 = 65495 rounds to 65504.
  EXPECT_EQ(num::advise_loss_scale(std::vector{fp32_stats({15.999f})}, {}).scale_log2, 11);
  EXPECT_EQ(num::advise_loss_scale(std::vector{fp32_stats({15.99f})}, {}).scale_log2, 12);
}

TEST(LossScaleAdvice, UnderflowAndOverflowFractions) {
  const std::vector<num::tensor_stats> grads{fp32_stats({0x1p-30f, 0x1p-26f, 0x1.8p-25f, 1.0f, 0.0f})};
  // At scale 1: 2^-30 and 2^-26 lie below 2^-25 and vanish; 1.5 * 2^-25 rounds to 2^-24. Zeros do not count.
  EXPECT_DOUBLE_EQ(num::underflow_fraction(grads, num::binary16, 0), 0.5);
  EXPECT_DOUBLE_EQ(num::underflow_fraction(grads, num::binary16, 4), 0.25);
  EXPECT_DOUBLE_EQ(num::underflow_fraction(grads, num::binary16, 8), 0.0);
  EXPECT_DOUBLE_EQ(num::underflow_fraction(grads, num::bfloat16_format, 0), 0.0);
  EXPECT_DOUBLE_EQ(num::overflow_fraction(grads, num::binary16, 16), 0.25);
  EXPECT_DOUBLE_EQ(num::overflow_fraction(grads, num::binary16, 15), 0.0);
}

TEST(LossScaleAdvice, InfeasibleAndInexact) {
  // 1e5 overflows fp16 even at scale 1.
  const num::loss_scale_advice a = num::advise_loss_scale(std::vector{fp32_stats({1e5f, 1.0f})}, {});
  EXPECT_FALSE(a.feasible);
  EXPECT_EQ(a.scale_log2, 0);
  EXPECT_DOUBLE_EQ(a.overflow_fraction, 0.5);
  // Histograms taken in fp16 lost the magnitudes of underflowed values.
  const num::tensor_stats in_fp16 = num::compute_stats(std::vector<float>{1e-9f, 1.0f}, num::binary16);
  const num::loss_scale_advice b = num::advise_loss_scale(std::vector{in_fp16}, {});
  EXPECT_FALSE(b.exact);
  EXPECT_DOUBLE_EQ(b.underflow_fraction, 0.5);
  EXPECT_EQ(b.scale_log2, 15);
}

}  // namespace
