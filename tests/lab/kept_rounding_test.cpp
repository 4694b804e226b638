// A policy's rounded copies of weights and matmul/conv inputs, reused in an
// op's backward (precision_hook::weight_again / operand_again), and inputs
// already held in the format not rounded at all (while nothing is counted):
// training gives the same weights and tallies, bit for bit, as a hook that
// rounds every time; a copy is handed back only for the same tensor at the
// same step with no update in between, and never after a rounding that
// trapped.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include <libnum/codec.hpp>
#include <libnum/convert.hpp>

#include "lab/dataset.hpp"
#include "lab/loss.hpp"
#include "lab/models.hpp"
#include "lab/optimizer.hpp"
#include "lab/precision_hook.hpp"

namespace lab {
namespace {

// Hands every call to `inner` but leaves weight_again / operand_again to
// tensor_hook's defaults, which call weight() / operand(): every backward
// rounds its weights and inputs anew. The reference path.
class rounds_every_time : public tensor_hook {
 public:
  explicit rounds_every_time(precision_hook& inner) : inner_(inner) {}
  void produce(const site& where, tensor_role role, std::span<float> values, unrounded_values u) override {
    inner_.produce(where, role, values, u);
  }
  void produce_from(const site& where, std::span<float> values,
                    std::span<const std::span<const float>> inputs) override {
    inner_.produce_from(where, values, inputs);
  }
  std::span<const float> weight(const site& where, std::span<const float> master, unrounded_values u) override {
    return inner_.weight(where, master, u);
  }
  void update(const site& where, std::span<float> weight, const weight_step& step) override {
    inner_.update(where, weight, step);
  }
  float scalar(const site& where, tensor_role role, double value) override { return inner_.scalar(where, role, value); }
  std::span<const float> operand(const site& where, tensor_role role, std::span<const float> values,
                                 unrounded_values u) override {
    return inner_.operand(where, role, values, u);
  }
  void add_scaled(const site& where, tensor_role role, std::span<const float> a, float s, std::span<const float> b,
                  std::span<float> out) override {
    inner_.add_scaled(where, role, a, s, b, out);
  }

