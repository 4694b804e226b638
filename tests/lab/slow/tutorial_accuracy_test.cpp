// The tutorial conv model reaches >= 87% test accuracy on Fashion-MNIST after
// one epoch with batch 32, Adam lr 0.001, eps 1e-4 (PyTorch: 88.4%), run
// from the shipped config file exactly as `numlab train --config
// tutorial_conv_fp32` does; with the tutorial's own lr 0.01 it reaches only
// about 85% after 5 epochs (PyTorch on this machine: ~85%).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "lab/trainer.hpp"

namespace lab {
namespace {

bool have_fashion_mnist() {
  return std::filesystem::exists(std::filesystem::path("/usr/share/datasets/fashion-mnist") /
                                 "train-images-idx3-ubyte.gz");
}

train_config tutorial_config() {
  train_config config;
  apply_config_file(config, std::filesystem::path(NUMLAB_SOURCE_DIR) / "configs" / "tutorial_conv_fp32.yml");
  return config;
}

TEST(TutorialConv, ReachesEightySevenPercentAfterOneEpoch) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "Fashion-MNIST not installed (Debian package dataset-fashion-mnist)";
  const train_config config = tutorial_config();
  ASSERT_EQ(config.model, "tutorial_conv");
  ASSERT_EQ(config.batch_size, 32u);
  ASSERT_EQ(config.epochs, 1u);
  ASSERT_FLOAT_EQ(config.lr, 0.001f);
  ASSERT_FLOAT_EQ(config.eps, 1e-4f);
  trainer t(config, load_data(config));
  const auto reports = t.run();
  ASSERT_EQ(reports.size(), 1u);
  const auto& r = reports.front();
  std::printf("tutorial_conv fp32: train loss %.4f, test accuracy %.2f%%, %.0f images/s\n", r.train_loss,
              100.0 * r.test.accuracy, r.images_per_second);
  EXPECT_EQ(t.data().test.size(), 10000u);
  EXPECT_GE(r.test.accuracy, 0.87);
}

TEST(TutorialConv, ReachesOnlyAboutEightyFivePercentWithTheTutorialsLearningRate) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "Fashion-MNIST not installed (Debian package dataset-fashion-mnist)";
  train_config config = tutorial_config();
  config.lr = 0.01f;
  config.epochs = 5;
  trainer t(config, load_data(config));
  const auto reports = t.run();
  ASSERT_EQ(reports.size(), 5u);
  for (const auto& r : reports)
    std::printf("tutorial_conv fp32 lr 0.01, epoch %zu: train loss %.4f, test accuracy %.2f%%\n", r.epoch,
                r.train_loss, 100.0 * r.test.accuracy);
  // Adam at lr 0.01 overshoots: below the 1-epoch lr 0.001 result, around 85%.
  EXPECT_NEAR(reports.back().test.accuracy, 0.85, 0.02);
}

}  // namespace
}  // namespace lab
