// Precision policies on Fashion-MNIST with the tutorial conv model, from the
// shipped configs: mixed fp16 tracks fp32, pure formats lose updates to
// swamping (and stochastic rounding changes that), pure bf16 leaves about as
// many parameter elements unchanged per step as PyTorch on real bf16, and
// fp16 without loss scaling underflows gradients. Each test prints what it
// measured.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "lab/trainer.hpp"

namespace lab {
namespace {

const std::filesystem::path data_dir = "/usr/share/datasets/fashion-mnist";

bool have_data() { return std::filesystem::exists(data_dir / "train-images-idx3-ubyte.gz"); }

// Per-update measurements, read from the policy's tally after each batch.
struct step_log : progress_sink {
  trainer* owner = nullptr;
  std::vector<double> loss, unchanged, swamped;  // per update: loss, fractions of elements
  double requested = 0.0, applied = 0.0;         // sums over all updates (update_tally)
  std::uint64_t gradients = 0, gradient_underflows = 0, gradient_subnormals = 0;
  double loss_sum = 0.0;

  void on_batch(std::size_t, std::size_t batch, std::size_t, double mean_loss, double) override {
    // The trainer reports running means; recover this batch's loss.
    const double total = mean_loss * static_cast<double>(batch);
    loss.push_back(total - loss_sum);
    loss_sum = total;
    precision_hook* hook = owner->precision();
    if (hook == nullptr) return;
    const auto& t = hook->tally();
    if (t.updates.elements > 0) {
      unchanged.push_back(static_cast<double>(t.updates.unchanged) / static_cast<double>(t.updates.elements));
      swamped.push_back(static_cast<double>(t.updates.swamped) / static_cast<double>(t.updates.elements));
      requested += t.updates.requested;
      applied += t.updates.applied;
    }
    for (auto role : {tensor_role::grad_input, tensor_role::grad_weight}) {
      const auto r = static_cast<std::size_t>(role);
      gradients += t.elements[r];
      gradient_underflows += t.by_role[r].underflow_to_zero;
      gradient_subnormals += t.by_role[r].became_subnormal;
    }
    hook->reset_tally();
  }
  void on_epoch(const epoch_report&) override {}
  void on_warning(const std::string&) override {}
};

double mean(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

step_log train(const std::string& config_name, std::size_t train_limit,
               std::vector<std::pair<std::string, std::string>> overrides = {}) {
  train_config config;
  apply_config_file(config, std::filesystem::path(NUMLAB_SOURCE_DIR) / "configs" / (config_name + ".yml"));
  config.train_limit = train_limit;
  config.test_limit = 1000;
  config.threads = 1;
  for (const auto& [k, v] : overrides) set_config_value(config, k, v, "test");
  trainer t(config, load_data(config));
  if (t.precision() != nullptr) t.precision()->set_counting(true);
  step_log log;
  log.owner = &t;
  t.run(&log);
  return log;
}

TEST(PrecisionTraining, MixedFp16WithStaticScaleTracksTheFp32LossCurve) {
  if (!have_data()) GTEST_SKIP() << "Fashion-MNIST not installed";
  const auto fp32 = train("tutorial_conv_fp32", 12800);
  const auto mixed = train("tutorial_conv_fp16_mixed", 12800);
  ASSERT_EQ(fp32.loss.size(), mixed.loss.size());
  // Mean loss over windows of 50 updates.
  double worst = 0.0;
  for (std::size_t w = 0; w + 50 <= fp32.loss.size(); w += 50) {
    const std::vector<double> a(fp32.loss.begin() + static_cast<std::ptrdiff_t>(w),
                                fp32.loss.begin() + static_cast<std::ptrdiff_t>(w + 50));
    const std::vector<double> b(mixed.loss.begin() + static_cast<std::ptrdiff_t>(w),
                                mixed.loss.begin() + static_cast<std::ptrdiff_t>(w + 50));
    const double rel = std::abs(mean(b) - mean(a)) / mean(a);
    worst = std::max(worst, rel);
    std::printf("updates %4zu-%4zu  fp32 loss %.4f  fp16-mixed loss %.4f  (%.2f%%)\n", w, w + 49, mean(a), mean(b),
                100.0 * rel);
  }
  EXPECT_LE(worst, 0.03);
}

TEST(PrecisionTraining, PureBf16LeavesAboutAThirdOfElementsUnchangedPerStep) {
  if (!have_data()) GTEST_SKIP() << "Fashion-MNIST not installed";
  // PyTorch, same model and settings on real bf16: about 32% per step.
  const auto log = train("tutorial_conv_bf16", 0);
  const double unchanged = mean(log.unchanged);
  std::printf("pure bf16, Adam lr 0.001 eps 1e-4, batch 32, 1 epoch: %.1f%% of parameter elements unchanged per "
              "step (%.1f%% swamped: delta != 0), %zu updates\n",
              100.0 * unchanged, 100.0 * mean(log.swamped), log.unchanged.size());
  EXPECT_NEAR(unchanged, 0.32, 0.10);
}

TEST(PrecisionTraining, PureBf16AtLr001LeavesAboutTwoThirdsUnchangedByEpochFive) {
  if (!have_data()) GTEST_SKIP() << "Fashion-MNIST not installed";
  // PyTorch, same model on real bf16 with lr 0.01: about 64% per step by epoch 5.
  const auto log = train("tutorial_conv_bf16", 0, {{"lr", "0.01"}, {"epochs", "5"}});
  const std::size_t per_epoch = log.unchanged.size() / 5;
  ASSERT_GT(per_epoch, 0u);
  const std::vector<double> last(log.unchanged.end() - static_cast<std::ptrdiff_t>(per_epoch), log.unchanged.end());
  const std::vector<double> first(log.unchanged.begin(), log.unchanged.begin() + static_cast<std::ptrdiff_t>(per_epoch));
  std::printf("pure bf16, Adam lr 0.01 eps 1e-4, batch 32: %.1f%% of parameter elements unchanged per step in epoch 1, "
              "%.1f%% in epoch 5 (%zu updates per epoch)\n",
              100.0 * mean(first), 100.0 * mean(last), per_epoch);
  EXPECT_NEAR(mean(last), 0.64, 0.10);
}

TEST(PrecisionTraining, PureFormatsSwampUpdatesAndStochasticRoundingChangesThat) {
  if (!have_data()) GTEST_SKIP() << "Fashion-MNIST not installed";
  for (const char* config : {"tutorial_conv_fp16", "tutorial_conv_bf16"}) {
    const auto ne = train(config, 6400);
    const auto sr = train(config, 6400, {{"rounding.update", "sr"}});
    const double kept_ne = ne.applied / ne.requested, kept_sr = sr.applied / sr.requested;
    std::printf("%s over %zu updates: nearest-even %.1f%% of elements swamped per step, %.1f%% of the requested "
                "update applied, last-50 loss %.4f; stochastic update %.1f%% swamped, %.1f%% applied, loss %.4f\n",
                config, ne.swamped.size(), 100.0 * mean(ne.swamped), 100.0 * kept_ne,
                mean({ne.loss.end() - 50, ne.loss.end()}), 100.0 * mean(sr.swamped), 100.0 * kept_sr,
                mean({sr.loss.end() - 50, sr.loss.end()}));
    // Nearest-even swallows part of the requested update; stochastic
    // rounding is unbiased, so it applies the requested amount on average.
    EXPECT_GT(mean(ne.swamped), 0.01) << config;
    EXPECT_LT(kept_ne, 1.0) << config;
    EXPECT_LT(std::abs(1.0 - kept_sr), std::abs(1.0 - kept_ne)) << config;
  }
}

TEST(PrecisionTraining, Fp16WithoutLossScalingUnderflowsGradients) {
  if (!have_data()) GTEST_SKIP() << "Fashion-MNIST not installed";
  const auto scaled = train("tutorial_conv_fp16", 3200);
  const auto unscaled = train("tutorial_conv_fp16", 3200, {{"loss_scaling", "none"}});
  const auto fraction = [](const step_log& l, std::uint64_t count) {
    return static_cast<double>(count) / static_cast<double>(l.gradients);
  };
  std::printf("pure fp16 gradient elements (grad_input, grad_weight; 100 updates): flushed to zero %.3f%% with loss "
              "scale 256, %.3f%% without; subnormal %.3f%% with, %.3f%% without\n",
              100.0 * fraction(scaled, scaled.gradient_underflows), 100.0 * fraction(unscaled, unscaled.gradient_underflows),
              100.0 * fraction(scaled, scaled.gradient_subnormals),
              100.0 * fraction(unscaled, unscaled.gradient_subnormals));
  EXPECT_GT(fraction(unscaled, unscaled.gradient_underflows), 4.0 * fraction(scaled, scaled.gradient_underflows));
  EXPECT_GT(fraction(unscaled, unscaled.gradient_subnormals), 4.0 * fraction(scaled, scaled.gradient_subnormals));
}

}  // namespace
}  // namespace lab
