// numlab's ops and optimizers against tensors PyTorch 1.13 computed
// (tests/fixtures/pytorch/*.txt, written by make_fixtures.py there, run by
// hand; these tests need no PyTorch). Bit for bit where numlab performs the
// same operations in the same order (max pooling, ReLU, optimizer steps,
// GradScaler's sequence, gradient clipping);
// elsewhere within a tolerance stated at each check, because the sums run
// in another order (GEMM blocking, batch-norm and softmax reductions in
// double here, in float lanes there).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "lab/batch_norm.hpp"
#include "lab/conv2d.hpp"
#include "lab/dense.hpp"
#include "lab/loss.hpp"
#include "lab/loss_scaler.hpp"
#include "lab/optimizer.hpp"
#include "lab/pooling.hpp"
#include "lab/precision_hook.hpp"
#include "lab/relu.hpp"
#include "lab/torch_cpu_kernels.hpp"

namespace lab {
namespace {

using fixture = std::map<std::string, tensor>;

fixture read_fixture(const std::string& name) {
  const std::string path = std::string(NUMLAB_SOURCE_DIR) + "/tests/fixtures/pytorch/" + name + ".txt";
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << path << " is missing";
    return {};
  }
  fixture out;
  tensor* current = nullptr;
  std::size_t filled = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    if (line.rfind("tensor ", 0) == 0) {
      std::string tag, key;
      words >> tag >> key;
      std::vector<std::size_t> dims;
      for (std::size_t d; words >> d;) dims.push_back(d);
      current = &(out[key] = tensor(shape(dims)));
      filled = 0;
      continue;
    }
    for (std::string word; words >> word && current != nullptr && filled < current->size();)
      (*current)[filled++] = std::bit_cast<float>(static_cast<std::uint32_t>(std::stoul(word, nullptr, 16)));
  }
  return out;
}

void expect_bits(const tensor& got, const tensor& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i]))
        << what << "[" << i << "]: " << got[i] << " vs PyTorch " << want[i];
}

// |got - want| <= rel * scale + 1e-7, scale = the largest |want| of the tensor
// (float sums of O(10) terms in another order differ by a few ulps of it).
void expect_close(const tensor& got, const tensor& want, double rel, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 0.0;
  for (const float w : want.values()) scale = std::max(scale, std::fabs(static_cast<double>(w)));
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], rel * scale + 1e-7) << what << "[" << i << "]";
}

TEST(PyTorchFixtures, MaxPoolWithNanBitForBit) {
  fixture f = read_fixture("max_pool");
  for (const auto& [k, s] : {std::pair{2, 2}, std::pair{3, 2}}) {
    const std::string tag = "_k" + std::to_string(k) + "_s" + std::to_string(s);
    max_pool2d pool("pool", static_cast<std::size_t>(k), static_cast<std::size_t>(s));
    op_context ctx;
    tensor y, dx;
    pool.forward(ctx, f.at("x" + tag), y);
    expect_bits(y, f.at("y" + tag), "max_pool y" + tag);
    pool.backward(ctx, f.at("x" + tag), y, f.at("dy" + tag), &dx);
    expect_bits(dx, f.at("dx" + tag), "max_pool dx" + tag);
  }
}

TEST(PyTorchFixtures, ReluWithNanAndSignedZerosBitForBit) {
  fixture f = read_fixture("relu");
  relu act("relu");
  op_context ctx;
  tensor y, dx;
  act.forward(ctx, f.at("x"), y);
  expect_bits(y, f.at("y"), "relu y");
  act.backward(ctx, f.at("x"), y, f.at("dy"), &dx);
  expect_bits(dx, f.at("dx"), "relu dx");
}

TEST(PyTorchFixtures, CrossEntropyWithAndWithoutLabelSmoothing) {
  fixture f = read_fixture("cross_entropy");
  std::vector<std::int32_t> labels;
  for (const float l : f.at("labels").values()) labels.push_back(static_cast<std::int32_t>(l));
  for (const auto& [name, smoothing] : {std::pair{"plain", 0.0f}, std::pair{"smooth", 0.1f}}) {
    op_context ctx;
    tensor grad;
    const float loss = softmax_cross_entropy(ctx, f.at("logits"), labels, smoothing, 1.0f, grad);
    // The log-sum-exp runs in double here, in float there: a few float ulps.
    EXPECT_NEAR(loss, f.at(std::string("loss_") + name)[0], 4e-7 * std::fabs(loss)) << name;
    expect_close(grad, f.at(std::string("grad_") + name), 1e-6, std::string("grad_") + name);
  }
}

