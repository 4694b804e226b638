// Precision policies: configuration, master weights, pure-format updates,
// traps, warnings, loss scaling and reproducible stochastic rounding.
#include <gtest/gtest.h>

#include <libnum/codec.hpp>
#include <libnum/convert.hpp>

#include <cmath>
#include <map>
#include <vector>

#include "lab/dense.hpp"
#include "lab/relu.hpp"
#include "lab/sequential.hpp"
#include "lab/errors.hpp"
#include "lab/loss_scaler.hpp"
#include "lab/optimizer.hpp"
#include "lab/precision_hook.hpp"
#include "lab/precision_warnings.hpp"
#include "lab/trainer.hpp"

namespace lab {
namespace {

bool representable(const num::format& f, float x) {
  return num::to_float(f, num::from_float(f, x, num::round_spec{}).bits) == x;
}

precision_policy policy_with(const std::string& preset, std::vector<std::pair<std::string, std::string>> keys) {
  precision_config c;
  c.preset = preset;
  for (const auto& [k, v] : keys) set_precision_value(c, k, v, "test");
  return c.resolve();
}

TEST(PrecisionConfig, PresetsAndRefinementsResolveInAnyOrder) {
  const auto p = policy_with("bf16-mixed", {{"layers.conv1.precision", "fp32"},
                                            {"rounding.update", "sr"},
                                            {"rounding", "rz"},
                                            {"partials", "low"},
                                            {"partials_block", "64"},
                                            {"autocast.norm", "low"},
                                            {"loss_scaling", "dynamic"}});
  EXPECT_EQ(p.low, num::bfloat16_format);
  EXPECT_TRUE(p.master_weights);
  EXPECT_EQ(p.of(op_class::matmul), class_precision::low);
  EXPECT_EQ(p.of(op_class::norm), class_precision::low);
  EXPECT_EQ(p.of(op_class::loss), class_precision::fp32);
  EXPECT_EQ(p.of(op_class::elementwise), class_precision::follow);
  ASSERT_TRUE(p.layers.contains("conv1"));
  EXPECT_FALSE(p.layers.at("conv1").has_value());
  // The general `rounding` applies first even though it came later.
  EXPECT_EQ(p.spec(tensor_role::update).mode, num::rounding::stochastic);
  EXPECT_EQ(p.spec(tensor_role::activation).mode, num::rounding::toward_zero);
  EXPECT_EQ(p.partials, accumulation::low);
  EXPECT_EQ(p.partials_block, 64u);
  EXPECT_EQ(p.scaling.mode, loss_scaling::kind::dynamic);
  EXPECT_EQ(p.scaling.scale, 65536.0);
  EXPECT_EQ(p.scaling.growth_interval, 2000u);
  const auto pure = precision_preset("16.16");
  EXPECT_FALSE(pure.master_weights);
  EXPECT_EQ(pure.of(op_class::optimizer), class_precision::low);
}

TEST(PrecisionConfig, BadValuesNameKeyAndSource) {
  precision_config c;
  try {
    set_precision_value(c, "rounding.update", "sideways", "cfg.yml:4");
    FAIL() << "no error";
  } catch (const input_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cfg.yml:4"), std::string::npos) << m;
    EXPECT_NE(m.find("rounding.update"), std::string::npos) << m;
  }
  EXPECT_THROW(set_precision_value(c, "precision", "fp12", "x"), input_error);
  EXPECT_THROW(set_precision_value(c, "autocast.attention", "low", "x"), input_error);
  EXPECT_THROW(set_precision_value(c, "loss_scale", "-1", "x"), input_error);
  train_config t;
  set_config_value(t, "precision", "fp16-mixed", "--precision");
  set_config_value(t, "loss_scale", "256", "--loss-scale");
  EXPECT_EQ(t.precision.resolve().name, "fp16-mixed");
  EXPECT_NE(to_yaml(t).find("loss_scale: 256"), std::string::npos);
}

TEST(MasterWeights, MixedPolicyUpdatesFp32MastersAndComputesWithFp16Copies) {
  // Identical gradients through a plain fp32 optimizer and through the mixed
  // policy's: the masters must agree bit for bit (fp32 updates, never
  // rounded to fp16), while every weight the layer computes with is fp16.
  dense plain("fc", 16, 4), mixed("fc", 16, 4);
  rng init(3);
  plain.initialise(init);
  for (std::size_t i = 0; i < plain.kernel().value.size(); ++i) mixed.kernel().value[i] = plain.kernel().value[i];
  precision_hook hook(precision_preset("fp16-mixed"), 1);
  hook.store_parameters(mixed.parameters());
  optimizer_settings s;
  optimizer opt_plain(s, plain.parameters()), opt_mixed(s, mixed.parameters());
  for (int step = 0; step < 5; ++step) {
    for (std::size_t i = 0; i < plain.kernel().grad.size(); ++i) {
      const float g = std::sin(static_cast<float>(i + 7 * step)) * 1e-3f;
      plain.kernel().grad[i] = mixed.kernel().grad[i] = g;
    }
    opt_plain.step(op_context{}, 1e-3f);
    opt_mixed.step(hook.context(), 1e-3f);
  }
  std::size_t not_fp16 = 0;
  for (std::size_t i = 0; i < plain.kernel().value.size(); ++i) {
    ASSERT_EQ(mixed.kernel().value[i], plain.kernel().value[i]) << i;
    not_fp16 += representable(num::binary16, mixed.kernel().value[i]) ? 0 : 1;
  }
  EXPECT_GT(not_fp16, plain.kernel().value.size() / 2);
  const auto working = hook.weight(mixed.kernel().site(), mixed.kernel().value.values(), std::nullopt);
  for (float w : working) EXPECT_TRUE(representable(num::binary16, w)) << w;
}

TEST(PureUpdate, NearestEvenSwampsSmallDeltasAndStochasticKeepsTheirMean) {
  // w = 1 has fp16 ulp 2^-10; delta = 2^-12 is a quarter ulp: nearest-even
  // keeps 1 (swamped); stochastic rounding moves up with probability 1/4.
  const std::size_t n = 20000;
  parameter p = make_parameter("fc", "dense", op_class::matmul, "kernel", {n}, true);
  const float delta_value = std::ldexp(1.0f, -12);
  std::vector<float> delta(n, delta_value);
  for (num::rounding mode : {num::rounding::nearest_even, num::rounding::stochastic}) {
    auto policy = precision_preset("fp16");
    policy.rounding[static_cast<std::size_t>(tensor_role::update)].mode = mode;
    precision_hook hook(policy, 5);
    for (auto& w : p.value.values()) w = 1.0f;
    hook.update(p.site(), p.value.values(), {delta});
    std::size_t up = 0;
    for (float w : p.value.values()) {
      ASSERT_TRUE(w == 1.0f || w == 1.0f + std::ldexp(1.0f, -10)) << w;
      up += w != 1.0f ? 1 : 0;
    }
    EXPECT_EQ(hook.tally().updates.elements, n);
    EXPECT_EQ(hook.tally().updates.swamped, n - up);
    // Sums of powers of two far below 2^53 ulps: exact in double.
    EXPECT_EQ(hook.tally().updates.requested, static_cast<double>(n) * std::ldexp(1.0, -12));
    EXPECT_EQ(hook.tally().updates.applied, static_cast<double>(up) * std::ldexp(1.0, -10));
    if (mode == num::rounding::nearest_even) {
      EXPECT_EQ(up, 0u);
    } else {
      // Binomial(20000, 1/4): mean 5000, sd 61; 5 sd either way.
      EXPECT_NEAR(static_cast<double>(up), 5000.0, 306.0);
    }
  }
}

TEST(UpdateTally, AppliedMeasuresEachMoveAlongItsDeltasSign) {
  // fp32 masters: w + delta is exact here. Moves of +0.5, -0.25 and none
  // (a zero delta) apply 0.5 + 0.25 + 0 of the 0.75 asked for.
  parameter p = make_parameter("fc", "dense", op_class::matmul, "kernel", {3}, true);
  for (auto& w : p.value.values()) w = 1.0f;
  const std::vector<float> delta{0.5f, -0.25f, 0.0f};
  precision_hook hook(precision_preset("fp16-mixed"), 1);
  hook.update(p.site(), p.value.values(), {delta});
  EXPECT_EQ(p.value[0], 1.5f);
  EXPECT_EQ(p.value[1], 0.75f);
  EXPECT_EQ(p.value[2], 1.0f);
  const auto& t = hook.tally().updates;
  EXPECT_EQ(t.nonzero_delta, 2u);
  EXPECT_EQ(t.unchanged, 1u);
  EXPECT_EQ(t.swamped, 0u);
  EXPECT_EQ(t.requested, 0.75);
  EXPECT_EQ(t.applied, 0.75);
}

TEST(UpdateTally, Fp32MastersTakeTheFusedStepAsWithoutAHook) {
  // s = d = 1 + 2^-12: s * d = 1 + 2^-11 + 2^-24 exactly. Fused with w = -1
  // the sum 2^-11 + 2^-24 is exact; rounding the product first (a tie,
  // to even: 1 + 2^-11) would give 2^-11. An fp32 master under a mixed
  // policy takes the same fused write as plain fp32 (apply_step_fp32).
  const float s = 1.0f + std::ldexp(1.0f, -12);
  const std::vector<float> direction{s};
  const float fused = std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24);
  std::vector<float> plain{-1.0f};
  apply_step_fp32(plain, {direction, s});
  EXPECT_EQ(plain[0], fused);
  parameter p = make_parameter("fc", "dense", op_class::matmul, "kernel", {1}, true);
  p.value[0] = -1.0f;
  precision_hook hook(precision_preset("fp16-mixed"), 1);
  hook.update(p.site(), p.value.values(), {direction, s});
  EXPECT_EQ(p.value[0], fused);
}

TEST(PureUpdate, NearestEvenRoundsTheFloatSumAgainAsPyTorchsBf16Kernels) {
  // w = 1 in bf16 (spacing 2^-7 above 1), d = 2^-8 + 2^-28: the exact sum
  // lies just above the midpoint 1 + 2^-8 and rounds once to 1 + 2^-7.
  // PyTorch's bf16 add_ computes w + s * d in float first (1 + 2^-8: 2^-28
  // is below half a float ulp) and rounds that tie to even: 1. Stochastic
  // rounding rounds the exact sum instead (tested above).
  parameter p = make_parameter("fc", "dense", op_class::matmul, "kernel", {1}, true);
  p.value[0] = 1.0f;
  const std::vector<float> direction{std::ldexp(1.0f, -8) + std::ldexp(1.0f, -28)};
  precision_hook hook(precision_preset("bf16"), 1);
  hook.update(p.site(), p.value.values(), {direction});
  EXPECT_EQ(p.value[0], 1.0f);
  EXPECT_EQ(hook.tally().updates.swamped, 1u);
}

TEST(PureUpdate, AdamRoundsEveryElementaryOperationLikeABf16Framework) {
  // bf16 has 8 significand bits: next to 1 its spacing is 2^-8 below and
  // 2^-7 above. With v = 1 and g = 2, v <- 0.999 v + 0.001 g^2:
  //  - rounded once, 0.999 + 0.004 = 1.003 lies below the midpoint
  //    1 + 2^-8 = 1.00390625 and gives 1;
  //  - rounded after each operation as PyTorch's mul_ then addcmul_ do,
  //    0.999 rounds to 1 first, 1 + 0.004 = 1.004 lies above the midpoint
  //    and gives 1 + 2^-7 = 1.0078125.
  // The denominator sqrt(v) / sqrt(1 - 0.999) + eps, one rounding each:
  // sqrt(1 + 2^-7) = 1.0038986 lies below the midpoint 1.00390625 and gives
  // 1; 1 / 0.0316226 = 31.6232 gives 31.625 (spacing 2^-3 in [16, 32));
  // adding 1e-4 leaves 31.625.
  // m <- 0.9 m + 0.1 g from m = 0: 0.2 gives 205 * 2^-10 = 0.2001953125.
  auto policy = precision_preset("bf16");
  precision_hook hook(policy, 1);
  optimizer_settings s;
  s.kind = optimizer_kind::adam;
  s.beta1 = 0.9f;
  s.beta2 = 0.999f;
  s.eps = 1e-4f;
  parameter p = make_parameter("fc", "dense", op_class::matmul, "kernel", {1}, false);
  p.value[0] = 0.0f;
  p.grad[0] = 2.0f;
  optimizer adam(s, {&p});
  tensor& v = *adam.state().at(1);
  v[0] = 1.0f;
  adam.step(hook.context(), 1.0f);
  EXPECT_EQ(v[0], 1.0078125f);
  EXPECT_EQ((*adam.state().at(0))[0], 0.2001953125f);
  // w <- w - lr * (m / (1 - 0.9)) / denominator, rounded once:
  // -2.0019531 / 31.625 = -0.0633029 = -129.64 * 2^-11 (bf16 spacing in
  // [2^-4, 2^-3)) gives -130 * 2^-11 = -0.0634765625.
  EXPECT_EQ(p.value[0], -0.0634765625f);
}

TEST(Traps, FirstOverflowStopsWithOpLayerStepAndValues) {
  auto policy = policy_with("fp16-mixed", {{"traps", "overflow,invalid"}});
  precision_hook hook(policy, 1);
  hook.begin_step(42);
  std::vector<float> v = {1.0f, 70000.0f, -2.0f};
  try {
    hook.produce({"conv2", "conv2d", op_class::conv, "output"}, tensor_role::activation, v, std::nullopt);
    FAIL() << "no trap";
  } catch (const precision_trap& t) {
    EXPECT_EQ(t.kind, num::flags::overflow);
    EXPECT_EQ(t.layer, "conv2");
    EXPECT_EQ(t.op, "conv2d");
    EXPECT_EQ(t.step, 42u);
    ASSERT_EQ(t.values.size(), 1u);
    EXPECT_EQ(t.values[0].index, 1u);
    EXPECT_EQ(t.values[0].before, 70000.0f);
    EXPECT_TRUE(std::isinf(t.values[0].after));
    EXPECT_NE(std::string(t.what()).find("conv2"), std::string::npos);
  }
  // fp32 ops (the loss in a mixed policy) trap on NaN as invalid.
  std::vector<float> nan = {0.0f, std::nanf("")};
  EXPECT_THROW(hook.produce({"loss", "softmax_cross_entropy", op_class::loss, "loss"}, tensor_role::activation, nan, std::nullopt), precision_trap);
  // Saturation instead of a trap when overflow is not trapped.
  auto saturating = policy_with("fp16-mixed", {{"overflow", "saturate"}});
  precision_hook quiet(saturating, 1);
  std::vector<float> big = {70000.0f};
  quiet.produce({"conv2", "conv2d", op_class::conv, "output"}, tensor_role::activation, big, std::nullopt);
  EXPECT_EQ(big[0], 65504.0f);
}

TEST(Warnings, AdamEpsilonAndLearningRateThatTheFormatLoses) {
  optimizer_settings adam;
  adam.eps = 1e-8f;
  const auto w = precision_warnings(precision_preset("fp16"), adam, 1e-3f);
  ASSERT_FALSE(w.empty());
  EXPECT_NE(w[0].find("rounds to 0 in fp16"), std::string::npos) << w[0];
  // 1e-8 is a normal bf16 number, and mixed policies keep Adam in fp32.
  EXPECT_TRUE(precision_warnings(precision_preset("bf16"), adam, 1e-3f).empty());
  EXPECT_TRUE(precision_warnings(precision_preset("fp16-mixed"), adam, 1e-3f).empty());
  optimizer_settings sgd;
  sgd.kind = optimizer_kind::sgd;
  const auto divided =
      precision_warnings(policy_with("fp16", {{"loss_scaling", "static"}, {"loss_scale", "1e6"},
                                              {"loss_scale_method", "divide_lr"}}),
                         sgd, 1e-3f);
  ASSERT_EQ(divided.size(), 1u);
  EXPECT_NE(divided[0].find("learning rate / loss scale"), std::string::npos) << divided[0];
}

TEST(LossScaler, GradScalerFollowsAScriptedSequence) {
  loss_scaling s;
  s.mode = loss_scaling::kind::dynamic;
  s.scale = 65536.0;
  s.growth_interval = 3;
  loss_scaler scaler(s);
  // (overflow?, scale after update, skipped so far), derived by hand from
  // GradScaler's rules: backoff x0.5 and reset on overflow, x2 after 3 clean.
  const struct {
    bool inf;
    double scale;
    std::uint64_t skipped;
  } script[] = {{false, 65536, 0}, {false, 65536, 0}, {false, 131072, 0}, {true, 65536, 1},
                {false, 65536, 1}, {false, 65536, 1}, {true, 32768, 2},   {true, 16384, 3},
                {false, 16384, 3}, {false, 16384, 3}, {false, 32768, 3},  {false, 32768, 3}};
  for (const auto& s_ : script) {
    scaler.update(s_.inf);
    EXPECT_EQ(scaler.scale(), s_.scale);
    EXPECT_EQ(scaler.skipped(), s_.skipped);
  }
}

TEST(LossScaler, MindSporeWindowCountsLikeDynamicLossScaleManager) {
  precision_config c;
  set_precision_value(c, "loss_scaling", "mindspore", "t");
  // DynamicLossScaleManager() defaults (r1.5 to r2.x): 2**24, factor 2, window 2000.
  const loss_scaling defaults = c.resolve().scaling;
  EXPECT_EQ(defaults.scale, 16777216.0);
  EXPECT_EQ(defaults.growth_factor, 2.0);
  EXPECT_EQ(defaults.growth_interval, 2000u);
  set_precision_value(c, "loss_scale_interval", "4", "t");
  auto s = c.resolve().scaling;
  s.scale = 4.0;
  loss_scaler scaler(s);
  // update_loss_scale with cur_iter from 1, last_overflow_iter -1, window 4:
  // growth when (iter + 1) % 4 == 0 -> iter 3; overflow at iter 5 -> /2;
  // growth again at iter 9; the scale never drops below 1.
  const double expected[] = {4, 4, 8, 8, 4, 4, 4, 4, 8};
  for (int iter = 1; iter <= 9; ++iter) {
    scaler.update(iter == 5);
    EXPECT_EQ(scaler.scale(), expected[iter - 1]) << "iteration " << iter;
  }
  for (int i = 0; i < 10; ++i) scaler.update(true);
  EXPECT_EQ(scaler.scale(), 1.0);
}

TEST(LossScaler, UnscaleMultipliesByTheFp32ReciprocalAndFindsInf) {
  loss_scaling s;
  s.mode = loss_scaling::kind::dynamic;
  s.scale = 3.0;  // 1/3 is inexact: GradScaler multiplies by float(1/3)
  loss_scaler scaler(s);
  parameter p = make_parameter("fc", "dense", op_class::matmul, "kernel", {2}, true);
  p.grad[0] = 3.0f;
  p.grad[1] = 1.5f;
  EXPECT_FALSE(scaler.unscale({&p}));
  EXPECT_EQ(p.grad[0], 3.0f * static_cast<float>(1.0 / 3.0));
  EXPECT_EQ(p.grad[1], 1.5f * static_cast<float>(1.0 / 3.0));
  p.grad[1] = INFINITY;
  EXPECT_TRUE(scaler.unscale({&p}));
}

train_config tiny_config(const std::string& precision) {
  train_config c;
  c.model = "mlp";
  c.hidden = {16};
  c.dataset = "synthetic";
  c.train_limit = 256;
  c.test_limit = 64;
  c.batch_size = 32;
  c.epochs = 1;
  c.threads = 1;
  set_config_value(c, "precision", precision, "test");
  return c;
}

std::vector<float> trained_weights(const train_config& c) {
  trainer t(c, load_data(c));
  t.run();
  std::vector<float> all;
  for (auto* p : t.model().parameters()) all.insert(all.end(), p->value.values().begin(), p->value.values().end());
  return all;
}

TEST(Stochastic, OneSeedGivesBitIdenticalRunsAndAnotherSeedDiffers) {
  auto c = tiny_config("bf16");
  set_config_value(c, "rounding", "sr", "test");
  set_config_value(c, "rounding_bits", "8", "test");
  const auto a = trained_weights(c);
  const auto b = trained_weights(c);
  EXPECT_EQ(a, b);
  for (float w : a) ASSERT_TRUE(representable(num::bfloat16_format, w)) << w;
  set_config_value(c, "precision_seed", "99", "test");
  EXPECT_NE(trained_weights(c), a);
}

TEST(Stochastic, HalfWordDrawsAreReproducibleAndAnotherStream) {
  auto c = tiny_config("bf16");
  set_config_value(c, "rounding", "sr", "test");
  set_config_value(c, "rounding_bits", "8", "test");
  const auto full = trained_weights(c);
  set_config_value(c, "rounding_draws", "half-word", "test");
  EXPECT_EQ(c.precision.resolve().draws, num::random_draws::half_word);
  const auto a = trained_weights(c);
  EXPECT_EQ(trained_weights(c), a);
  for (float w : a) ASSERT_TRUE(representable(num::bfloat16_format, w)) << w;
  EXPECT_NE(a, full);
}

TEST(Stochastic, HalfWordDrawsRefuseMoreThanSixteenBits) {
  auto c = tiny_config("bf16");
  set_config_value(c, "rounding", "sr", "test");
  set_config_value(c, "rounding_draws", "half-word", "test");  // rounding_bits stays 32
  try {
    (void)c.precision.resolve();
    ADD_FAILURE() << "half-word draws with rounding_bits 32 were accepted";
  } catch (const lab::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("rounding_draws half-word holds 16 random bits"), std::string::npos)
        << e.what();
  }
  set_config_value(c, "rounding_bits", "16", "test");
  EXPECT_NO_THROW((void)c.precision.resolve());
  EXPECT_THROW(set_config_value(c, "rounding_draws", "quarter-word", "test"), lab::input_error);
}

