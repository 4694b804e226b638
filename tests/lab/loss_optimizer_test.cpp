// Losses, optimizers and schedules against hand-derived values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>
#include <vector>

#include "lab/errors.hpp"
#include "lab/loss.hpp"
#include "lab/optimizer.hpp"
#include "lab/schedule.hpp"

namespace lab {
namespace {

TEST(Loss, SoftmaxCrossEntropyOfUniformLogitsIsLogK) {
  tensor logits({2, 4});
  tensor grad;
  const std::int32_t labels[] = {1, 3};
  op_context ctx;
  const float loss = softmax_cross_entropy(ctx, logits, labels, 0.0f, 1.0f, grad);
  EXPECT_NEAR(loss, std::log(4.0), 1e-6);
  // d/dz = (softmax - onehot) / N = (0.25 - [j == label]) / 2
  EXPECT_NEAR(grad[0], 0.125, 1e-7);
  EXPECT_NEAR(grad[1], -0.375, 1e-7);
  EXPECT_NEAR(grad[7], -0.375, 1e-7);
}

TEST(Loss, LabelSmoothingMatchesHandValue) {
  // logits (0, ln 3): p = (1/4, 3/4); smoothing 0.2 over 2 classes, label 1:
  // q = (0.1, 0.9); loss = -(0.1 ln 0.25 + 0.9 ln 0.75); grad = p - q.
  tensor logits({1, 2});
  logits[1] = static_cast<float>(std::log(3.0));
  tensor grad;
  const std::int32_t labels[] = {1};
  op_context ctx;
  const float loss = softmax_cross_entropy(ctx, logits, labels, 0.2f, 1.0f, grad);
  EXPECT_NEAR(loss, -(0.1 * std::log(0.25) + 0.9 * std::log(0.75)), 1e-6);
  EXPECT_NEAR(grad[0], 0.15, 1e-6);
  EXPECT_NEAR(grad[1], -0.15, 1e-6);
}

TEST(Loss, CrossEntropyRejectsOutOfRangeLabel) {
  tensor logits({1, 3}), grad;
  const std::int32_t labels[] = {3};
  op_context ctx;
  EXPECT_THROW(softmax_cross_entropy(ctx, logits, labels, 0.0f, 1.0f, grad), input_error);
}

TEST(Loss, MeanSquaredError) {
  tensor pred({1, 2}), target({1, 2}), grad;
  pred[0] = 1.0f;
  pred[1] = -2.0f;
  target[1] = 1.0f;
  op_context ctx;
  // ((1)^2 + (-3)^2) / 2 = 5; grad = 2 d / 2
  EXPECT_FLOAT_EQ(mean_squared_error(ctx, pred, target, 1.0f, grad), 5.0f);
  EXPECT_FLOAT_EQ(grad[0], 1.0f);
  EXPECT_FLOAT_EQ(grad[1], -3.0f);
}

TEST(Loss, ClassificationLossMseUsesOneHotTargets) {
  tensor logits({2, 2}), grad;
  logits[0] = 0.5f;   // label 1: target (0, 1), differences 0.5, -1.5
  logits[1] = -0.5f;
  logits[2] = 2.0f;   // label 0: target (1, 0), differences 1, 3
  logits[3] = 3.0f;
  const std::int32_t labels[] = {1, 0};
  op_context ctx;
  // (0.25 + 2.25 + 1 + 9) / 4 = 3.125; grad = grad_scale * 2 d / 4 with grad_scale 2.
  EXPECT_EQ(classification_loss(ctx, loss_kind::mse, logits, labels, 0.1f, 2.0f, grad), 3.125f);
  EXPECT_EQ(grad[0], 0.5f);
  EXPECT_EQ(grad[1], -1.5f);
  EXPECT_EQ(grad[2], 1.0f);
  EXPECT_EQ(grad[3], 3.0f);
  const std::int32_t outside[] = {1, 2};
  EXPECT_THROW(classification_loss(ctx, loss_kind::mse, logits, outside, 0.0f, 1.0f, grad), input_error);
  EXPECT_EQ(loss_kind_named("mse"), loss_kind::mse);
  EXPECT_EQ(loss_kind_named("cross_entropy"), loss_kind::cross_entropy);
  EXPECT_THROW(loss_kind_named("hinge"), input_error);
}

TEST(Loss, ClassificationLossCrossEntropyOfUniformLogitsIsLogK) {
  tensor logits({1, 4}), grad;
  const std::int32_t labels[] = {2};
  op_context ctx;
  // softmax of equal logits is 1/4 each: loss log 4, grad (1/4 - onehot).
  EXPECT_NEAR(classification_loss(ctx, loss_kind::cross_entropy, logits, labels, 0.0f, 1.0f, grad),
              std::log(4.0), 1e-6);
  EXPECT_FLOAT_EQ(grad[2], -0.75f);
  EXPECT_FLOAT_EQ(grad[0], 0.25f);
}

parameter scalar_parameter(float value, float grad) {
  parameter p = make_parameter("w", "test", op_class::elementwise, "value", {1}, true);
  p.value[0] = value;
  p.grad[0] = grad;
  return p;
}

TEST(Optimizer, SgdMomentumAndNesterovByHand) {
  optimizer_settings s;
  s.kind = optimizer_kind::sgd;
  s.momentum = 0.9f;
  parameter p = scalar_parameter(1.0f, 0.5f);
  optimizer heavy(s, {&p});
  op_context ctx;
  heavy.step(ctx, 0.1f);  // buf = 0.5, w = 1 - 0.05
  EXPECT_FLOAT_EQ(p.value[0], 0.95f);
  heavy.step(ctx, 0.1f);  // buf = 0.45 + 0.5 = 0.95, w = 0.95 - 0.095
  EXPECT_FLOAT_EQ(p.value[0], 0.855f);

  s.nesterov = true;
  parameter q = scalar_parameter(1.0f, 0.5f);
  optimizer nesterov(s, {&q});
  nesterov.step(ctx, 0.1f);  // buf = 0.5, direction = 0.5 + 0.45 = 0.95
  EXPECT_FLOAT_EQ(q.value[0], 0.905f);
}

TEST(Optimizer, WeightDecayIsL2ForSgd) {
  optimizer_settings s;
  s.kind = optimizer_kind::sgd;
  s.weight_decay = 0.1f;
  parameter p = scalar_parameter(2.0f, 0.0f);
  parameter bias = scalar_parameter(2.0f, 0.0f);
  bias.decay = false;
  optimizer opt(s, {&p, &bias});
  op_context ctx;
  opt.step(ctx, 0.5f);  // g = 0 + 0.1 * 2; w = 2 - 0.5 * 0.2
  EXPECT_FLOAT_EQ(p.value[0], 1.9f);
  EXPECT_FLOAT_EQ(bias.value[0], 2.0f);
}

TEST(Optimizer, AdamFirstStepsByHand) {
  optimizer_settings s;
  s.kind = optimizer_kind::adam;
  s.eps = 1e-4f;
  parameter p = scalar_parameter(1.0f, 0.2f);
  optimizer opt(s, {&p});
  op_context ctx;
  // t = 1: m = 0.02, v = 4e-5, mhat = 0.2, vhat = 0.04; step = lr * 0.2 / (0.2 + 1e-4)
  opt.step(ctx, 0.01f);
  const double first = 1.0 - 0.01 * 0.2 / (0.2 + 1e-4);
  EXPECT_NEAR(p.value[0], first, 1e-7);
  // t = 2 with g = -0.1: m = 0.018 - 0.01 = 0.008, v = 3.996e-5 + 1e-5
  p.grad[0] = -0.1f;
  opt.step(ctx, 0.01f);
  const double m = 0.9 * 0.02 + 0.1 * -0.1, v = 0.999 * 4e-5 + 0.001 * 0.01;
  const double mhat = m / (1 - 0.81), denom = std::sqrt(v) / std::sqrt(1 - 0.998001) + 1e-4;
  EXPECT_NEAR(p.value[0], first - 0.01 * mhat / denom, 1e-6);
  EXPECT_EQ(opt.steps(), 2u);
}

TEST(Optimizer, AdamWDecaysDecoupled) {
  optimizer_settings s;
  s.kind = optimizer_kind::adamw;
  s.weight_decay = 0.5f;
  parameter p = scalar_parameter(2.0f, 0.0f);
  optimizer opt(s, {&p});
  op_context ctx;
  opt.step(ctx, 0.1f);  // zero gradient: only w -= lr * wd * w = 2 - 0.1
  EXPECT_FLOAT_EQ(p.value[0], 1.9f);
}

TEST(Optimizer, AdamSecondMomentAddsTheSquareInOneRounding) {
  // PyTorch's v.mul_(beta2).addcmul_(g, g, value=1 - beta2) rounds the
  // product (1 - beta2) g * g and the sum once. beta2 = 0.5, v = 2^-23,
  // g = 1 + 2^-12: v * beta2 = 2^-24, (1 - beta2) g = 0.5 + 2^-13 (exact),
  // times g = 0.5 + 2^-12 + 2^-25. Fused, 0.5 + 2^-12 + 2^-24 + 2^-25 is a
  // tie between multiples of 2^-24 (the spacing in [0.5, 1)) and goes to the
  // even 0.5 + 2^-12 + 2^-23; rounding the product first (its own tie, to
  // 0.5 + 2^-12) would give 0.5 + 2^-12 + 2^-24.
  optimizer_settings s;
  s.kind = optimizer_kind::adam;
  s.beta2 = 0.5;
  parameter p = scalar_parameter(0.0f, 1.0f + std::ldexp(1.0f, -12));
  optimizer opt(s, {&p});
  (*opt.state().at(1))[0] = std::ldexp(1.0f, -23);
  opt.step(op_context{}, 0.01);
  EXPECT_EQ((*opt.state().at(1))[0], 0.5f + std::ldexp(1.0f, -12) + std::ldexp(1.0f, -23));
}

TEST(Optimizer, ClipByGlobalNorm) {
  parameter a = scalar_parameter(0.0f, 3.0f);
  parameter b = scalar_parameter(0.0f, 4.0f);
  const double norm = clip_gradient_norm({&a, &b}, 1.0f);
  EXPECT_DOUBLE_EQ(norm, 5.0);
  EXPECT_NEAR(a.grad[0], 0.6, 1e-6);
  EXPECT_NEAR(b.grad[0], 0.8, 1e-6);
  EXPECT_NEAR(global_gradient_norm({&a, &b}), 1.0, 1e-6);
}

// The norm is torch's float one, not a double one rounded at the end: with
// five elements (all in the unvectorised tail) the sum of squares starts at
// 1 and each 2^-12 adds 2^-24, half an ulp of 1, a tie that rounds back to 1
// (even), so the float norm is exactly 1; in double it is sqrt(1 + 2^-22),
// which rounds to the float 1 + 2^-23.
TEST(Optimizer, GlobalGradientNormIsTorchsFloatNorm) {
  const float small = std::ldexp(1.0f, -12);
  parameter a = make_parameter("w", "test", op_class::elementwise, "value", {5}, true);
  const float grads[] = {1.0f, small, small, small, small};
  std::copy(std::begin(grads), std::end(grads), a.grad.values().begin());
  EXPECT_EQ(global_gradient_norm({&a}), 1.0f);
  EXPECT_EQ(static_cast<float>(std::sqrt(1.0 + std::ldexp(1.0, -22))), 1.0f + std::ldexp(1.0f, -23));
  EXPECT_EQ(clip_gradient_norm({&a}, 1e30f), 1.0);
}

TEST(Schedule, WarmupThenConstStepCosine) {
  lr_schedule s;
  s.base_lr = 1.0f;
  s.warmup_steps = 4;
  EXPECT_FLOAT_EQ(s.at(0), 0.25f);
  EXPECT_FLOAT_EQ(s.at(3), 1.0f);
  EXPECT_FLOAT_EQ(s.at(100), 1.0f);
  s.kind = schedule_kind::step;
  s.step_size = 10;
  s.gamma = 0.5f;
  EXPECT_FLOAT_EQ(s.at(13), 1.0f);
  EXPECT_FLOAT_EQ(s.at(14), 0.5f);
  EXPECT_FLOAT_EQ(s.at(34), 0.125f);
  s.kind = schedule_kind::cosine;
  s.total_steps = 104;
  s.min_lr = 0.0f;
  EXPECT_FLOAT_EQ(s.at(4), 1.0f);
  EXPECT_NEAR(s.at(54), 0.5f, 1e-6);
  EXPECT_NEAR(s.at(104), 0.0f, 1e-6);
}

// A hook that records what passes through the op_context.
class recording_hook : public tensor_hook {
 public:
  void produce(const site& where, tensor_role role, std::span<float>, unrounded_values) override {
    seen.push_back(std::string(where.layer) + "/" + std::string(where.tensor) + ":" + std::string(role_name(role)));
  }
  std::span<const float> weight(const site& where, std::span<const float> master, unrounded_values) override {
    seen.push_back(std::string(where.layer) + "/" + std::string(where.tensor) + ":weight");
    return master;
  }
  void update(const site& where, std::span<float> w, const weight_step& step) override {
    seen.push_back(std::string(where.layer) + "/" + std::string(where.tensor) + ":update");
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = 2.0f * (w[i] + step.scale * step.direction[i]);  // visible side effect
  }
  float scalar(const site&, tensor_role role, double value) override {
    scalars.emplace_back(role, value);
    return static_cast<float>(value);
  }
  std::vector<std::string> seen;
  std::vector<std::pair<tensor_role, double>> scalars;  // the hyper-parameters asked for, in order
};

TEST(OpContext, OptimizerUpdatesGoThroughTheHook) {
  recording_hook hook;
  op_context ctx(&hook);
  optimizer_settings s;
  s.kind = optimizer_kind::sgd;
  parameter p = scalar_parameter(1.0f, 1.0f);
  optimizer opt(s, {&p});
  opt.step(ctx, 0.5f);
  EXPECT_FLOAT_EQ(p.value[0], 1.0f);  // 2 * (1 - 0.5)
  // The regularised gradient passes as optimizer state (a precision policy
  // may hold it in its format), then the update and the new master weight.
  ASSERT_EQ(hook.seen.size(), 3u);
  EXPECT_EQ(hook.seen[0], "w/value.grad:optimizer_state");
  EXPECT_EQ(hook.seen[1], "w/value:update");
  EXPECT_EQ(hook.seen[2], "w/value:master_weight");
}

TEST(OpContext, OptimizersAskForTheHyperParametersPyTorchCastsToTheTensorsDtype) {
  // optimizer.hpp's "[dtype]" marks: these pass through op_context::scalar
  // (a bf16 policy rounds them to bf16), with the role of the tensor they
  // meet; addcmul_'s 1 - beta2 and addcdiv_'s -lr / (1 - beta1^t) do not.
  using state = std::pair<tensor_role, double>;
  constexpr auto kept = tensor_role::optimizer_state;
  optimizer_settings adamw;
  adamw.kind = optimizer_kind::adamw;
  adamw.weight_decay = 0.1;
  recording_hook a;
  parameter p = scalar_parameter(1.0f, 1.0f);
  optimizer(adamw, {&p}).step(op_context(&a), 0.01);
  EXPECT_EQ(a.scalars, (std::vector<state>{{kept, 0.9}, {kept, 1.0 - 0.9}, {kept, 0.999},
                                           {kept, std::sqrt(1.0 - 0.999)}, {kept, 1e-8},
                                           {tensor_role::update, 1.0 - 0.01 * 0.1}}));
  optimizer_settings nesterov;
  nesterov.kind = optimizer_kind::sgd;
  nesterov.momentum = 0.9;
  nesterov.nesterov = true;
  nesterov.weight_decay = 0.01;
  recording_hook n;
  optimizer(nesterov, {&p}).step(op_context(&n), 0.05);
  EXPECT_EQ(n.scalars, (std::vector<state>{{kept, 0.01}, {kept, 0.9}, {tensor_role::update, -0.05}}));
}

}  // namespace
}  // namespace lab