TEST(PyTorchFixtures, DenseForwardAndBackward) {
  fixture f = read_fixture("dense_conv");
  dense fc("fc", 7, 5);
  std::copy(f.at("dense_w").values().begin(), f.at("dense_w").values().end(), fc.kernel().value.data());
  std::copy(f.at("dense_b").values().begin(), f.at("dense_b").values().end(), fc.bias().value.data());
  op_context ctx;
  tensor y, dx;
  fc.forward(ctx, f.at("dense_x"), y);
  // Sums of 7 products (GEMM order differs): a few ulps of the largest value.
  expect_close(y, f.at("dense_y"), 1e-6, "dense y");
  fc.backward(ctx, f.at("dense_x"), y, f.at("dense_dy"), &dx);
  expect_close(dx, f.at("dense_dx"), 1e-6, "dense dx");
  expect_close(fc.kernel().grad, f.at("dense_dw"), 1e-6, "dense dw");
  expect_close(fc.bias().grad, f.at("dense_db"), 1e-6, "dense db");
}

TEST(PyTorchFixtures, Conv2dSameValidAndStride2) {
  fixture f = read_fixture("dense_conv");
  struct conv_case {
    const char* name;
    std::size_t stride;
    padding_mode padding;
  };
  for (const conv_case& c : {conv_case{"same_s1", 1, padding_mode::same}, conv_case{"valid_s1", 1, padding_mode::valid},
                             conv_case{"valid_s2", 2, padding_mode::valid}}) {
    const std::string p = std::string("conv_") + c.name + "_";
    conv2d conv("conv", 3, 4, 3, c.stride, c.padding, true);
    std::copy(f.at(p + "w").values().begin(), f.at(p + "w").values().end(), conv.kernel().value.data());
    std::copy(f.at(p + "b").values().begin(), f.at(p + "b").values().end(), conv.bias().value.data());
    op_context ctx;
    tensor y, dx;
    conv.forward(ctx, f.at(p + "x"), y);
    ASSERT_EQ(y.shape(), f.at(p + "y").shape()) << c.name;
    // Sums of 27 products in another order: a few ulps of the largest value.
    expect_close(y, f.at(p + "y"), 2e-6, p + "y");
    conv.backward(ctx, f.at(p + "x"), y, f.at(p + "dy"), &dx);
    expect_close(dx, f.at(p + "dx"), 2e-6, p + "dx");
    expect_close(conv.kernel().grad, f.at(p + "dw"), 2e-6, p + "dw");
    expect_close(conv.bias().grad, f.at(p + "db"), 2e-6, p + "db");
  }
}

TEST(PyTorchFixtures, BatchNormTrainingAndEvaluation) {
  fixture f = read_fixture("batch_norm");
  batch_norm bn("bn", 3);
  auto params = bn.parameters();
  std::copy(f.at("gamma").values().begin(), f.at("gamma").values().end(), params[0]->value.data());
  std::copy(f.at("beta").values().begin(), f.at("beta").values().end(), params[1]->value.data());
  op_context ctx;
  ctx.training = true;
  tensor y, dx;
  bn.forward(ctx, f.at("x"), y);
  // Statistics in double here, in float there (over 24 values per channel).
  expect_close(y, f.at("y"), 2e-6, "bn y");
  expect_close(bn.running_mean(), f.at("running_mean"), 1e-6, "bn running_mean");
  expect_close(bn.running_var(), f.at("running_var"), 1e-6, "bn running_var");
  bn.backward(ctx, f.at("x"), y, f.at("dy"), &dx);
  expect_close(dx, f.at("dx"), 4e-6, "bn dx");
  expect_close(params[0]->grad, f.at("dgamma"), 2e-6, "bn dgamma");
  expect_close(params[1]->grad, f.at("dbeta"), 1e-6, "bn dbeta");
  ctx.training = false;
  bn.forward(ctx, f.at("eval_x"), y);
  expect_close(y, f.at("eval_y"), 1e-6, "bn eval y");
}