TEST(Trainer, DynamicScalingSkipsOverflowingUpdatesAndBacksOff) {
  // A scale of 2^40 overflows fp16 gradients at once: GradScaler semantics
  // skip those updates and halve the scale until the gradients fit.
  auto c = tiny_config("fp16-mixed");
  set_config_value(c, "loss_scaling", "dynamic", "test");
  set_config_value(c, "loss_scale", "1099511627776", "test");
  trainer t(c, load_data(c));
  t.run();
  EXPECT_GT(t.scaler().skipped(), 0u);
  EXPECT_LT(t.scaler().scale(), 1099511627776.0);
  EXPECT_EQ(t.scaler().scale() * std::pow(2.0, static_cast<double>(t.scaler().skipped())), 1099511627776.0);
}

TEST(Shadow, ReportsPerLayerErrorsOfTheSizeTheFormatImplies) {
  auto c = tiny_config("bf16-mixed");
  set_config_value(c, "shadow", "true", "test");
  trainer t(c, load_data(c));
  t.run();
  const auto errors = t.shadow_errors();
  ASSERT_FALSE(errors.empty());
  bool saw_logits = false;
  for (const auto& e : errors) {
    EXPECT_EQ(e.steps, 8u) << e.layer << "/" << e.tensor;  // 256 samples / batch 32
    if (e.layer == "logits" && e.tensor == "output") {
      saw_logits = true;
      // bf16 keeps 8 bits: relative errors of a few 2^-9 per element, far
      // below 10% and well above fp32's 2^-24.
      EXPECT_GT(e.mean, 1e-4);
      EXPECT_LT(e.mean, 0.1);
    }
  }
  EXPECT_TRUE(saw_logits);
  // Without shadow mode nothing is compared.
  auto plain = tiny_config("bf16-mixed");
  trainer u(plain, load_data(plain));
  EXPECT_TRUE(u.shadow_errors().empty());
}

