// `numlab train` as a child process: bad input exits with code 2 and one
// clear message naming what and where; a tiny synthetic run succeeds.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

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

TEST(TrainCli, TinySyntheticRunPrintsEpochLinesAndAccuracy) {
  const outcome r = run_numlab("train " + tiny + " --epochs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("epoch 1/2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("epoch 2/2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("test accuracy"), std::string::npos) << r.output;
  // stderr is a pipe here, not a terminal: no progress bar.
  EXPECT_EQ(r.output.find('\r'), std::string::npos);
}

}  // namespace
