// The graphcore-options and amp-recipe experiments at their tiny sizes,
// against hand-derived values and an independent recomputation with the
// rounding oracle (never libnum).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include <lab/rng.hpp>

#include "experiments/experiment.hpp"
#include "rounding_oracle.hpp"
#include "tiny_runs.hpp"

namespace numlab::experiments {
namespace {

using testing::fp16;
using testing::printf_g;
using testing::run_tiny;

/// fp16 nearest-even with overflow: beyond 65504 the oracle's rounding
/// lands on 65536 or more, which fp16 cannot hold, so it is infinite.
double fp16_or_inf(double x) {
  const double r = fp16(x);
  return std::fabs(r) > 65504.0 ? std::copysign(INFINITY, r) : r;
}

/// One batch-norm channel's variance both ways, recomputed from the same
/// random stream: squares rounded to fp16 by the oracle, sums in float.
struct variances {
  double naive, stable;
};

variances recompute(double offset) {
  constexpr std::size_t n = 32 * 28 * 28;
  lab::rng gen(1, static_cast<std::uint64_t>(offset));
  std::vector<double> x(n);
  for (double& v : x) v = fp16(offset + static_cast<double>(gen.normal()));
  float sum = 0.0f, squares = 0.0f;
  for (const double v : x) {
    sum += static_cast<float>(v);
    squares += static_cast<float>(fp16_or_inf(v * v));
  }
  const float mean = sum / static_cast<float>(n);
  const float naive = squares / static_cast<float>(n) - mean * mean;
  const double mean16 = fp16(mean);
  float deviations = 0.0f;
  for (const double v : x) {
    const double d = fp16(v - mean16);
    deviations += static_cast<float>(fp16(d * d));
  }
  return {naive, deviations / static_cast<float>(n)};
}

TEST(GraphcoreOptions, VarianceTableIsTheOracleRecomputation) {
  const experiment_result r = run_tiny("graphcore-options");
  const table& t = r.find_table("stable-statistics");
  ASSERT_EQ(t.rows().size(), 5u);
  for (std::size_t row = 0; row < t.rows().size(); ++row) {
    const double offset = std::stod(t.cell(row, "mean offset"));
    const variances want = recompute(offset);
    EXPECT_EQ(t.cell(row, "E[x^2] - E[x]^2"), printf_g(want.naive, 6)) << "offset " << offset;
    EXPECT_EQ(t.cell(row, "E[(x - mean)^2]"), printf_g(want.stable, 6)) << "offset " << offset;
  }
  // Hand-derived: 300^2 = 90000 > 65504, so the plain form overflows there.
  EXPECT_EQ(t.cell(4, "mean offset"), "300");
  EXPECT_EQ(t.cell(4, "E[x^2] - E[x]^2"), "inf");
  bool decided = false;
  for (const reference_check& c : r.checks) {
    if (c.quantity.rfind("variance of a channel", 0) != 0) continue;
    decided = true;
    EXPECT_TRUE(c.matches) << c.computed;
  }
  EXPECT_TRUE(decided);
}

TEST(GraphcoreOptions, EachModelHasSixRunsResNetTwoNormRunsAndTheirVerdicts) {
  const experiment_result r = run_tiny("graphcore-options");
  EXPECT_EQ(r.find_table("accuracy-over-seeds").rows().size(), 14u);  // 6 per model + ResNet-8's 2 norm runs
  EXPECT_EQ(r.checks.size(), 10u);  // 4 per model + the variance + the trained norm
  // The norm runs rounded their batch-norm squares, and the census saw them
  // (a count of none would read "of 0").
  bool found = false;
  for (const reference_check& c : r.checks) {
    if (c.quantity.find("batch-norm squares that overflowed fp16") == std::string::npos) continue;
    found = true;
    EXPECT_EQ(c.computed.find(" of 0"), std::string::npos) << c.computed;
    EXPECT_NE(c.computed.find("one pass 0 of "), std::string::npos) << c.computed;  // inputs below 256 at tiny size
  }
  EXPECT_TRUE(found);
}

std::string cell_of(const table& t, const std::string& model, const std::string& layer, const std::string& column) {
  for (std::size_t row = 0; row < t.rows().size(); ++row)
    if (t.cell(row, "model") == model && t.cell(row, "layer") == layer) return t.cell(row, column);
  ADD_FAILURE() << "no op " << model << " " << layer;
  return {};
}

TEST(AmpRecipe, OpFormatsFollowTheAutocastLists) {
  const experiment_result r = run_tiny("amp-recipe");
  const table& ops = r.find_table("op-formats");
  // fp16-mixed: conv and dense in fp16, loss and norm fp32, elementwise ops
  // take their inputs' widest format (relu1 reads conv1's fp16 output,
  // stem.relu reads stem.bn's fp32 one).
  EXPECT_EQ(cell_of(ops, "conv", "conv1", "forward"), "fp16");
  EXPECT_EQ(cell_of(ops, "conv", "relu1", "forward"), "fp16");
  EXPECT_EQ(cell_of(ops, "conv", "logits", "grad_weight"), "fp16");
  EXPECT_EQ(cell_of(ops, "conv", "loss", "forward"), "fp32");
  EXPECT_EQ(cell_of(ops, "ResNet-8", "stem.bn", "forward"), "fp32");
  EXPECT_EQ(cell_of(ops, "ResNet-8", "stem.relu", "forward"), "fp32");
  EXPECT_EQ(cell_of(ops, "ResNet-8", "stage1.block1", "forward"), "fp32");
  EXPECT_EQ(cell_of(ops, "ResNet-8", "logits", "forward"), "fp16");
}

TEST(AmpRecipe, ScaleBacksOffOncePerEffectiveBatchAndGrowsAfterTheInterval) {
  const experiment_result r = run_tiny("amp-recipe");
  const table& acc = r.find_table("accumulation-scale");
  // From 2^32 the fp16 gradients overflow: one halving per update of 4 micro-batches.
  EXPECT_EQ(acc.cell(0, "loss scale"), "4.2949673e+09");
  EXPECT_EQ(acc.cell(0, "skipped"), "yes");
  EXPECT_EQ(acc.cell(1, "loss scale"), "2.1474836e+09");
  const table& growth = r.find_table("growth");
  // Tiny interval 8 from 65536: 8 clean steps (0..7), then x2 at step 8.
  EXPECT_EQ(growth.cell(0, "step"), "8");
  EXPECT_EQ(growth.cell(0, "clean steps since the previous change"), "8");
  EXPECT_EQ(growth.cell(0, "scale after"), "131072");
}

}  // namespace
}  // namespace numlab::experiments
