// `numlab train` as a child process: bad input exits with code 2 and one
// clear message naming what and where; a tiny synthetic run succeeds.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "temp_dir.hpp"

namespace {

struct outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

outcome run_numlab(const std::string& args) {
  outcome r;
  if (!std::filesystem::exists(NUMLAB_BINARY)) {
    ADD_FAILURE() << NUMLAB_BINARY << " does not exist; build the numlab target first";
    return r;
  }
  const std::string command = std::string("cd ") + NUMLAB_SOURCE_DIR + " && " + NUMLAB_BINARY + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) r.output += buffer.data();
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

void expect_bad_input(const std::string& args, const std::string& mention) {
  const outcome r = run_numlab(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(mention), std::string::npos) << args << "\n" << r.output;
}

const std::string tiny = "--dataset synthetic --model mlp --hidden 16 --train-limit 64 --test-limit 32 --batch-size 16";

TEST(TrainCli, UnknownConfigName) { expect_bad_input("train --config no_such_config", "no_such_config"); }

TEST(TrainCli, UnknownKeyInConfigFileNamesFileAndLine) {
  lab::testing::temp_dir dir;
  const auto file = dir / "bad.yml";
  std::ofstream(file) << "model: mlp\nbatch_size: 8\nbogus_key: 3\n";
  expect_bad_input("train --config " + file.string(), "bad.yml:3: unknown config key 'bogus_key'");
}

TEST(TrainCli, BadValueNamesTheOption) {
  expect_bad_input("train " + tiny + " --lr fast", "--lr: key 'lr': 'fast' is not a finite number");
  expect_bad_input("train " + tiny + " --optimizer lion", "one of: sgd, adam, adamw");
}

TEST(TrainCli, UnknownCommandLineKey) { expect_bad_input("train " + tiny + " --bogus-key 3", "--bogus-key"); }

TEST(TrainCli, MissingDataFolder) {
  expect_bad_input("train --config tutorial_conv_fp32 --data-dir /nonexistent/fmnist",
                   "/nonexistent/fmnist/train-images-idx3-ubyte.gz: file not found");
}

TEST(TrainCli, ImpossibleShape) {
  expect_bad_input("train " + tiny + " --model resnet --depth 10", "depth must be 6N+2");
}

TEST(TrainCli, CorruptDataFile) {
  lab::testing::temp_dir dir;
  for (const char* name : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                           "t10k-labels-idx1-ubyte"})
    std::ofstream(dir / name) << "not an idx file";
  expect_bad_input("train --config tutorial_conv_fp32 --data-dir " + dir.path().string(),
                   "train-images-idx3-ubyte: not an IDX file");
}

TEST(TrainCli, OverridesReachTheConfig) {
  const outcome r = run_numlab("train --config tutorial_conv_fp32 --batch-size 64 --epochs 2 --lr 0.01 --print-config");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("batch_size: 64\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("epochs: 2\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("lr: 0.01\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("eps: 0.0001\n"), std::string::npos) << r.output;
}

// Each line's key, in order.
std::vector<std::string> keys_of(const std::string& yaml) {
  std::vector<std::string> keys;
  std::istringstream in(yaml);
  for (std::string line; std::getline(in, line);)
    if (const auto colon = line.find(':'); colon != std::string::npos) keys.push_back(line.substr(0, colon));
  return keys;
}

TEST(TrainCli, LossScalingOverridesStickAndEachKeyPrintsOnce) {
  // The config file says static 256; the command line asks for dynamic 2^20
  // with interval 100 (options parsed in any order).
  const std::string overrides = "--loss-scale-interval 100 --loss-scale 1048576 --loss-scaling dynamic";
  const outcome r = run_numlab("train --config tutorial_conv_fp16_mixed " + overrides + " --print-config");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("loss_scaling: dynamic\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("loss_scale: 1048576\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("loss_scale_interval: 100\n"), std::string::npos) << r.output;
  auto keys = keys_of(r.output);
  const std::size_t all = keys.size();
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(std::unique(keys.begin(), keys.end()) - keys.begin(), static_cast<std::ptrdiff_t>(all)) << r.output;
}

TEST(TrainCli, PrintedConfigReadsBackThroughConfigToTheSameValues) {
  lab::testing::temp_dir dir;
  const outcome first = run_numlab(
      "train --config tutorial_conv_fp16_mixed --loss-scaling mindspore --loss-scale-min 4 --rounding sr "
      "--rounding-bits 12 --autocast.norm low --batch-size 48 --print-config");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const auto file = dir / "printed.yml";
  std::ofstream(file) << first.output;
  const outcome second = run_numlab("train --config " + file.string() + " --print-config");
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(second.output, first.output);
}

// Real-valued keys come back exactly as typed: each value below needs 16
// or 17 significant digits (the shortest decimals of their doubles, as
// Python's repr prints them), more than a float holds.
TEST(TrainCli, PrintedConfigKeepsEveryDigitOfRealValues) {
  lab::testing::temp_dir dir;
  const std::vector<std::pair<std::string, std::string>> typed = {
      {"lr", "0.0012345678901234567"}, {"beta2", "0.9990000000000001"}, {"weight_decay", "0.30000000000000004"}};
  std::string args = "train " + tiny + " --optimizer adamw";
  for (const auto& [key, value] : typed) {
    std::string flag = key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    args += " --" + flag + " " + value;
  }
  const outcome first = run_numlab(args + " --print-config");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  for (const auto& [key, value] : typed)
    EXPECT_NE(first.output.find("\n" + key + ": " + value + "\n"), std::string::npos) << key << "\n" << first.output;
  const auto file = dir / "printed.yml";
  std::ofstream(file) << first.output;
  const outcome second = run_numlab("train --config " + file.string() + " --print-config");
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(second.output, first.output);
  // Dropout computes in fp32, where 1 - 1e-11 is 1: refused as a dropout of 1 is.
  expect_bad_input("train " + tiny + " --dropout 0.99999999999", "config: dropout must be in [0, 1)");
}

TEST(TrainCli, TinySyntheticRunPrintsEpochLinesAndAccuracy) {
  const outcome r = run_numlab("train " + tiny + " --epochs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("epoch 1/2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("epoch 2/2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("test accuracy"), std::string::npos) << r.output;
  // stderr is a pipe here, not a terminal: no progress bar.
  EXPECT_EQ(r.output.find('\r'), std::string::npos);
}

// Every scaled-format recipe trains from its shipped config and from the
// command line (two steps of a tiny synthetic run each).
TEST(TrainCli, ScaledRecipesTrainFromConfigAndCommandLine) {
  const std::string tiny_conv = "--dataset synthetic --train-limit 32 --test-limit 16 --batch-size 16 --max-steps 2";
  for (const std::string recipe : {"fp8-current", "fp8-delayed", "fp8-blockwise", "mxfp8", "mxfp4", "nvfp4"}) {
    std::string config = "tutorial_conv_" + recipe;
    std::replace(config.begin(), config.end(), '-', '_');
    const outcome from_config = run_numlab("train --config " + config + " " + tiny_conv);
    EXPECT_EQ(from_config.exit_code, 0) << recipe << "\n" << from_config.output;
    EXPECT_NE(from_config.output.find("test accuracy"), std::string::npos) << from_config.output;
    const outcome from_flags = run_numlab("train " + tiny + " --precision " + recipe + " --scaled.margin 1");
    EXPECT_EQ(from_flags.exit_code, 0) << recipe << "\n" << from_flags.output;
  }
  expect_bad_input("train " + tiny + " --precision mxfp8 --autocast.norm scaled", "fp32, low or follow");
}

}  // namespace
