// The multi-seed verdicts: paired differences with Student's t intervals,
// and runs that stopped never scored. Expected values are worked by hand
// (t quantiles from printed tables).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "experiments/reference.hpp"
#include "experiments/training.hpp"

namespace numlab::experiments {
namespace {

training_run finished_with(double accuracy) {
  training_run run;
  lab::epoch_report epoch;
  epoch.test.accuracy = accuracy;
  run.epochs.push_back(epoch);
  return run;
}

/// Runs "a" and "b" at seeds 1..n with the given accuracies.
seeded_runs two_runs(const std::vector<double>& a, const std::vector<double>& b) {
  seeded_runs out;
  for (std::size_t k = 0; k < a.size(); ++k) {
    out.seeds.push_back(k + 1);
    out.by_seed.push_back({{"a", finished_with(a[k])}, {"b", finished_with(b[k])}});
  }
  return out;
}

const claim lower_claim{"accuracy a vs b", "a tutorial", "a is worse", "interval below 0", "a is not worse"};

TEST(PairedDifference, UsesStudentsTQuantileAndTheDifferencesSd) {
  // Differences -0.10, -0.12, -0.08, -0.10, -0.10: mean -0.10, sd sqrt(0.0008 / 4).
  const std::vector<double> a{0.70, 0.68, 0.72, 0.70, 0.70}, b{0.80, 0.80, 0.80, 0.80, 0.80};
  const paired_difference d = compare_paired(a, b);
  EXPECT_NEAR(d.differences.mean, -0.10, 1e-12);
  EXPECT_NEAR(d.differences.standard_deviation, std::sqrt(0.0002), 1e-12);
  EXPECT_NEAR(d.t_critical, 2.776445, 1e-6);  // t(0.975, 4 df)
  EXPECT_NEAR(d.high(), -0.10 + 2.776445 * std::sqrt(0.0002 / 5), 1e-6);
  EXPECT_THROW((void)compare_paired(std::vector<double>{0.5}, std::vector<double>{0.5}), std::invalid_argument);
}

TEST(CompareAccuracies, DecidesLowerHigherAndWithinOnTheInterval) {
  const seeded_runs runs = two_runs({0.70, 0.68, 0.72, 0.70, 0.70}, {0.80, 0.80, 0.80, 0.80, 0.80});
  EXPECT_TRUE(compare_accuracies(lower_claim, runs, 0, 1, accuracy_claim::lower).matches);
  EXPECT_FALSE(compare_accuracies(lower_claim, runs, 0, 1, accuracy_claim::higher).matches);
  // The interval [-0.1176, -0.0824] lies inside +-0.12 but not inside +-0.1.
  EXPECT_TRUE(compare_accuracies(lower_claim, runs, 0, 1, accuracy_claim::within, 0.12).matches);
  EXPECT_FALSE(compare_accuracies(lower_claim, runs, 0, 1, accuracy_claim::within, 0.10).matches);
}

TEST(CompareAccuracies, SeedNoiseLeavesADirectionalClaimUnshown) {
  // Differences +0.05, -0.05, +0.04, -0.06, 0: mean -0.004, interval spans 0.
  const seeded_runs runs = two_runs({0.85, 0.75, 0.84, 0.74, 0.80}, {0.80, 0.80, 0.80, 0.80, 0.80});
  const reference_check c = compare_accuracies(lower_claim, runs, 0, 1, accuracy_claim::lower);
  EXPECT_TRUE(c.decided);
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.verdict, "differs: a is not worse");
  EXPECT_EQ(c.published, "a is worse");
}

TEST(CompareAccuracies, AStoppedRunIsNeverScored) {
  seeded_runs runs = two_runs({0.10, 0.10, 0.10}, {0.80, 0.80, 0.80});
  runs.by_seed[1][0].second.failure = "training diverged: loss is nan";
  EXPECT_TRUE(std::isnan(runs.by_seed[1][0].second.final_accuracy()));
  const reference_check c = compare_accuracies(lower_claim, runs, 0, 1, accuracy_claim::lower);
  EXPECT_FALSE(c.decided);
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.verdict.rfind("not decided: a diverged at seed(s) 2", 0), 0u) << c.verdict;
}

TEST(CompareAccuracies, OneSeedIsNotDecided) {
  const reference_check c =
      compare_accuracies(lower_claim, two_runs({0.10}, {0.80}), 0, 1, accuracy_claim::lower);
  EXPECT_FALSE(c.decided);
  EXPECT_FALSE(c.matches);
}

