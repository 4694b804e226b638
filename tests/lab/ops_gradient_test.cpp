// Every op's backward against central finite differences in fp64.
#include <gtest/gtest.h>

#include "gradient_check.hpp"
#include "lab/batch_norm.hpp"
#include "lab/conv2d.hpp"
#include "lab/dense.hpp"
#include "lab/dropout.hpp"
#include "lab/flatten.hpp"
#include "lab/models.hpp"
#include "lab/pooling.hpp"
#include "lab/relu.hpp"
#include "lab/residual.hpp"
#include "lab/sequential.hpp"

namespace lab {
namespace {

using testing::check_gradients;
using testing::random_input;
using testing::separated_input;

template <typename L>
void randomise(L& l, std::uint64_t seed) {
  rng gen(seed, 3);
  l.initialise(gen);
  for (auto* p : l.parameters()) testing::fill_uniform(p->value, gen, -0.5f, 0.5f);
}

TEST(OpsGradient, DenseWithBias) {
  dense l("fc", 7, 5, true);
  randomise(l, 1);
  check_gradients(l, random_input({3, 7}, 2), 3);
}

TEST(OpsGradient, DenseWithoutBias) {
  dense l("fc", 4, 6, false);
  randomise(l, 4);
  EXPECT_EQ(l.parameters().size(), 1u);
  check_gradients(l, random_input({2, 4}, 5), 6);
}

struct conv_case {
  std::size_t in_c, out_c, k, stride, h, w;
  padding_mode padding;
  bool bias;
};

class ConvGradient : public ::testing::TestWithParam<conv_case> {};

TEST_P(ConvGradient, MatchesFiniteDifferences) {
  const auto c = GetParam();
  conv2d l("conv", c.in_c, c.out_c, c.k, c.stride, c.padding, c.bias);
  randomise(l, 10 + c.k);
  check_gradients(l, random_input({2, c.in_c, c.h, c.w}, 11), 12);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvGradient,
    ::testing::Values(conv_case{2, 3, 3, 1, 5, 6, padding_mode::same, true},
                      conv_case{2, 3, 3, 1, 5, 6, padding_mode::valid, false},
                      conv_case{3, 2, 3, 2, 7, 6, padding_mode::same, false},
                      conv_case{2, 2, 5, 2, 9, 9, padding_mode::valid, true},
                      conv_case{3, 4, 1, 1, 4, 4, padding_mode::same, false},
                      conv_case{3, 4, 1, 2, 5, 5, padding_mode::same, true},
                      conv_case{1, 2, 4, 1, 6, 5, padding_mode::same, true}));

TEST(OpsGradient, Relu) {
  relu l("relu");
  check_gradients(l, random_input({2, 3, 4, 4}, 20), 21);
}

TEST(OpsGradient, MaxPoolValid) {
  max_pool2d l("pool", 2, 2);
  check_gradients(l, separated_input({2, 2, 6, 6}, 22), 23);
}

TEST(OpsGradient, MaxPoolOverlappingSame) {
  max_pool2d l("pool", 3, 2, padding_mode::same);
  check_gradients(l, separated_input({1, 2, 7, 7}, 24), 25);
}

TEST(OpsGradient, AvgPoolValid) {
  avg_pool2d l("pool", 2, 2);
  check_gradients(l, random_input({2, 2, 6, 6}, 26), 27);
}

TEST(OpsGradient, AvgPoolSame) {
  avg_pool2d l("pool", 3, 2, padding_mode::same);
  check_gradients(l, random_input({2, 2, 5, 5}, 28), 29);
}

TEST(OpsGradient, GlobalAvgPool) {
  global_avg_pool l("gap");
  check_gradients(l, random_input({2, 3, 4, 5}, 30), 31);
}

TEST(OpsGradient, BatchNormTraining4d) {
  batch_norm l("bn", 3);
  randomise(l, 32);
  check_gradients(l, random_input({4, 3, 3, 3}, 33), 34);
}

TEST(OpsGradient, BatchNormTraining2d) {
  batch_norm l("bn", 5);
  randomise(l, 35);
  check_gradients(l, random_input({6, 5}, 36), 37);
}

TEST(OpsGradient, BatchNormEval) {
  batch_norm l("bn", 3);
  randomise(l, 38);
  testing::gradient_check_options opt;
  opt.training = false;
  check_gradients(l, random_input({2, 3, 2, 2}, 39), 40, opt);
}

TEST(OpsGradient, Flatten) {
  flatten l("flatten");
  check_gradients(l, random_input({2, 3, 2, 2}, 41), 42);
}

TEST(OpsGradient, DropoutTraining) {
  dropout l("drop", 0.4f);
  check_gradients(l, random_input({3, 10}, 43), 44);
}

TEST(OpsGradient, ResidualIdentityShortcut) {
  residual l("block");
  l.main_branch().emplace<conv2d>("block.conv", 2, 2, 3, 1, padding_mode::same, false);
  l.main_branch().emplace<relu>("block.relu");
  randomise(l, 45);
  check_gradients(l, random_input({2, 2, 4, 4}, 46), 47);
}

TEST(OpsGradient, ResidualProjectionShortcut) {
  residual l("block");
  l.main_branch().emplace<conv2d>("block.conv", 2, 3, 3, 2, padding_mode::same, true);
  l.shortcut().emplace<conv2d>("block.proj", 2, 3, 1, 2, padding_mode::same, false);
  randomise(l, 48);
  check_gradients(l, random_input({2, 2, 5, 5}, 49), 50);
}

// A ResNet-shaped chain without ReLUs (a whole ResNet has too many kinks
// near zero after batch norm for finite differences to be meaningful):
// residual(conv-bn | proj-bn) -> bn -> global pool -> dense.
TEST(OpsGradient, ResidualBatchNormChain) {
  sequential net("chain");
  auto& block = net.emplace<residual>("block");
  block.main_branch().emplace<conv2d>("block.conv", 2, 4, 3, 2, padding_mode::same, false);
  block.main_branch().emplace<batch_norm>("block.bn", 4);
  block.shortcut().emplace<conv2d>("block.proj", 2, 4, 1, 2, padding_mode::same, false);
  block.shortcut().emplace<batch_norm>("block.proj_bn", 4);
  net.emplace<batch_norm>("bn", 4);
  net.emplace<global_avg_pool>("pool");
  net.emplace<dense>("logits", 4, 3);
  randomise(net, 51);
  check_gradients(net, random_input({4, 2, 6, 6}, 52), 53);
}

}  // namespace
}  // namespace lab