TEST(Autocast, PerLayerOverrideAndElementwiseOpsFollowingTheirInput) {
  // a (dense, forced fp32) -> r (relu, follows a: fp32) -> b (dense, fp16)
  // -> s (relu, follows b: fp16).
  sequential net("net");
  net.emplace<dense>("a", 12, 12);
  net.emplace<relu>("r");
  net.emplace<dense>("b", 12, 12);
  net.emplace<relu>("s");
  rng init(4);
  net.initialise(init);
  precision_hook hook(policy_with("fp16-mixed", {{"layers.a.precision", "fp32"}}), 1);
  tensor x({8, 12}), y;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i)) * 0.7f;
  struct recorder : tensor_hook {
    std::map<std::string, std::vector<float>> outputs;
    void produce(const site& w, tensor_role role, std::span<float> v, unrounded_values) override {
      if (role == tensor_role::activation) outputs[std::string(w.layer)].assign(v.begin(), v.end());
    }
    std::span<const float> weight(const site&, std::span<const float> m, unrounded_values) override { return m; }
    void update(const site&, std::span<float>, const weight_step&) override {}
  } seen;
  precision_hook chained(hook.policy(), 1, &seen);
  net.forward(chained.context(), x, y);
  auto all_fp16 = [](const std::vector<float>& v) {
    for (float f : v)
      if (!representable(num::binary16, f)) return false;
    return true;
  };
  EXPECT_FALSE(all_fp16(seen.outputs.at("a")));
  EXPECT_FALSE(all_fp16(seen.outputs.at("r")));
  EXPECT_TRUE(all_fp16(seen.outputs.at("b")));
  EXPECT_TRUE(all_fp16(seen.outputs.at("s")));
  EXPECT_FALSE(chained.format_of({"a", "dense", op_class::matmul, "kernel"}, tensor_role::weight).has_value());
  EXPECT_EQ(chained.format_of({"b", "dense", op_class::matmul, "kernel"}, tensor_role::weight), num::binary16);
}