TEST(CheckTimeRatio, EverySeedMustMeetTheBound) {
  // Issue 17, Statistics: a verdict reads every seed, not the first alone.
  seeded_runs runs = two_runs({0.8, 0.8, 0.8}, {0.8, 0.8, 0.8});
  const double a_seconds[] = {4, 9, 3}, b_seconds[] = {10, 10, 10};  // ratios 0.4, 0.9, 0.3
  for (std::size_t k = 0; k < 3; ++k) {
    runs.by_seed[k][0].second.seconds = a_seconds[k];
    runs.by_seed[k][1].second.seconds = b_seconds[k];
  }
  const claim faster{"wall time a / b", "a tutorial", "a is 2x faster", "time ratio <= 0.5", "a is not 2x faster"};
  const reference_check slow_at_seed_2 = check_time_ratio(faster, runs, 0, 1, 0.5);
  EXPECT_FALSE(slow_at_seed_2.matches) << slow_at_seed_2.computed;
  EXPECT_NE(slow_at_seed_2.computed.find("0.30x to 0.90x b's time over 3 seeds"), std::string::npos)
      << slow_at_seed_2.computed;
  runs.by_seed[1][0].second.seconds = 5;  // 0.5 at seed 2: every seed within the bound
  EXPECT_TRUE(check_time_ratio(faster, runs, 0, 1, 0.5).matches);
}

/// Runs "a" and "b" at seeds 1..n whose one layer's gradient operand has the
/// given magnitude biases (percent).
seeded_runs two_biased_runs(const std::vector<double>& a, const std::vector<double>& b) {
  seeded_runs out = two_runs(std::vector<double>(a.size(), 0.8), std::vector<double>(a.size(), 0.8));
  constexpr auto gradient = static_cast<std::size_t>(lab::gemm_operand::gradient);
  for (std::size_t k = 0; k < a.size(); ++k) {
    for (const auto& [run, bias] : {std::pair{0, a[k]}, std::pair{1, b[k]}}) {
      operand_censuses census{};
      census[gradient].elements = census[gradient].nonzero = 100;
      census[gradient].magnitude = 100;
      census[gradient].signed_error = bias;  // bias = signed_error / magnitude, in percent
      out.by_seed[k][static_cast<std::size_t>(run)].second.quantized = {{"conv1", census}};
    }
  }
  return out;
}

const claim smaller_bias{"gradient bias a vs b", "a paper", "a is unbiased", "|bias a| below |bias b|",
                         "a is not less biased"};

TEST(CompareGradientBias, SeedNoiseLeavesTheClaimUnshown) {
  // Issue 17, Statistics: |bias| differences -0.4, +0.4, -0.3 points: the
  // first seed alone would show a smaller bias, the three seeds do not.
  const reference_check noisy = compare_gradient_bias(smaller_bias, two_biased_runs({-0.1, -0.9, -0.2}, {-0.5, -0.5, -0.5}), 0, 1);
  EXPECT_TRUE(noisy.decided);
  EXPECT_FALSE(noisy.matches) << noisy.computed;
  // -0.40, -0.35, -0.45 points: mean -0.4, 95% interval [-0.52, -0.28].
  const reference_check steady = compare_gradient_bias(smaller_bias, two_biased_runs({-0.1, -0.15, -0.05}, {-0.5, -0.5, -0.5}), 0, 1);
  EXPECT_TRUE(steady.matches) << steady.computed;
  EXPECT_NE(steady.computed.find("conv1"), std::string::npos) << steady.computed;
  // One seed gives no estimate of seed noise.
  EXPECT_FALSE(compare_gradient_bias(smaller_bias, two_biased_runs({-0.1}, {-0.5}), 0, 1).decided);
}

TEST(AccuracyOverSeeds, ShowsMeanSdAndStoppedRunsWithoutScoringThem) {
  seeded_runs runs = two_runs({0.70, 0.80, 0.90}, {0.50, 0.50, 0.50});
  runs.by_seed[2][1].second.failure = "diverged";
  const table t = accuracy_over_seeds_table("acc", runs);
  EXPECT_EQ(t.cell(0, "mean (%)"), "80.00");
  EXPECT_EQ(t.cell(0, "sd (%)"), "10.00");
  EXPECT_EQ(t.cell(1, "stopped"), "1");
  EXPECT_EQ(t.cell(1, "mean (%)"), "50.00");
  EXPECT_EQ(t.cell(1, "by seed (%)"), "50.00 50.00 stopped");
}

}  // namespace
}  // namespace numlab::experiments
