// NaN and inf through every op, with the bad value at every position of a
// window or row, against PyTorch 1.13's rules as stated in each op's header.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "lab/batch_norm.hpp"
#include "lab/loss.hpp"
#include "lab/loss_scaler.hpp"
#include "lab/optimizer.hpp"
#include "lab/pooling.hpp"
#include "lab/relu.hpp"

namespace lab {
namespace {

constexpr float nan = std::numeric_limits<float>::quiet_NaN();
constexpr float inf = std::numeric_limits<float>::infinity();

// Distinct finite values 1, 2, 3, ... so every window has a unique maximum.
tensor ramp(shape s) {
  tensor t(std::move(s));
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(i % 7) - 3.0f + 0.25f * static_cast<float>(i);
  return t;
}

tensor filled(shape s, float v) {
  tensor t(std::move(s));
  for (auto& x : t.values()) x = v;
  return t;
}

TEST(NanPropagation, MaxPoolPassesANanAtAnyPositionOfTheWindow) {
  for (std::size_t at = 0; at < 9; ++at) {
    max_pool2d pool("pool", 3, 3);
    tensor x = ramp({1, 1, 3, 3}), y, dx;
    x[at] = nan;
    op_context ctx;
    pool.forward(ctx, x, y);
    ASSERT_EQ(y.size(), 1u);
    EXPECT_TRUE(std::isnan(y[0])) << "NaN at window position " << at;
    pool.backward(ctx, x, y, filled({1, 1, 1, 1}, 1.0f), &dx);
    for (std::size_t i = 0; i < 9; ++i) EXPECT_EQ(dx[i], i == at ? 1.0f : 0.0f) << "NaN at " << at << ", i " << i;
  }
}

TEST(NanPropagation, MaxPoolGradientGoesToTheLastNanOfTheWindow) {
  for (std::size_t first = 0; first < 9; ++first)
    for (std::size_t second = first + 1; second < 9; ++second) {
      max_pool2d pool("pool", 3, 3);
      tensor x = ramp({1, 1, 3, 3}), y, dx;
      x[first] = nan;
      x[second] = nan;
      op_context ctx;
      pool.forward(ctx, x, y);
      pool.backward(ctx, x, y, filled({1, 1, 1, 1}, 1.0f), &dx);
      EXPECT_EQ(dx[second], 1.0f) << first << ", " << second;
      EXPECT_EQ(dx[first], 0.0f) << first << ", " << second;
    }
}

TEST(NanPropagation, OverlappingMaxPoolMarksExactlyTheWindowsHoldingTheNan) {
  // 3x3 windows, stride 2, 'same' on 5x5: windows overlap on rows/cols 2.
  for (std::size_t at = 0; at < 25; ++at) {
    max_pool2d pool("pool", 3, 2, padding_mode::same);
    tensor x = ramp({1, 1, 5, 5}), y;
    x[at] = nan;
    op_context ctx;
    pool.forward(ctx, x, y);
    ASSERT_EQ(y.shape(), (shape{1, 1, 3, 3}));
    const std::size_t r = at / 5, c = at % 5;
    for (std::size_t oh = 0; oh < 3; ++oh)
      for (std::size_t ow = 0; ow < 3; ++ow) {
        // 'same' with k 3, stride 2 on 5 pads 1 each side: window rows 2*oh-1 .. 2*oh+1.
        const bool holds = r + 1 >= 2 * oh && r <= 2 * oh + 1 && c + 1 >= 2 * ow && c <= 2 * ow + 1;
        EXPECT_EQ(std::isnan(y[oh * 3 + ow]), holds) << "NaN at " << at << ", output " << oh << "," << ow;
      }
  }
}

TEST(NanPropagation, AveragePoolsCarryNanAndOpposedInfinities) {
  for (std::size_t at = 0; at < 4; ++at) {
    avg_pool2d pool("pool", 2, 2);
    global_avg_pool gap("gap");
    tensor x = ramp({1, 1, 2, 2}), y, z;
    x[at] = nan;
    op_context ctx;
    pool.forward(ctx, x, y);
    gap.forward(ctx, x, z);
    EXPECT_TRUE(std::isnan(y[0])) << at;
    EXPECT_TRUE(std::isnan(z[0])) << at;
  }
  avg_pool2d pool("pool", 2, 2);
  tensor x = ramp({1, 1, 2, 2}), y;
  x[1] = inf;
  op_context ctx;
  pool.forward(ctx, x, y);
  EXPECT_EQ(y[0], inf);
  x[3] = -inf;
  pool.forward(ctx, x, y);
  EXPECT_TRUE(std::isnan(y[0]));
}

TEST(NanPropagation, ReluKeepsNanAndPassesItsGradient) {
  for (std::size_t at = 0; at < 6; ++at) {
    relu act("relu");
    tensor x = ramp({2, 3}), y, dx;
    x[at] = nan;
    const tensor dy = filled({2, 3}, 0.5f);
    op_context ctx;
    act.forward(ctx, x, y);
    act.backward(ctx, x, y, dy, &dx);
    for (std::size_t i = 0; i < 6; ++i) {
      if (i == at) {
        EXPECT_TRUE(std::isnan(y[i])) << at;
        EXPECT_EQ(dx[i], 0.5f) << "threshold_backward passes dy where x is NaN, at " << at;
      } else {
        EXPECT_EQ(y[i], std::max(x[i], 0.0f));
        EXPECT_EQ(dx[i], x[i] > 0.0f ? 0.5f : 0.0f);
      }
    }
  }
}

TEST(NanPropagation, CrossEntropyRowWithNanOrPlusInfIsNanEverywhereInThatRow) {
  for (const float bad : {nan, inf})
    for (std::size_t at = 0; at < 4; ++at) {
      tensor logits = ramp({2, 4}), grad;
      logits[4 + at] = bad;  // row 1
      const std::int32_t labels[] = {2, 1};
      op_context ctx;
      const float loss = softmax_cross_entropy(ctx, logits, labels, 0.0f, 1.0f, grad);
      EXPECT_TRUE(std::isnan(loss)) << bad << " at " << at;
      for (std::size_t j = 0; j < 4; ++j) {
        EXPECT_TRUE(std::isfinite(grad[j])) << "row 0 stays finite";
        EXPECT_TRUE(std::isnan(grad[4 + j])) << bad << " at " << at << ", j " << j;
      }
    }
}

TEST(NanPropagation, CrossEntropyMinusInfLogitHasProbabilityZero) {
  // Labels 0; logits (0, -inf, 0): p = (1/2, 0, 1/2).
  for (std::size_t at = 1; at < 3; ++at) {
    tensor logits({1, 3}), grad;
    logits[at] = -inf;
    const std::int32_t labels[] = {0};
    op_context ctx;
    const float plain = softmax_cross_entropy(ctx, logits, labels, 0.0f, 1.0f, grad);
    EXPECT_FLOAT_EQ(plain, static_cast<float>(std::log(2.0))) << "-inf at " << at;
    EXPECT_EQ(grad[at], 0.0f);
    EXPECT_FLOAT_EQ(grad[0], -0.5f);
    // Smoothing 0.3 gives the -inf class weight 0.1: loss +inf, its gradient -0.1.
    const float smoothed = softmax_cross_entropy(ctx, logits, labels, 0.3f, 1.0f, grad);
    EXPECT_EQ(smoothed, inf);
    EXPECT_FLOAT_EQ(grad[at], -0.1f);
  }
  tensor logits({1, 3}), grad;
  logits[0] = -inf;
  const std::int32_t labels[] = {0};
  op_context ctx;
  EXPECT_EQ(softmax_cross_entropy(ctx, logits, labels, 0.0f, 1.0f, grad), inf) << "the label's own -inf";
}

TEST(NanPropagation, BatchNormNanPoisonsOnlyItsChannel) {
  for (const float bad : {nan, inf})
    for (std::size_t at = 0; at < 8; ++at) {
      batch_norm bn("bn", 2);
      tensor x = ramp({2, 2, 2, 2}), y, dx;
      // channel 0 holds elements 0..3 and 8..11
      const std::size_t i = at < 4 ? at : at + 4;
      x[i] = bad;
      op_context ctx;
      ctx.training = true;
      bn.forward(ctx, x, y);
      bn.backward(ctx, x, y, filled({2, 2, 2, 2}, 1.0f), &dx);
      for (std::size_t e = 0; e < 16; ++e) {
        const bool channel0 = (e / 4) % 2 == 0;
        EXPECT_EQ(std::isnan(y[e]), channel0) << bad << " at " << i << ", element " << e;
        EXPECT_EQ(std::isnan(dx[e]), channel0) << bad << " at " << i << ", element " << e;
      }
      EXPECT_FALSE(std::isfinite(bn.running_mean()[0]) && std::isfinite(bn.running_var()[0]));
      EXPECT_TRUE(std::isfinite(bn.running_mean()[1]) && std::isfinite(bn.running_var()[1]));
    }
  // Evaluation normalises with the running statistics: the NaN stays put.
  batch_norm bn("bn", 2);
  tensor x = ramp({2, 2, 2, 2}), y;
  x[5] = nan;
  op_context ctx;
  ctx.training = false;
  bn.forward(ctx, x, y);
  for (std::size_t e = 0; e < 16; ++e) EXPECT_EQ(std::isnan(y[e]), e == 5) << e;
}

parameter vector_parameter(std::size_t n, float value, float grad) {
  parameter p = make_parameter("w", "test", op_class::elementwise, "value", {n}, true);
  for (auto& v : p.value.values()) v = value;
  for (auto& g : p.grad.values()) g = grad;
  return p;
}

TEST(NanPropagation, OptimizersCarryANanGradientToItsWeightOnly) {
  for (const auto kind : {optimizer_kind::sgd, optimizer_kind::adam, optimizer_kind::adamw})
    for (const float bad : {nan, inf})
      for (std::size_t at = 0; at < 4; ++at) {
        optimizer_settings s;
        s.kind = kind;
        s.momentum = 0.9f;
        s.weight_decay = 0.01f;
        parameter p = vector_parameter(4, 1.0f, 0.25f);
        p.grad[at] = bad;
        optimizer opt(s, {&p});
        op_context ctx;
        opt.step(ctx, 0.1f);
        for (std::size_t j = 0; j < 4; ++j) {
          // SGD: w - lr*inf = -inf; Adam: m/sqrt(v) = inf/inf = NaN.
          const bool expect_nan = std::isnan(bad) || kind != optimizer_kind::sgd;
          if (j != at)
            EXPECT_TRUE(std::isfinite(p.value[j])) << j;
          else if (expect_nan)
            EXPECT_TRUE(std::isnan(p.value[j])) << static_cast<int>(kind) << " " << bad << " at " << at;
          else
            EXPECT_EQ(p.value[j], -inf) << at;
        }
      }
}

TEST(NanPropagation, InfiniteWeightWithoutDecayStaysInfinite) {
  // PyTorch adds weight_decay * w only when weight_decay != 0 (and AdamW
  // multiplies w by 1 - lr * 0 = 1): inf + finite step = inf, never 0 * inf.
  for (const auto kind : {optimizer_kind::sgd, optimizer_kind::adam, optimizer_kind::adamw}) {
    optimizer_settings s;
    s.kind = kind;
    parameter p = vector_parameter(3, 1.0f, 0.5f);
    p.value[1] = inf;
    optimizer opt(s, {&p});
    op_context ctx;
    opt.step(ctx, 0.1f);
    EXPECT_EQ(p.value[1], inf) << static_cast<int>(kind);
    EXPECT_TRUE(std::isfinite(p.value[0]) && std::isfinite(p.value[2]));
  }
}

TEST(NanPropagation, AdamWDecaysAnInfiniteWeightToAnInfiniteWeight) {
  // PyTorch 1.13's AdamW multiplies w by 1 - lr * weight_decay first:
  // inf * 0.999 = inf, and inf + a finite step stays inf (folding the decay
  // into the step, w + (step - lr * wd * w), would give inf - inf = NaN).
  optimizer_settings s;
  s.kind = optimizer_kind::adamw;
  s.weight_decay = 0.01;
  for (const float bad : {inf, -inf}) {
    parameter p = vector_parameter(3, 1.0f, 0.5f);
    p.value[1] = bad;
    optimizer opt(s, {&p});
    opt.step(op_context(), 0.1);
    EXPECT_EQ(p.value[1], bad);
    EXPECT_TRUE(std::isfinite(p.value[0]) && std::isfinite(p.value[2]));
  }
}

TEST(NanPropagation, ClippingANanNormMakesEveryGradientNan) {
  for (std::size_t at = 0; at < 3; ++at) {
    parameter a = vector_parameter(3, 0.0f, 0.5f);
    parameter b = vector_parameter(2, 0.0f, 0.5f);
    a.grad[at] = nan;
    EXPECT_TRUE(std::isnan(clip_gradient_norm({&a, &b}, 1.0f)));
    for (const float g : a.grad.values()) EXPECT_TRUE(std::isnan(g)) << at;
    for (const float g : b.grad.values()) EXPECT_TRUE(std::isnan(g)) << at;
  }
  parameter a = vector_parameter(3, 0.0f, 0.5f);
  a.grad[2] = inf;
  EXPECT_EQ(clip_gradient_norm({&a}, 1.0f), inf);
  EXPECT_EQ(a.grad[0], 0.0f);
  EXPECT_TRUE(std::isnan(a.grad[2]));  // inf * 0
}

TEST(NanPropagation, LossScalerFindsANonFiniteGradientAtAnyPosition) {
  loss_scaling settings;
  settings.mode = loss_scaling::kind::dynamic;
  settings.scale = 1024.0;
  const loss_scaler scaler(settings);
  for (const float bad : {nan, inf, -inf})
    for (std::size_t at = 0; at < 5; ++at) {
      parameter a = vector_parameter(2, 0.0f, 2048.0f);
      parameter b = vector_parameter(3, 0.0f, 2048.0f);
      (at < 2 ? a.grad[at] : b.grad[at - 2]) = bad;
      EXPECT_TRUE(scaler.unscale({&a, &b})) << bad << " at " << at;
      EXPECT_EQ(a.grad[at < 2 ? 1 - at : 0], 2.0f) << "the others are unscaled";
    }
  parameter clean = vector_parameter(4, 0.0f, std::numeric_limits<float>::max());
  EXPECT_FALSE(scaler.unscale({&clean}));
}

}  // namespace
}  // namespace lab