// The key table: what `numlab train` lists, accepts and rejects.
TEST(PrecisionKeys, ListedKeysAreAcceptedAndBadOnesNamed) {
  const auto keys = precision_config_keys();
  // 20 general keys, rounding.<role> for 7 roles, autocast.<class> for 6
  // classes, 5 scaled-recipe keys and scaled.<operand> for 3 operands.
  ASSERT_EQ(keys.size(), 41u);
  EXPECT_EQ(keys.front().first, "precision");
  EXPECT_EQ(keys[18].first, "rounding_draws");
  EXPECT_EQ(keys[19].first, "torch_bf16_kernels");
  EXPECT_EQ(keys[20].first, "rounding.activation");
  EXPECT_EQ(keys[26].first, "rounding.optimizer_state");
  EXPECT_EQ(keys[32].first, "autocast.optimizer");
  EXPECT_EQ(keys.back().first, "scaled.gradient");
  for (const auto& [key, help] : keys) EXPECT_TRUE(is_precision_key(key)) << key;
  EXPECT_TRUE(is_precision_key("layers.conv1.precision"));
  EXPECT_FALSE(is_precision_key("lr"));

  precision_config c;
  set_precision_value(c, "precision", "fp16-mixed", "t");
  set_precision_value(c, "rounding.update", "sr", "t");
  set_precision_value(c, "autocast.norm", "low", "t");
  set_precision_value(c, "loss_scaling", "dynamic", "t");
  set_precision_value(c, "loss_scale_interval", "7", "t");
  const precision_policy p = c.resolve();
  EXPECT_EQ(p.spec(tensor_role::update).mode, num::rounding::stochastic);
  EXPECT_EQ(p.spec(tensor_role::weight).mode, num::rounding::nearest_even);
  EXPECT_EQ(p.of(op_class::norm), class_precision::low);
  EXPECT_EQ(p.scaling.scale, 65536.0);
  EXPECT_EQ(p.scaling.growth_interval, 7u);

  const auto message = [&](const std::string& key, const std::string& value) {
    try {
      set_precision_value(c, key, value, "f.yml:2");
    } catch (const input_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("rounding.bias", "ne"),
            "f.yml:2: unknown config key 'rounding.bias' (roles: activation, grad_input, grad_weight, weight, "
            "master_weight, update, optimizer_state)");
  EXPECT_EQ(message("autocast.pool", "low"),
            "f.yml:2: unknown config key 'autocast.pool' (classes: matmul, conv, norm, loss, elementwise, optimizer)");
  EXPECT_EQ(message("loss_scale_interval", "0"), "f.yml:2: key 'loss_scale_interval': '0' is not a positive integer");
  EXPECT_EQ(message("shadow", "maybe"), "f.yml:2: key 'shadow': 'maybe' is not true or false");
  EXPECT_EQ(message("loss_scale", "1e999"), "f.yml:2: key 'loss_scale': '1e999' is not a finite number");
}

}  // namespace
}  // namespace lab