// Optimizer steps bit for bit: numlab performs PyTorch 1.13's tensor
// operations in its order, with its fused multiply-adds and its constants
// formed in double (lab/include/lab/optimizer.hpp states the order;
// explain_optimizer_gap.py next to the fixtures shows what each difference
// of the old order cost). With bf16 parameters the pure bf16 policy holds w
// and the state in bf16 and rounds the hyper-parameters PyTorch casts to
// the tensor's dtype (op_context::scalar). These bf16 tensors have 64
// elements, all in the vectorised body of PyTorch's kernels, which numlab
// matches without naming them; the scalar tails, which round add(alpha)'s
// product to bf16 once more, are matched below
// (Bf16OptimizerStepsWithScalarTailsBitForBit).
struct optimizer_case {
  const char* name;
  optimizer_settings settings;
  double lr;
};

// Four steps of case c on fixture f: from "<prefix>w0" with gradients
// "<grads>0..3" (default "<prefix>grad"), comparing w after each step with
// "<prefix><name>_w1..4". `preset` names a precision preset ("" for plain
// fp32, no hook).
void expect_steps_bit_for_bit(const fixture& f, const std::string& prefix, const optimizer_case& c,
                              const char* preset, std::string grads = {}) {
  const std::string name = prefix + c.name;
  if (grads.empty()) grads = prefix + "grad";
  std::unique_ptr<precision_hook> hook;
  if (*preset != '\0') hook = std::make_unique<precision_hook>(precision_preset(preset), 1);
  const tensor& w0 = f.at(prefix + "w0");
  parameter p = make_parameter("w", "test", op_class::elementwise, "value", {w0.size()}, true);
  p.value = w0;
  if (hook) hook->store_parameters({&p});
  optimizer opt(c.settings, {&p});
  for (int step = 0; step < 4; ++step) {
    if (hook) hook->begin_step(static_cast<std::uint64_t>(step));
    p.grad = f.at(grads + std::to_string(step));
    opt.step(hook ? hook->context() : op_context(), c.lr);
    expect_bits(p.value, f.at(name + "_w" + std::to_string(step + 1)), name + " step " + std::to_string(step + 1));
  }
}

optimizer_settings sgd_with(double momentum, bool nesterov, double weight_decay) {
  optimizer_settings s;
  s.kind = optimizer_kind::sgd;
  s.momentum = momentum;
  s.nesterov = nesterov;
  s.weight_decay = weight_decay;
  return s;
}

optimizer_settings adam_with(optimizer_kind kind, double weight_decay, double eps) {
  optimizer_settings s;
  s.kind = kind;
  s.weight_decay = weight_decay;
  s.eps = eps;
  return s;
}

TEST(PyTorchFixtures, OptimizerStepsInFp32BitForBit) {
  const fixture f = read_fixture("optimizers");
  for (const optimizer_case& c : {optimizer_case{"adam", adam_with(optimizer_kind::adam, 0.0, 1e-8), 1e-2},
                                  optimizer_case{"adamw", adam_with(optimizer_kind::adamw, 0.1, 1e-8), 1e-2},
                                  optimizer_case{"sgd_momentum", sgd_with(0.9, false, 0.0), 0.05},
                                  optimizer_case{"nesterov", sgd_with(0.9, true, 0.0), 0.05}})
    expect_steps_bit_for_bit(f, "", c, "");
  const fixture g = read_fixture("optimizers_plain_and_decay");
  for (const optimizer_case& c : {optimizer_case{"sgd", sgd_with(0.0, false, 0.0), 0.05},
                                  optimizer_case{"sgd_decay", sgd_with(0.0, false, 0.01), 0.05},
                                  optimizer_case{"nesterov_decay", sgd_with(0.9, true, 0.01), 0.05},
                                  optimizer_case{"adam_decay", adam_with(optimizer_kind::adam, 0.1, 1e-8), 1e-2}})
    expect_steps_bit_for_bit(g, "", c, "");
  // Gradients that nearly cancel the momentum: a product rounded on its own
  // before the sum changes many elements here (make_fixtures.py says why).
  const fixture h = read_fixture("optimizers_cancelling");
  for (const optimizer_case& c : {optimizer_case{"adam", adam_with(optimizer_kind::adam, 0.0, 1e-8), 1e-2},
                                  optimizer_case{"nesterov_decay", sgd_with(0.9, true, 0.01), 0.05}})
    expect_steps_bit_for_bit(h, "", c, "", std::string(c.name) + "_grad");
}

