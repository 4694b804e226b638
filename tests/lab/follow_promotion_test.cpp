// "follow" ops (elementwise: ReLU, pooling, residual add) take the widest
// format of their inputs, as autocast promotes, whatever order the branches
// of a ResNet block run in.
#include <gtest/gtest.h>


#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/models.hpp"
#include "lab/precision_hook.hpp"
#include "lab/sequential.hpp"

namespace lab {
namespace {

// One forward of ResNet-8 on 1x8x8 images under fp16-mixed with the given
// per-layer formats. stage1.block1 has an identity shortcut (its main branch
// runs, then the add reads the block input); stage2.block1 has a projection
// shortcut that runs after the main branch.
std::unique_ptr<precision_hook> resnet_forward(const std::vector<std::pair<std::string, std::string>>& layer_formats) {
  model_spec spec;
  spec.name = "resnet";
  spec.height = spec.width = 8;
  spec.classes = 3;
  auto net = make_model(spec);
  rng init(7);
  net->initialise(init);
  precision_config c;
  c.preset = "fp16-mixed";
  for (const auto& [layer, f] : layer_formats) set_precision_value(c, "layers." + layer + ".precision", f, "test");
  auto hook = std::make_unique<precision_hook>(c.resolve(), 1);
  tensor x({2, 1, 8, 8}), y;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i) * 0.37f);
  net->forward(hook->context(), x, y);
  return hook;
}

std::optional<num::format> add_format(const std::string& block,
                                      const std::vector<std::pair<std::string, std::string>>& layer_formats) {
  return resnet_forward(layer_formats)->format_of({block, "residual_add", op_class::elementwise, "output"}, tensor_role::activation);
}

TEST(FollowPromotion, IdentityShortcutAddIsFp32WhenTheBlockInputIs) {
  // Main branch ends in fp16, the block input (stem.relu after the fp32
  // stem.bn) is fp32: the add is fp32. (The latest output was fp16.)
  EXPECT_EQ(add_format("stage1.block1", {{"stage1.block1.bn_b", "fp16"}}), std::nullopt);
  EXPECT_EQ(add_format("stage1.block1", {}), std::nullopt);
}

TEST(FollowPromotion, ProjectionShortcutRunningLastDoesNotDecide) {
  // Only the shortcut (which runs after the main branch) ends in fp16.
  EXPECT_EQ(add_format("stage2.block1", {{"stage2.block1.proj_bn", "fp16"}}), std::nullopt);
  // Only the main branch ends in fp16.
  EXPECT_EQ(add_format("stage2.block1", {{"stage2.block1.bn_b", "fp16"}}), std::nullopt);
}

TEST(FollowPromotion, BothBranchesInOneFormatKeepIt) {
  EXPECT_EQ(add_format("stage2.block1", {{"stage2.block1.bn_b", "fp16"}, {"stage2.block1.proj_bn", "fp16"}}),
            num::binary16);
}

TEST(FollowPromotion, TheFormatHoldingTheOtherWinsAndIncomparableOnesGiveFp32) {
  // fp16 holds every e4m3 value: fp16, in either branch order.
  EXPECT_EQ(add_format("stage2.block1", {{"stage2.block1.bn_b", "fp16"}, {"stage2.block1.proj_bn", "e4m3"}}),
            num::binary16);
  EXPECT_EQ(add_format("stage2.block1", {{"stage2.block1.bn_b", "e4m3"}, {"stage2.block1.proj_bn", "fp16"}}),
            num::binary16);
  // fp16 and bf16 hold neither the other: fp32, as torch.promote_types(half, bfloat16).
  EXPECT_EQ(add_format("stage2.block1", {{"stage2.block1.bn_b", "fp16"}, {"stage2.block1.proj_bn", "bf16"}}),
            std::nullopt);
}

TEST(FollowPromotion, SingleInputOpsFollowTheirOwnInputNotTheLatestOutput) {
  // stage1.block1.relu reads the add; relu_a reads bn_a (set to fp16).
  const auto hook = resnet_forward({{"stage1.block1.bn_a", "fp16"}});
  EXPECT_EQ(hook->format_of({"stage1.block1.relu_a", "relu", op_class::elementwise, "output"}, tensor_role::activation), num::binary16);
  EXPECT_EQ(hook->format_of({"stage1.block1.relu_a", "relu", op_class::elementwise, "grad_input"}, tensor_role::grad_input),
            num::binary16);
  EXPECT_EQ(hook->format_of({"stage1.block1.relu", "relu", op_class::elementwise, "output"}, tensor_role::activation), std::nullopt);
}

}  // namespace
}  // namespace lab
