// Batch norm's three ways to compute training statistics (norm_statistics),
// on one channel whose values and results are derived by hand: 300, 300.25,
// 300.5, 300.75, exact in fp16 (its unit there is 0.25).
//   exact:    mean 300.375, variance 0.078125 (that of 0, .25, .5, .75).
//   one_pass: each square is about 90,000, past fp16's 65504, so under pure
//             fp16 the squares are inf and so is the variance; in fp32 the
//             squares and their sums are exact (at most 22 bits), so the
//             variance is exact too.
//   stable:   the mean 300.375 is a tie between the fp16 values 300.25 and
//             300.5 and rounds to the even 300.5; the deviations -0.5,
//             -0.25, 0, 0.25 and their squares are exact, so the variance is
//             (0.25 + 0.0625 + 0 + 0.0625) / 4 = 0.09375 (0.078125 plus the
//             rounded mean's offset squared, 0.125^2).
// The running statistics show them: running = 0.9 * running + 0.1 * batch,
// with the unbiased variance (x 4/3), from mean 0 and variance 1.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "lab/batch_norm.hpp"
#include "lab/errors.hpp"
#include "lab/precision_hook.hpp"
#include "lab/precision_policy.hpp"
#include "lab/train_config.hpp"

namespace lab {
namespace {

struct running_statistics {
  float mean, var;
};

// The running statistics after one training forward of a one-channel batch
// norm over the four values ([4, 1]), under pure fp16 or in fp32 (no policy).
running_statistics trained_once(norm_statistics statistics, bool fp16) {
  batch_norm bn("bn", 1, 0.1f, 1e-5f, statistics);
  tensor x({4, 1}), y;
  for (std::size_t i = 0; i < 4; ++i) x[i] = 300.0f + 0.25f * static_cast<float>(i);
  precision_hook hook(precision_preset("fp16"), 1);
  op_context ctx = fp16 ? hook.context() : op_context{};
  ctx.training = true;
  bn.forward(ctx, x, y);
  return {bn.running_mean()[0], bn.running_var()[0]};
}

float running_var_after(float batch_variance) {
  return (1.0f - 0.1f) * 1.0f + 0.1f * static_cast<float>(static_cast<double>(batch_variance) * 4.0 / 3.0);
}

TEST(NormStatistics, ExactIsTheTwoPassVarianceUnderAnyPolicy) {
  for (const bool fp16 : {false, true}) {
    const running_statistics bn = trained_once(norm_statistics::exact, fp16);
    EXPECT_EQ(bn.mean, 0.1f * 300.375f) << fp16;
    EXPECT_FLOAT_EQ(bn.var, 0.9f + 0.1f * (0.078125f * 4.0f / 3.0f)) << fp16;
  }
}

TEST(NormStatistics, OnePassOverflowsItsFp16SquaresAndIsExactInFp32) {
  const running_statistics fp16 = trained_once(norm_statistics::one_pass, true);
  EXPECT_EQ(fp16.mean, 0.1f * 300.375f);
  EXPECT_EQ(fp16.var, std::numeric_limits<float>::infinity());
  const running_statistics fp32 = trained_once(norm_statistics::one_pass, false);
  EXPECT_EQ(fp32.var, running_var_after(0.078125f));
}

TEST(NormStatistics, StableSubtractsTheFp16RoundedMean) {
  const running_statistics fp16 = trained_once(norm_statistics::stable, true);
  EXPECT_EQ(fp16.mean, 0.1f * 300.5f);
  EXPECT_EQ(fp16.var, running_var_after(0.09375f));
  // In fp32 nothing is rounded: the mean and the deviations are exact.
  const running_statistics fp32 = trained_once(norm_statistics::stable, false);
  EXPECT_EQ(fp32.mean, 0.1f * 300.375f);
  EXPECT_EQ(fp32.var, running_var_after(0.078125f));
}

TEST(NormStatistics, OnePassOutputCollapsesToTheShiftWhenTheVarianceIsInfinite) {
  batch_norm bn("bn", 1, 0.1f, 1e-5f, norm_statistics::one_pass);
  bn.parameters()[1]->value[0] = 0.5f;  // beta
  tensor x({4, 1}), y;
  for (std::size_t i = 0; i < 4; ++i) x[i] = 300.0f + 0.25f * static_cast<float>(i);
  precision_hook hook(precision_preset("fp16"), 1);
  op_context ctx = hook.context();
  ctx.training = true;
  bn.forward(ctx, x, y);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(y[i], 0.5f) << i;
}

TEST(NormStatistics, NamesParseBackAndAnUnknownOneIsAnError) {
  for (const norm_statistics s : {norm_statistics::exact, norm_statistics::one_pass, norm_statistics::stable})
    EXPECT_EQ(parse_norm_statistics(norm_statistics_name(s)), s);
  EXPECT_THROW(parse_norm_statistics("two_pass"), input_error);
  train_config c;
  try {
    set_config_value(c, "norm_statistics", "two_pass", "test");
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("norm_statistics"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("one_pass"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lab