TEST(PyTorchFixtures, OptimizerStepsWithBf16ParametersUnderThePureBf16PolicyBitForBit) {
  const fixture f = read_fixture("optimizers_bf16");
  for (const optimizer_case& c : {optimizer_case{"adam", adam_with(optimizer_kind::adam, 0.0, 1e-3), 1e-2},
                                  optimizer_case{"sgd_momentum", sgd_with(0.9, false, 0.0), 0.05}})
    expect_steps_bit_for_bit(f, "", c, "bf16");
  const fixture g = read_fixture("optimizers_plain_and_decay");
  for (const optimizer_case& c : {optimizer_case{"adamw", adam_with(optimizer_kind::adamw, 0.5, 1e-3), 1e-1},
                                  optimizer_case{"nesterov", sgd_with(0.9, true, 0.0), 0.05},
                                  optimizer_case{"sgd_decay", sgd_with(0.0, false, 0.01), 0.05}})
    expect_steps_bit_for_bit(g, "bf16_", c, "bf16");
}

// make_fixtures.py's formula_bf16: +-(1 + m/128) * 2^(e - 4 - shift) from a
// multiplicative hash of the index, exact in float and bf16.
tensor formula_bf16(std::size_t n, std::uint64_t salt, int shift) {
  tensor t(shape({n}));
  for (std::size_t i = 0; i < n; ++i) {
    const auto u = static_cast<std::uint32_t>(i * 2654435761ULL + salt * 40503ULL + 12345ULL);
    const double sign = (u >> 31) != 0 ? -1.0 : 1.0;
    const double significand = 1.0 + static_cast<double>((u >> 24) & 127U) / 128.0;
    t[i] = static_cast<float>(sign * std::ldexp(significand, static_cast<int>((u >> 16) & 7U) - 4 - shift));
  }
  return t;
}

// "nN", the prefix of a size's tensors in optimizers_bf16_tails_*.txt
// (appended, not "n" + to_string: GCC 12 warns falsely on that at -O3).
std::string size_tag(std::size_t n) {
  std::string tag = "n";
  tag += std::to_string(n);
  return tag;
}

// Case c's four steps on formula_bf16 parameters of n elements under the
// pure bf16 policy with policy.torch_bf16 = kernels, compared with PyTorch's
// at the elements of "nN_windows". Returns how many compared elements
// differ (each one a test failure when `report`).
std::size_t bf16_tail_mismatches(const fixture& f, std::size_t n, const optimizer_case& c,
                                 std::optional<torch_cpu_kernels> kernels, bool report) {
  precision_policy policy = precision_preset("bf16");
  policy.torch_bf16 = kernels;
  precision_hook hook(policy, 1);
  const std::string tag = size_tag(n);
  parameter p = make_parameter("w", "test", op_class::elementwise, "value", {n}, true);
  p.value = formula_bf16(n, 0, 0);
  hook.store_parameters({&p});
  const tensor& windows = f.at(tag + "_windows");
  optimizer opt(c.settings, {&p});
  std::size_t off = 0;
  for (int step = 0; step < 4; ++step) {
    hook.begin_step(static_cast<std::uint64_t>(step));
    p.grad = formula_bf16(n, static_cast<std::uint64_t>(step) + 1, 2 * step);
    opt.step(hook.context(), c.lr);
    const std::string name = tag + "_" + c.name + "_w" + std::to_string(step + 1);
    const tensor& want = f.at(name);
    std::size_t k = 0;
    for (std::size_t w = 0; w + 1 < windows.size(); w += 2) {
      const auto first = static_cast<std::size_t>(windows[w]);
      for (std::size_t i = first; i < first + static_cast<std::size_t>(windows[w + 1]); ++i, ++k) {
        if (std::bit_cast<std::uint32_t>(p.value[i]) == std::bit_cast<std::uint32_t>(want[k])) continue;
        ++off;
        if (report) ADD_FAILURE() << name << "[" << i << "]: " << p.value[i] << " vs PyTorch " << want[k];
      }
    }
    EXPECT_EQ(k, want.size()) << name;
  }
  return off;
}

