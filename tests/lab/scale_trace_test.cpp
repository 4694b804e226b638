// The tracer's report of a scaled recipe's quantized GEMM operands
// (scale_trace.hpp): statistics against num::compute_scaled_stats called here
// on the layer's own tensors, amax, scale and history against values worked
// out here, and the sink's cadence.
#include <gtest/gtest.h>

#include <libnum/hooks.hpp>
#include <libnum/scaled_stats.hpp>
#include <libnum/scaled_tensor_scale.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "lab/dense.hpp"
#include "lab/precision_hook.hpp"
#include "lab/run_tracer.hpp"
#include "lab/scale_trace.hpp"
#include "scaled_test_support.hpp"

namespace lab {
namespace {

constexpr std::size_t batch_rows = 40, in_features = 70, out_features = 24;

class collecting_sink : public scale_sink {
 public:
  bool wants(std::string_view layer, gemm_operand, std::uint64_t step) const override {
    return layer == "d" && step % 2 == 0;
  }
  void on_scale(const scale_observation& o) override { seen.push_back(o); }
  std::vector<scale_observation> seen;
};

using scaled_test::normal_values;

float largest_abs(const std::vector<float>& x) {
  float m = 0.0f;
  for (float v : x) m = std::max(m, std::fabs(v));
  return m;
}

struct traced_layer {
  explicit traced_layer(const std::string& preset)
      : policy(precision_preset(preset)), tracer(hooks), hook(policy, 9, &tracer) {
    tracer.set_scale_sink(&sink);
  }
  // One forward and backward at `step` on x (the same weight and gradient each time).
  void step(std::uint64_t step, const std::vector<float>& xv) {
    tensor x({batch_rows, in_features}), y, dy({batch_rows, out_features}), dx;
    std::copy(xv.begin(), xv.end(), x.values().begin());
    std::copy(dyv.begin(), dyv.end(), dy.values().begin());
    std::copy(wv.begin(), wv.end(), d.parameters().front()->value.values().begin());
    tracer.begin_step(step);
    hook.begin_step(step);
    d.forward(hook.context(), x, y);
    d.backward(hook.context(), x, y, dy, &dx);
    hook.end_step();
  }
  const scale_observation& find(std::uint64_t step, std::string_view gemm, gemm_operand operand) const {
    for (const auto& o : sink.seen)
      if (o.step == step && o.gemm == gemm && o.operand == operand) return o;
    throw std::runtime_error("no observation");
  }

  precision_policy policy;
  num::stats_hooks hooks;
  run_tracer tracer;
  precision_hook hook;
  collecting_sink sink;
  dense d{"d", in_features, out_features};
  std::vector<float> wv = normal_values(out_features * in_features, 2, 0.1f);
  std::vector<float> dyv = normal_values(batch_rows * out_features, 3, 1e-4f);
};

TEST(ScaleTrace, MxOperandStatisticsAreLibnumsOnTheOperandAndFollowTheSinksCadence) {
  traced_layer t("mxfp8");
  const auto x = normal_values(batch_rows * in_features, 1, 1.0f);
  t.step(0, x);
  t.step(1, x);
  ASSERT_EQ(t.sink.seen.size(), 6u);  // step 1 is not wanted
  const auto& o = t.find(0, "forward", gemm_operand::activation);
  num::scaled_options options;
  options.format = *num::find_scaled_format("mxfp8");
  const auto expected = num::compute_scaled_stats(x, {batch_rows, in_features}, options);
  EXPECT_EQ(o.stats.counts, expected.counts);
  EXPECT_EQ(o.stats.scale_binades, expected.scale_binades);
  EXPECT_EQ(o.stats.noise_energy, expected.noise_energy);
  EXPECT_GT(o.stats.noise_energy, 0.0);
  EXPECT_EQ(o.stats.counts.blocks, batch_rows * 3);  // 70 = 32 + 32 + 6 along each row
  EXPECT_EQ(o.amax, largest_abs(x));
  EXPECT_FALSE(o.scale.has_value());
  EXPECT_TRUE(o.amax_history.empty());
  EXPECT_EQ(t.find(0, "dgrad", gemm_operand::gradient).stats.counts.elements, batch_rows * out_features);
  // The policy's tally sums every quantization's counts, traced or not: the
  // input in forward and wgrad at both steps.
  num::scaled_options along_batch = options;
  std::vector<float> xt(x.size());
  for (std::size_t i = 0; i < batch_rows; ++i)
    for (std::size_t f = 0; f < in_features; ++f) xt[f * batch_rows + i] = x[i * in_features + f];
  const auto wgrad = num::compute_scaled_stats(xt, {in_features, batch_rows}, along_batch);
  num::scaled_counts expected_tally;
  for (int step = 0; step < 2; ++step) {
    expected_tally += expected.counts;
    expected_tally += wgrad.counts;
  }
  EXPECT_EQ(t.hook.tally().scaled[static_cast<std::size_t>(gemm_operand::activation)], expected_tally);
}

TEST(ScaleTrace, DelayedScalingReportsTheScaleItUsedAndTheHistoryMostRecentFirst) {
  traced_layer t("fp8-delayed");
  const auto x0 = normal_values(batch_rows * in_features, 1, 1.0f);
  auto x1 = x0, x2 = x0;
  for (auto& v : x1) v *= 4.0f;
  for (auto& v : x2) v *= 0.5f;
  t.step(0, x0);
  t.step(1, x1);
  t.step(2, x2);
  const auto& first = t.find(0, "forward", gemm_operand::activation);
  EXPECT_EQ(first.scale, 1.0);  // an empty history: TE's initial scale
  EXPECT_TRUE(first.amax_history.empty());
  const auto& o = t.find(2, "forward", gemm_operand::activation);
  const std::vector<double> history{largest_abs(x1), largest_abs(x0)};
  EXPECT_EQ(o.amax_history, history);
  EXPECT_EQ(o.amax, largest_abs(x2));
  EXPECT_EQ(o.scale, num::amax_scale(largest_abs(x1), num::element_type::e4m3, 0));  // max of the history
  num::scaled_options options;
  options.format = {num::element_type::e4m3, num::scale_rule::fp32_given, num::whole_tensor_block};
  options.given_scale = static_cast<float>(*o.scale);
  const auto expected = num::compute_scaled_stats(x2, {batch_rows, in_features}, options);
  // libnum counts a given scale's flushes as underflow to zero; the recipe
  // counts them as block underflow where the element's own fp32_amax scale
  // holds it: every one of these normal values (per_tensor_flush_counts_test).
  num::scaled_counts want = expected.counts;
  want.block_underflow += want.underflow_to_zero;
  want.underflow_to_zero = 0;
  EXPECT_GT(want.block_underflow, 0u);
  EXPECT_EQ(o.stats.counts, want);
  EXPECT_EQ(o.stats.signal_energy, expected.signal_energy);
  EXPECT_EQ(o.stats.noise_energy, expected.noise_energy);
}

}  // namespace
}  // namespace lab
