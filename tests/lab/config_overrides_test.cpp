// Precision keys resolve in one pass whatever order they were set in, an
// explicit key wins over the default a preset-style key (loss_scaling) sets,
// and a key set twice is held (and printed) once.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "lab/precision_policy.hpp"

namespace lab {
namespace {

using key_values = std::vector<std::pair<std::string, std::string>>;

precision_policy resolved(const std::string& preset, const key_values& keys) {
  precision_config c;
  c.preset = preset;
  for (const auto& [k, v] : keys) set_precision_value(c, k, v, "test");
  return c.resolve();
}

TEST(ConfigOverrides, LossScalingKeysResolveTheSameInEveryOrder) {
  key_values keys = {{"loss_scale", "1048576"}, {"loss_scale_interval", "100"}, {"loss_scaling", "dynamic"}};
  std::sort(keys.begin(), keys.end());
  int orders = 0;
  do {
    const auto p = resolved("fp16-mixed", keys);
    EXPECT_EQ(p.scaling.mode, loss_scaling::kind::dynamic) << keys[0].first << ", " << keys[1].first;
    EXPECT_EQ(p.scaling.scale, 1048576.0) << keys[0].first << ", " << keys[1].first;
    EXPECT_EQ(p.scaling.growth_interval, 100u) << keys[0].first << ", " << keys[1].first;
    ++orders;
  } while (std::next_permutation(keys.begin(), keys.end()));
  EXPECT_EQ(orders, 6);
}

TEST(ConfigOverrides, ExplicitKeysWinOverThePresetStyleKeysDefaults) {
  // mindspore sets scale 2^24, interval 2000, minimum 1; each explicit key wins.
  for (const bool preset_last : {false, true}) {
    key_values keys = {{"loss_scale_min", "4"}, {"loss_scale", "512"}};
    keys.insert(preset_last ? keys.end() : keys.begin(), {"loss_scaling", "mindspore"});
    const auto p = resolved("fp16-mixed", keys);
    EXPECT_EQ(p.scaling.min_scale, 4.0) << preset_last;
    EXPECT_EQ(p.scaling.scale, 512.0) << preset_last;
    EXPECT_EQ(p.scaling.growth_interval, 2000u) << preset_last;  // the preset's, not overridden
    EXPECT_TRUE(p.scaling.mindspore_window) << preset_last;
  }
  // precision_format before or after a layer asking for "low": the layer gets it.
  for (const bool format_last : {false, true}) {
    key_values keys = {{"layers.fc.precision", "low"}};
    keys.insert(format_last ? keys.end() : keys.begin(), {"precision_format", "bf16"});
    EXPECT_EQ(resolved("fp16-mixed", keys).layers.at("fc"), num::bfloat16_format) << format_last;
  }
  // rounding (every role) and rounding.<role> (one role), either order.
  for (const bool general_last : {false, true}) {
    key_values keys = {{"rounding.update", "sr"}};
    keys.insert(general_last ? keys.end() : keys.begin(), {"rounding", "rz"});
    const auto p = resolved("fp16", keys);
    EXPECT_EQ(p.spec(tensor_role::update).mode, num::rounding::stochastic) << general_last;
    EXPECT_EQ(p.spec(tensor_role::activation).mode, num::rounding::toward_zero) << general_last;
  }
}

TEST(ConfigOverrides, AKeySetTwiceIsHeldAndPrintedOnce) {
  precision_config c;
  c.preset = "fp16-mixed";
  set_precision_value(c, "loss_scaling", "static", "file");
  set_precision_value(c, "loss_scale", "256", "file");
  set_precision_value(c, "loss_scaling", "dynamic", "--loss-scaling");
  set_precision_value(c, "loss_scale", "1048576", "--loss-scale");
  EXPECT_EQ(precision_yaml(c), "precision: fp16-mixed\nloss_scaling: dynamic\nloss_scale: 1048576\n");
  EXPECT_EQ(c.resolve().scaling.scale, 1048576.0);
}

}  // namespace
}  // namespace lab