// PyTorch's bf16 kernels round add(b, alpha)'s product to bf16 in the
// elements after each parallel chunk's last whole block of two vectors
// (torch_cpu_kernels.hpp). With policy.torch_bf16 naming the capability and
// thread count of the fixture's torch run, every element matches, tails of
// 1 to 63 elements and two threads' chunks included; without it, or with
// the wrong thread count, some do not (so the fixtures tell them apart).
TEST(PyTorchFixtures, Bf16OptimizerStepsWithScalarTailsBitForBit) {
  const std::vector<optimizer_case> cases = {
      {"adam", adam_with(optimizer_kind::adam, 0.0, 1e-3), 1e-2},
      {"adam_decay", adam_with(optimizer_kind::adam, 0.1, 1e-3), 1e-2},
      {"adamw", adam_with(optimizer_kind::adamw, 0.5, 1e-3), 1e-1},
      {"sgd_momentum", sgd_with(0.9, false, 0.0), 0.05},
      {"nesterov", sgd_with(0.9, true, 0.0), 0.05},
      {"sgd_decay", sgd_with(0.0, false, 0.01), 0.05}};
  for (const auto capability : {torch_cpu_capability::avx2, torch_cpu_capability::avx512}) {
    std::string file = "optimizers_bf16_tails_";
    file += capability == torch_cpu_capability::avx2 ? "avx2" : "avx512";
    const fixture f = read_fixture(file);
    for (std::size_t threads = 1; f.count("kernels_" + std::to_string(threads)) != 0; ++threads) {
      const tensor& recorded = f.at("kernels_" + std::to_string(threads));
      const torch_cpu_kernels kernels{capability, threads};
      ASSERT_EQ(kernels.block(), static_cast<std::size_t>(recorded[0])) << file;
      ASSERT_EQ(threads, static_cast<std::size_t>(recorded[1])) << file;
      std::size_t without = 0, one_thread = 0;
      for (const float size : f.at("sizes_" + std::to_string(threads)).values()) {
        const auto n = static_cast<std::size_t>(size);
        const tensor head = formula_bf16(n, 0, 0);
        const std::string tag = size_tag(n);
        const tensor& want_head = f.at(tag + "_w0_head");
        for (std::size_t i = 0; i < want_head.size(); ++i) {
          ASSERT_EQ(std::bit_cast<std::uint32_t>(head[i]), std::bit_cast<std::uint32_t>(want_head[i]))
              << file << ": formula_bf16 differs from make_fixtures.py's at n " << n << " element " << i;
        }
        for (const optimizer_case& c : cases) {
          EXPECT_EQ(bf16_tail_mismatches(f, n, c, kernels, true), 0u) << file << " n " << n << " " << c.name;
          without += bf16_tail_mismatches(f, n, c, std::nullopt, false);
          if (threads > 1) one_thread += bf16_tail_mismatches(f, n, c, torch_cpu_kernels{capability, 1}, false);
        }
      }
      EXPECT_GT(without, 0u) << file << " (" << threads << " threads) cannot tell the emulation from its absence";
      if (threads > 1) {
        EXPECT_GT(one_thread, 0u) << file << " cannot tell " << threads << " threads from 1";
      }
    }
  }
}

}  // namespace
}  // namespace lab