 private:
  precision_hook& inner_;
};

// Stochastic rounding of activations, weights and gradients: a copy reused
// from another stream, or rounded twice where once was meant, would show.
precision_policy stochastic(const char* preset) {
  precision_policy p = precision_preset(preset);
  for (tensor_role r : {tensor_role::activation, tensor_role::weight, tensor_role::grad_input})
    p.rounding[static_cast<std::size_t>(r)].mode = num::rounding::stochastic;
  return p;
}

struct run {
  std::vector<float> weights;
  precision_tally tally;
};

// `steps` Adam steps of `spec` on one synthetic batch under `policy`, with
// the hook itself (reusing its copies) or behind rounds_every_time.
// Counting conversions makes the hook round even inputs already in the
// format (an identity rounding still counts subnormal results).
run train(const model_spec& spec, const precision_policy& policy, bool reuse, std::size_t steps, bool counting = true) {
  dataset d = make_synthetic(4, spec.channels, spec.height, spec.width, spec.classes, 1.0f, 3);
  auto net = make_model(spec);
  rng init(5);
  net->initialise(init);
  const auto params = net->parameters();
  precision_hook hook(policy, 11);
  hook.set_counting(counting);
  hook.store_parameters(params);
  rounds_every_time reference(hook);
  const op_context ctx = reuse ? hook.context() : op_context(&reference, hook.engine());
  optimizer opt(optimizer_settings{}, params);
  tensor logits, grad;
  for (std::size_t step = 0; step < steps; ++step) {
    hook.begin_step(step);
    net->forward(ctx, d.images, logits);
    softmax_cross_entropy(ctx, logits, d.labels, 0.0f, 64.0f, grad);
    net->backward(ctx, d.images, logits, grad, nullptr);
    hook.end_step();
    for (auto* p : params)
      for (auto& g : p->grad.values()) g /= 64.0f;
    opt.step(ctx, 1e-2);
    zero_gradients(params);
  }
  run r;
  for (auto* p : params) r.weights.insert(r.weights.end(), p->value.values().begin(), p->value.values().end());
  r.tally = hook.tally();
  return r;
}

void expect_same_runs(const model_spec& spec, const char* preset) {
  const precision_policy policy = stochastic(preset);
  const run kept = train(spec, policy, true, 4), again = train(spec, policy, false, 4);
  ASSERT_EQ(kept.weights.size(), again.weights.size());
  const run first = train(spec, policy, true, 1);
  std::size_t moved = 0;
  for (std::size_t i = 0; i < kept.weights.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(kept.weights[i]), std::bit_cast<std::uint32_t>(again.weights[i]))
        << spec.name << " " << preset << " weight [" << i << "]";
    moved += kept.weights[i] != first.weights[i] ? 1 : 0;
  }
  EXPECT_GT(moved, kept.weights.size() / 2) << "the steps after the first changed the weights";
  for (std::size_t r = 0; r < tensor_role_count; ++r) {
    EXPECT_EQ(kept.tally.elements[r], again.tally.elements[r]) << role_name(static_cast<tensor_role>(r));
    EXPECT_TRUE(kept.tally.by_role[r] == again.tally.by_role[r]) << role_name(static_cast<tensor_role>(r));
  }
  EXPECT_GT(kept.tally.by_role[static_cast<std::size_t>(tensor_role::activation)].inexact, 0u);
  EXPECT_EQ(kept.tally.updates.swamped, again.tally.updates.swamped);
  EXPECT_EQ(kept.tally.updates.applied, again.tally.updates.applied);
  // Not counting: inputs in the format are not rounded, copies reused. The
  // same weights, and every rounding tallied as one.
  const run uncounted = train(spec, policy, true, 4, false);
  for (std::size_t i = 0; i < kept.weights.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(uncounted.weights[i]), std::bit_cast<std::uint32_t>(again.weights[i]))
        << spec.name << " " << preset << " not counting, weight [" << i << "]";
  EXPECT_EQ(uncounted.tally.elements, again.tally.elements);
}

TEST(KeptRounding, TrainingGivesTheWeightsAndTalliesOfRoundingEveryTime) {
  model_spec lenet;
  lenet.name = "lenet5";
  model_spec conv;
  conv.height = conv.width = 8;
  conv.classes = 4;
  model_spec resnet;  // batch norm in fp32: the convolutions' inputs are not in fp16
  resnet.name = "resnet";
  resnet.channels = 3;
  resnet.height = resnet.width = 32;
  for (const model_spec& spec : {lenet, conv, resnet}) {
    expect_same_runs(spec, "fp16-mixed");  // rounded weight copies and inputs kept
    expect_same_runs(spec, "bf16");        // weights stored in bf16: inputs kept
  }
}

float fp16_of(float x) { return num::to_float(num::binary16, num::from_float(num::binary16, x, {}).bits); }

const site input_site{"fc", "dense", op_class::matmul, "input"};
const site kernel_site{"fc", "dense", op_class::matmul, "kernel"};

TEST(KeptRounding, OperandAgainHandsBackTheForwardsCopyOfTheSameTensorAtTheSameStep) {
  precision_hook hook(precision_preset("fp16-mixed"), 1);
  std::vector<float> x{0.1f, 1.0f / 3.0f, 70000.0f, -2e-8f};
  hook.begin_step(3);
  const auto first = hook.operand(input_site, tensor_role::activation, x, std::nullopt);
  const std::vector<float> rounded(first.begin(), first.end());
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(rounded[i], fp16_of(x[i])) << i;
  const std::uint64_t elements = hook.tally().elements[0];
  // The caller breaks its promise here (x changes): what comes back shows
  // that the forward's copy was handed back, not a new rounding of x.
  x[0] = 5.0f;
  const auto again = hook.operand_again(input_site, tensor_role::activation, x);
  EXPECT_EQ(std::vector<float>(again.begin(), again.end()), rounded);
  EXPECT_EQ(hook.tally().elements[0], 2 * elements);  // tallied as a rounding
  // Another step: rounded anew.
  hook.begin_step(4);
  EXPECT_EQ(hook.operand_again(input_site, tensor_role::activation, x)[0], 5.0f);
  // Another tensor of the same size at the same step: rounded anew.
  const std::vector<float> y{0.25f, 0.5f, 0.75f, 1.0f};
  const auto other = hook.operand_again(input_site, tensor_role::activation, y);
  EXPECT_EQ(std::vector<float>(other.begin(), other.end()), y);
}

TEST(KeptRounding, AnInputTheHookHoldsInTheFormatIsNotCopied) {
  // An fp16 dense layer's output (rounded in place when produced) is in
  // fp16: the next dense layer computes with it as it is. A tensor the hook
  // has not seen produced is rounded into a copy.
  precision_hook hook(precision_preset("fp16-mixed"), 1);
  hook.begin_step(0);
  std::vector<float> x{0.1f, -0.3f, 1e-6f, 2.0f};
  const auto xs = hook.operand(input_site, tensor_role::activation, x, std::nullopt);
  EXPECT_NE(xs.data(), x.data());
  std::vector<float> y(xs.begin(), xs.end());
  hook.produce(site{"fc0", "dense", op_class::matmul, "output"}, tensor_role::activation, y, std::nullopt);
  const auto ys = hook.operand(input_site, tensor_role::activation, y, std::nullopt);
  EXPECT_EQ(ys.data(), y.data());
  EXPECT_EQ(hook.operand_again(input_site, tensor_role::activation, y).data(), y.data());
  EXPECT_EQ(hook.tally().elements[0], 4u * 4u);  // x, y (produced), y, y again
  // Counting: rounded like any other input.
  hook.set_counting(true);
  EXPECT_NE(hook.operand(input_site, tensor_role::activation, y, std::nullopt).data(), y.data());
}

TEST(KeptRounding, AWeightCopyIsNotReusedAfterAnUpdate) {
  precision_hook hook(precision_preset("fp16-mixed"), 1);
  std::vector<float> master{0.1f, 0.2f, 0.3f};
  hook.begin_step(0);
  (void)hook.weight(kernel_site, master, std::nullopt);
  const std::vector<float> d{1.0f / 3.0f, 1.0f / 3.0f, 1.0f / 3.0f};
  hook.update(kernel_site, master, {d, 1.0f});
  const auto w = hook.weight_again(kernel_site, master);
  for (std::size_t i = 0; i < master.size(); ++i) EXPECT_EQ(w[i], fp16_of(master[i])) << i;
}

TEST(KeptRounding, ARoundingThatTrappedIsRoundedAndTrapsAgain) {
  precision_policy p = precision_preset("fp16-mixed");
  p.traps = num::flags::overflow;
  precision_hook hook(p, 1);
  const std::vector<float> x{1.0f, 1e6f};
  hook.begin_step(0);
  EXPECT_THROW((void)hook.operand(input_site, tensor_role::activation, x, std::nullopt), precision_trap);
  EXPECT_THROW((void)hook.operand_again(input_site, tensor_role::activation, x), precision_trap);
}

}  // namespace
}  // namespace lab
