// precision_hook's first NaN / infinity: found by the rounding pass of a
// rounded tensor (array_options::want_non_finite), by a scan of a tensor held
// in fp32, and by the update's own loop; each origin names its tensor's
// position, count and size. Updates of a small parameter after a large one
// (which reuse the large one's scratch) touch and report only their own
// elements.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "lab/precision_hook.hpp"

namespace lab {
namespace {

constexpr float infinity = std::numeric_limits<float>::infinity();

TEST(NonFiniteLocator, RoundedTensorsReportTheirFirstInfinityAndNan) {
  precision_hook hook(precision_preset("fp16"), 1);
  hook.begin_step(4);
  std::vector<float> a(40, 0.25f), b(40, 0.5f);
  a[37] = 1e6f;  // finite in fp32, an overflow to +inf in fp16
  hook.produce({"fc1", "dense", op_class::matmul, "output"}, tensor_role::activation, a, std::nullopt);
  ASSERT_TRUE(hook.first_infinity().has_value());
  EXPECT_FALSE(hook.first_nan().has_value());
  const non_finite_origin& inf = *hook.first_infinity();
  EXPECT_EQ(inf.layer, "fc1");
  EXPECT_EQ(inf.role, tensor_role::activation);
  EXPECT_EQ(inf.step, 4u);
  EXPECT_EQ(inf.index, 37u);
  EXPECT_EQ(inf.count, 1u);
  EXPECT_EQ(inf.size, 40u);

  b[2] = b[9] = std::nanf("");
  hook.produce({"fc2", "dense", op_class::matmul, "output"}, tensor_role::activation, b, std::nullopt);
  ASSERT_TRUE(hook.first_nan().has_value());
  EXPECT_EQ(hook.first_nan()->layer, "fc2");
  EXPECT_EQ(hook.first_nan()->index, 2u);
  EXPECT_EQ(hook.first_nan()->count, 2u);
  EXPECT_EQ(hook.first_infinity()->layer, "fc1");  // the first stays
}

TEST(NonFiniteLocator, TensorsHeldInFp32AreLookedAtToo) {
  precision_hook hook(precision_preset("fp16-mixed"), 1);
  std::vector<float> loss(5, 1.0f);
  loss[4] = -infinity;
  hook.produce({"loss", "softmax_cross_entropy", op_class::loss, "loss"}, tensor_role::activation, loss, std::nullopt);
  ASSERT_TRUE(hook.first_infinity().has_value());
  EXPECT_EQ(hook.first_infinity()->layer, "loss");
  EXPECT_EQ(hook.first_infinity()->index, 4u);
}

// A large update first, then a 3-element one inside a longer buffer: the
// small update writes its 3 elements only, its tallies count 3, and its
// infinity is reported in a tensor of size 3.
void small_update_after_large(const char* preset, float big) {
  precision_hook hook(precision_preset(preset), 1);
  const site where{"fc", "dense", op_class::matmul, "kernel"};
  std::vector<float> large(100, 1.0f), large_delta(100, 0.25f);
  hook.update(where, large, {large_delta});
  for (const float w : large) ASSERT_EQ(w, 1.25f);

  std::vector<float> buffer(100, 7.0f);
  buffer[0] = 1.0f;
  buffer[1] = 2.0f;
  buffer[2] = big;
  const std::vector<float> delta = {0.5f, 0.0f, big};
  hook.update(where, std::span<float>(buffer).first(3), {delta});
  EXPECT_EQ(buffer[0], 1.5f);
  EXPECT_EQ(buffer[1], 2.0f);
  EXPECT_EQ(buffer[2], infinity);
  for (std::size_t i = 3; i < buffer.size(); ++i) ASSERT_EQ(buffer[i], 7.0f) << "element " << i << " written";
  EXPECT_EQ(hook.tally().updates.elements, 103u);
  EXPECT_EQ(hook.tally().updates.nonzero_delta, 102u);
  ASSERT_TRUE(hook.first_infinity().has_value());
  EXPECT_EQ(hook.first_infinity()->role, tensor_role::update);
  EXPECT_EQ(hook.first_infinity()->size, 3u);
  EXPECT_EQ(hook.first_infinity()->index, 2u);
  EXPECT_FALSE(hook.first_nan().has_value());
}

TEST(NonFiniteLocator, SmallUpdateAfterALargeOneStoredInTheFormat) { small_update_after_large("fp16", 65504.0f); }

TEST(NonFiniteLocator, SmallUpdateAfterALargeOneOnFp32Masters) { small_update_after_large("fp16-mixed", 3e38f); }

}  // namespace
}  // namespace lab