namespace lab {
namespace {

// GradScaler step by step (grad_scaler.txt; how make_fixtures.py replays it
// is said there): the unscaled gradients bit for bit, found_inf, the skip
// (a skipped step leaves w bit for bit as it was), the scale and the growth
// tracker after every update(), including a growth fp32 cannot hold, and
// the SGD-momentum step's weights.
TEST(PyTorchFixtures, GradScalerSequenceStepByStep) {
  fixture f = read_fixture("grad_scaler");
  for (const std::string key : {"a", "b"}) {
    const tensor& settings = f.at(key + "_settings");
    loss_scaling s;
    s.mode = loss_scaling::kind::dynamic;
    s.scale = settings[0];
    s.growth_factor = settings[1];
    s.backoff_factor = settings[2];
    s.growth_interval = static_cast<std::size_t>(settings[3]);
    loss_scaler scaler(s);
    optimizer_settings heavy;
    heavy.kind = optimizer_kind::sgd;
    heavy.momentum = 0.9;
    parameter p = make_parameter("w", "test", op_class::elementwise, "value", {8}, true);
    p.value = f.at(key + "_w0");
    optimizer opt(heavy, {&p});
    op_context ctx;
    std::size_t steps = 0;
    for (; f.count(key + "_scaled_grad" + std::to_string(steps)) != 0; ++steps) {
      const std::string at = std::to_string(steps), after = std::to_string(steps + 1);
      const std::string what = "sequence " + key + " step " + at;
      p.grad = f.at(key + "_scaled_grad" + at);
      const tensor before = p.value;
      const bool found_inf = scaler.unscale({&p});
      expect_bits(p.grad, f.at(key + "_grad" + at), what + " unscaled gradient");
      ASSERT_EQ(found_inf, f.at(key + "_found_inf" + at)[0] != 0.0f) << what;
      if (!found_inf) opt.step(ctx, 0.1);
      scaler.update(found_inf);
      if (found_inf) expect_bits(p.value, before, what + " skipped: w unchanged");
      expect_bits(p.value, f.at(key + "_w" + after), what + " w");
      EXPECT_EQ(std::bit_cast<std::uint32_t>(static_cast<float>(scaler.scale())),
                std::bit_cast<std::uint32_t>(f.at(key + "_scale" + after)[0]))
          << what << ": scale " << scaler.scale() << " vs PyTorch " << f.at(key + "_scale" + after)[0];
      EXPECT_EQ(static_cast<float>(scaler.growth_tracker()), f.at(key + "_tracker" + after)[0]) << what;
    }
    EXPECT_EQ(steps, key == "a" ? 10u : 7u) << "sequence " << key << " steps read";
  }
}

// clip_grad_norm_ (clip_grad_norm.txt): each gradient's torch.norm, the
// returned norm and every clipped gradient bit for bit, including a norm just below max_norm that torch
// still scales and one far below that it leaves alone.
TEST(PyTorchFixtures, ClipGradNormBitForBit) {
  fixture f = read_fixture("clip_grad_norm");
  for (const std::string name : {"fused", "mixed", "edge", "below", "long", "many"}) {
    const tensor& settings = f.at(name + "_settings");
    std::vector<parameter> owned;
    for (std::size_t i = 0; i < static_cast<std::size_t>(settings[1]); ++i) {
      const tensor& g = f.at(name + "_g" + std::to_string(i));
      owned.push_back(make_parameter("w", "test", op_class::elementwise, "value", {g.size()}, true));
      owned.back().grad = g;
      const float norm = torch_fp32_norm(g.values());
      EXPECT_EQ(std::bit_cast<std::uint32_t>(norm), std::bit_cast<std::uint32_t>(f.at(name + "_norm_g" + std::to_string(i))[0]))
          << name << " gradient " << i << ": norm " << norm << " vs PyTorch " << f.at(name + "_norm_g" + std::to_string(i))[0];
    }
    std::vector<parameter*> params;
    for (auto& p : owned) params.push_back(&p);
    const double norm = clip_gradient_norm(params, settings[0]);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(static_cast<float>(norm)), std::bit_cast<std::uint32_t>(f.at(name + "_norm")[0]))
        << name << ": norm " << norm << " vs PyTorch " << f.at(name + "_norm")[0];
    for (std::size_t i = 0; i < owned.size(); ++i)
      expect_bits(owned[i].grad, f.at(name + "_clipped" + std::to_string(i)), name + " clipped " + std::to_string(i));
  }
}

}  // namespace
}  // namespace lab
