// The scaled-format recipes (scaled_recipe.hpp): one training step of a dense
// layer under each preset, every quantized GEMM operand and its scales
// compared bit for bit with num::quantize called here on the same tensors,
// laid out by hand (the layer's input, weight and output gradient, transposed
// where the GEMM reduces along the other axis); delayed scaling's history and
// the Hadamard transform against values worked out here.
#include <gtest/gtest.h>

#include <libnum/scaled_array.hpp>
#include <libnum/scaled_tensor_scale.hpp>

#include <bit>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "lab/conv2d.hpp"
#include "lab/dense.hpp"
#include "lab/hadamard.hpp"
#include "lab/precision_hook.hpp"
#include "lab/precision_policy.hpp"
#include "lab/rng.hpp"
#include "lab/scaled_gemm.hpp"
#include "scaled_test_support.hpp"

namespace lab {
namespace {

// Batch, input and output widths: every reduction dimension (in, out, batch)
// crosses 128 and is no multiple of 16 or 32, so partial blocks, 128-wide
// tiles and the Hadamard transform's short last run all occur.
constexpr std::size_t batch_rows = 136, in_features = 150, out_features = 133;

// A copy of one quantized operand.
struct seen_operand {
  num::tensor_shape shape;
  std::vector<float> values;
  std::vector<std::uint32_t> scales;
  std::vector<float> dequantized;
  num::scaled_counts counts;
  num::scaled_options options;
  float tensor_amax = 0.0f;
  std::vector<float> history;
};

using operand_key = std::tuple<tensor_role, gemm_operand>;  // (GEMM output role, operand)

class operand_recorder : public scaled_test::operand_watcher {
 public:
  void observe_quantized(const site& where, const quantized_operand& q) override {
    EXPECT_EQ(where.layer, "d");
    seen_operand s{q.shape,
                   {q.values.begin(), q.values.end()},
                   {q.scales.begin(), q.scales.end()},
                   {q.dequantized.begin(), q.dequantized.end()},
                   q.result.counts,
                   q.options,
                   q.tensor_amax,
                   {q.amax_history.begin(), q.amax_history.end()}};
    seen[{q.gemm_role, q.operand}] = std::move(s);
    parts.push_back({q.gemm_role, q.operand, q.part, q.options.format.rule, q.options.given_scale});
  }
  struct part_scale {
    tensor_role gemm;
    gemm_operand operand;
    std::size_t part;
    num::scale_rule rule;
    float given_scale;
  };
  std::map<operand_key, seen_operand> seen;
  std::vector<part_scale> parts;  // every call, in order
};

std::vector<float> transpose(std::span<const float> x, std::size_t rows, std::size_t cols) {
  std::vector<float> t(x.size());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) t[c * rows + r] = x[r * cols + c];
  return t;
}

std::vector<float> normal_values(std::size_t n, std::uint32_t seed, float sd) {
  std::vector<float> v = scaled_test::normal_values(n, seed, sd);
  v[n / 3] = 40.0f * sd;  // an outlier: its block's small values flush
  return v;
}

float largest_abs(std::span<const float> x) {
  float m = 0.0f;
  for (float v : x) m = std::max(m, std::fabs(v));
  return m;
}

// One training step's forward and backward of a dense layer d (in -> out)
// through the policy; returns what each GEMM quantized.
struct step_tensors {
  std::vector<float> x, w, dy;  // input [batch, in], weight [out, in], output gradient [batch, out]
};

std::map<operand_key, seen_operand> run_step(precision_hook& hook, operand_recorder& rec, dense& d,
                                              const step_tensors& t, std::uint64_t step,
                                              std::vector<float>* output = nullptr) {
  rec.seen.clear();
  auto& kernel = *d.parameters().front();
  std::copy(t.w.begin(), t.w.end(), kernel.value.values().begin());
  tensor x({batch_rows, in_features}), y, dy({batch_rows, out_features}), dx;
  std::copy(t.x.begin(), t.x.end(), x.values().begin());
  std::copy(t.dy.begin(), t.dy.end(), dy.values().begin());
  kernel.grad.zero();
  hook.begin_step(step);
  const op_context ctx = hook.context();
  d.forward(ctx, x, y);
  d.backward(ctx, x, y, dy, &dx);
  hook.end_step();
  if (output != nullptr) output->assign(y.values().begin(), y.values().end());
  return rec.seen;
}

// What num::quantize makes of `values` (rows x k) with the recipe's format
// for `operand`; `given` replaces a per-tensor scale where delayed scaling
// supplies it.
void expect_quantized_as_reference(const seen_operand& got, std::span<const float> values, num::tensor_shape shape,
                                   const num::scaled_format& format, const num::round_spec& spec,
                                   std::optional<float> given, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(got.shape.rows, shape.rows);
  ASSERT_EQ(got.shape.cols, shape.cols);
  num::scaled_options o;
  o.format = format;
  o.spec.mode = spec.mode;
  o.spec.random_bits = spec.random_bits;
  if (given) {
    o.format.rule = num::scale_rule::fp32_given;
    o.given_scale = *given;
  }
  // The stream is the recipe's choice (checked apart); the rounding with it is not.
  o.seed = got.options.seed;
  o.stream = got.options.stream;
  std::vector<std::uint8_t> elements(num::element_bytes(o.format.element, o.layout, shape.size()));
  std::vector<std::uint32_t> scales(num::scale_count(o.format, shape));
  const auto r = num::quantize(values, shape, elements, scales, o);
  EXPECT_EQ(got.scales, scales);
  // Current scaling hands libnum the whole tensor's scale as a given one
  // (conv2d quantizes the tensor in parts) and counts its flushes as the
  // fp32_amax rule would: equal to the reference's counts.
  if (!given) {
    EXPECT_EQ(got.counts, r.counts);
  } else {
    // A given scale here is delayed scaling's: libnum counts its flushes as
    // underflow_to_zero, the recipe as block_underflow where the fp32_amax
    // scale of the element alone would hold it, which at margin 0 is every
    // element above max_elem · 2^-150 (all of these normal-distributed ones).
    num::scaled_counts want = r.counts;
    want.block_underflow += want.underflow_to_zero;
    want.underflow_to_zero = 0;
    EXPECT_EQ(got.counts, want);
  }
  std::vector<float> dq(shape.size());
  num::dequantize(elements, scales, r.tensor_scale, shape, dq, o);
  // Bit for bit: the elements are the dequantized values over their scales.
  ASSERT_EQ(got.dequantized.size(), dq.size());
  for (std::size_t i = 0; i < dq.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got.dequantized[i]), std::bit_cast<std::uint32_t>(dq[i])) << i;
}

class ScaledRecipe : public ::testing::TestWithParam<std::string> {};

TEST_P(ScaledRecipe, EveryGemmOperandIsLibnumsQuantizationAlongItsReductionDimension) {
  const precision_policy policy = precision_preset(GetParam());
  const scaled_recipe& recipe = policy.scaled;
  operand_recorder rec;
  precision_hook hook(policy, 11, &rec);
  dense d("d", in_features, out_features);
  step_tensors t{normal_values(batch_rows * in_features, 1, 1.0f), normal_values(out_features * in_features, 2, 0.05f),
                 normal_values(batch_rows * out_features, 3, 1e-3f)};
  std::vector<float> y;
  const auto seen = run_step(hook, rec, d, t, 0, &y);
  ASSERT_EQ(seen.size(), 6u);

  const auto wt = transpose(t.w, out_features, in_features);
  const auto dyt = transpose(t.dy, batch_rows, out_features);
  const auto xt = transpose(t.x, batch_rows, in_features);
  const auto given = [&](gemm_operand o) -> std::optional<float> {
    // Delayed scaling's first step: an empty history, scale 1 (TE's initial scale).
    if (recipe.per_tensor(o) && recipe.scaling == tensor_scaling::delayed) return 1.0f;
    return std::nullopt;
  };
  const auto spec = [&](gemm_operand o) { return policy.spec(rounding_role_of(o)); };
  const auto check = [&](tensor_role gemm, gemm_operand o, std::span<const float> values, num::tensor_shape shape,
                         const std::string& what) {
    const auto it = seen.find({gemm, o});
    ASSERT_NE(it, seen.end()) << what;
    expect_quantized_as_reference(it->second, values, shape, recipe.format(o), spec(o), given(o), what);
  };
  // forward: Y = X Wᵀ, reduced over in_features.
  check(tensor_role::activation, gemm_operand::activation, t.x, {batch_rows, in_features}, "forward X");
  check(tensor_role::activation, gemm_operand::weight, t.w, {out_features, in_features}, "forward W");
  // dgrad: dX = dY W, reduced over out_features: W quantized along its columns.
  check(tensor_role::grad_input, gemm_operand::gradient, t.dy, {batch_rows, out_features}, "dgrad dY");
  check(tensor_role::grad_input, gemm_operand::weight, wt, {in_features, out_features}, "dgrad Wt");
  // wgrad: dW = dYᵀ X, reduced over the batch (after the Hadamard transform
  // where the recipe has it; its values are checked apart below).
  const bool hadamard = recipe.hadamard;
  const auto& wg_dy = seen.at({tensor_role::grad_weight, gemm_operand::gradient});
  const auto& wg_x = seen.at({tensor_role::grad_weight, gemm_operand::activation});
  check(tensor_role::grad_weight, gemm_operand::gradient, hadamard ? wg_dy.values : dyt, {out_features, batch_rows},
        "wgrad dYt");
  check(tensor_role::grad_weight, gemm_operand::activation, hadamard ? wg_x.values : xt, {in_features, batch_rows},
        "wgrad Xt");
  if (hadamard) {
    EXPECT_NE(wg_dy.values, dyt);
    EXPECT_NE(wg_x.values, xt);
  }
  // Stochastic rounding draws a stream of its own for every operand.
  if (spec(gemm_operand::gradient).mode == num::rounding::stochastic) {
    EXPECT_NE(wg_dy.options.stream, seen.at({tensor_role::grad_input, gemm_operand::gradient}).options.stream);
  }

  // The GEMM multiplied exactly the dequantized operands (fp32 partials):
  // the output is within fp32 summation error of their product in double.
  const auto& fx = seen.at({tensor_role::activation, gemm_operand::activation});
  const auto& fw = seen.at({tensor_role::activation, gemm_operand::weight});
  for (std::size_t i = 0; i < batch_rows; i += 17)
    for (std::size_t o = 0; o < out_features; o += 13) {
      double sum = 0.0, mag = 0.0;
      for (std::size_t p = 0; p < in_features; ++p) {
        const double prod =
            static_cast<double>(fx.dequantized[i * in_features + p]) * fw.dequantized[o * in_features + p];
        sum += prod;
        mag += std::fabs(prod);
      }
      EXPECT_NEAR(y[i * out_features + o], sum, mag * 1e-5 + 1e-30) << i << "," << o;
    }
}

INSTANTIATE_TEST_SUITE_P(Presets, ScaledRecipe,
                         ::testing::Values("fp8-current", "fp8-delayed", "fp8-blockwise", "mxfp8", "mxfp4", "nvfp4"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (auto& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

TEST(ScaledRecipeDelayed, TheSecondStepScalesFromTheFirstStepsAmaxHistory) {
  precision_config config;
  config.preset = "fp8-delayed";
  config.refinements["scaled.amax_history_len"] = "4";
  const precision_policy policy = config.resolve();
  operand_recorder rec;
  precision_hook hook(policy, 5, &rec);
  dense d("d", in_features, out_features);
  const step_tensors first{normal_values(batch_rows * in_features, 1, 1.0f),
                           normal_values(out_features * in_features, 2, 0.05f),
                           normal_values(batch_rows * out_features, 3, 1e-3f)};
  // The second step's tensors are 8 times smaller: current scaling would
  // scale them 8 times finer than the history does.
  step_tensors second = first;
  for (auto* v : {&second.x, &second.w, &second.dy})
    for (auto& e : *v) e *= 0.125f;
  run_step(hook, rec, d, first, 0);
  const auto seen = run_step(hook, rec, d, second, 1);
  const struct {
    gemm_operand operand;
    tensor_role gemm;
    const std::vector<float>& now;
    const std::vector<float>& before;
    num::tensor_shape shape;
  } cases[] = {
      {gemm_operand::activation, tensor_role::activation, second.x, first.x, {batch_rows, in_features}},
      {gemm_operand::weight, tensor_role::activation, second.w, first.w, {out_features, in_features}},
      {gemm_operand::gradient, tensor_role::grad_input, second.dy, first.dy, {batch_rows, out_features}},
  };
  for (const auto& c : cases) {
    const auto& got = seen.at({c.gemm, c.operand});
    const float amax0 = largest_abs(c.before);
    ASSERT_EQ(got.history, std::vector<float>{amax0});
    EXPECT_EQ(got.tensor_amax, amax0);
    // fp8_max / amax as TE's scale; libnum keeps its inverse, the decode scale.
    const auto element = policy.scaled.format(c.operand).element;
    const float scale = num::amax_scale(amax0, element, 0);
    EXPECT_EQ(scale, static_cast<float>(static_cast<double>(amax0) / num::element_max(element)));
    expect_quantized_as_reference(got, c.now, c.shape, policy.scaled.format(c.operand),
                                  policy.spec(rounding_role_of(c.operand)), scale,
                                  std::string(gemm_operand_name(c.operand)));
  }
}

// conv2d splits its batch into several GEMMs (run by two workers here); a
// per-tensor scale still comes from the whole tensor's amax.
TEST(ScaledRecipeConv, PerTensorScalesComeFromTheWholeTensorInEveryChunk) {
  const precision_policy policy = precision_preset("fp8-current");
  operand_recorder rec;
  precision_hook hook(policy, 3, &rec);
  conv2d c("d", 3, 4, 3, 1, padding_mode::same, true);
  rng gen(1);
  c.initialise(gen);
  const std::size_t n = 6, hw = 12;  // 144 pixels an image: 3 images a chunk, 2 chunks
  tensor x({n, 3, hw, hw}), y, dy({n, 4, hw, hw}), dx;
  const auto xv = normal_values(x.size(), 4, 1.0f), dyv = normal_values(dy.size(), 5, 1e-3f);
  std::copy(xv.begin(), xv.end(), x.values().begin());
  std::copy(dyv.begin(), dyv.end(), dy.values().begin());
  hook.begin_step(0);
  op_context ctx = hook.context();
  ctx.threads = 2;
  c.forward(ctx, x, y);
  c.backward(ctx, x, y, dy, &dx);
  const auto& w = c.parameters().front()->value;
  const float x_scale = num::amax_scale(largest_abs(xv), num::element_type::e4m3, 0);
  const float w_scale = num::amax_scale(largest_abs(w.values()), num::element_type::e4m3, 0);
  const float dy_scale = num::amax_scale(largest_abs(dyv), num::element_type::e5m2, 0);
  std::size_t second_chunk = 0;
  ASSERT_EQ(rec.parts.size(), 12u);  // 3 GEMMs x 2 chunks x 2 operands
  for (const auto& p : rec.parts) {
    EXPECT_EQ(p.rule, num::scale_rule::fp32_given);
    const float expected = p.operand == gemm_operand::activation ? x_scale
                           : p.operand == gemm_operand::weight   ? w_scale
                                                                 : dy_scale;
    EXPECT_EQ(p.given_scale, expected) << gemm_operand_name(p.operand) << " part " << p.part;
    second_chunk += p.part == 1;
  }
  EXPECT_EQ(second_chunk, 6u);
}

TEST(ScaledRecipeHadamard, TransformIsTheOrthogonalMatrixTimesEachRunOf16) {
  const auto signs = hadamard_signs(3);
  int negative = 0;
  for (float s : signs) {
    EXPECT_TRUE(s == 1.0f || s == -1.0f);
    negative += s < 0.0f;
  }
  EXPECT_GT(negative, 0);
  EXPECT_LT(negative, 16);
  // Rows of 37: two full runs and a tail of 5 that stays.
  const std::size_t rows = 3, k = 37;
  auto x = normal_values(rows * k, 9, 1.0f);
  const auto before = x;
  hadamard_transform_rows(x, k, signs);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t p = 0; p < k; ++p) {
      const std::size_t run = p / 16, j = p % 16;
      if (run == 2) {
        EXPECT_EQ(x[r * k + p], before[r * k + p]);
        continue;
      }
      // (x·D·H16/4)_j with H16[i][j] = (-1)^popcount(i & j), in double.
      double expected = 0.0, mag = 0.0;
      for (std::size_t i = 0; i < 16; ++i) {
        const double term = static_cast<double>(before[r * k + run * 16 + i]) * signs[i] *
                            ((std::popcount(i & j) % 2) != 0 ? -1.0 : 1.0) / 4.0;
        expected += term;
        mag += std::fabs(term);
      }
      EXPECT_NEAR(x[r * k + p], expected, mag * 4 * 0x1p-24) << r << "," << p;
    }
  // Bit for bit the fp32 steps the header names (on a CPU with AVX-512 this
  // checks its vector path): signs, butterflies h = 1, 2, 4, 8, × 1/4.
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t run = 0; run < 2; ++run) {
      float v[16];
      scaled_test::hadamard_run_steps(before.data() + r * k + run * 16, signs.data(), v);
      for (std::size_t i = 0; i < 16; ++i)
        EXPECT_EQ(std::bit_cast<std::uint32_t>(x[r * k + run * 16 + i]), std::bit_cast<std::uint32_t>(v[i]))
            << r << "," << run * 16 + i;
    }
}

TEST(ScaledRecipeKeys, ScaledClassOnlyForGemmsAndBadValuesNamed) {
  precision_config c;
  set_precision_value(c, "precision", "mxfp8", "t");
  set_precision_value(c, "autocast.conv", "fp32", "t");
  set_precision_value(c, "scaled.gradient", "mxfp8-e5m2", "t");
  set_precision_value(c, "layers.fc2.precision", "bf16", "t");
  const precision_policy p = c.resolve();
  EXPECT_EQ(p.of(op_class::matmul), class_precision::scaled);
  EXPECT_EQ(p.of(op_class::conv), class_precision::fp32);
  EXPECT_EQ(p.scaled.format(gemm_operand::gradient), *num::find_scaled_format("mxfp8-e5m2"));
  EXPECT_EQ(p.layers.at("fc2"), num::bfloat16_format);
  EXPECT_FALSE(p.is_fp32());
  const auto message = [&](const std::string& key, const std::string& value) {
    try {
      set_precision_value(c, key, value, "f.yml:3");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("autocast.norm", "scaled").find("f.yml:3"), std::string::npos);
  EXPECT_NE(message("scaled.weight", "e4m3/fp32-given/tensor").find("unknown scale rule"), std::string::npos);
  EXPECT_NE(message("scaled.weight", "e4m3/mx-floor/0").find("scaled.weight"), std::string::npos);
  EXPECT_NE(message("scaled.amax_history_len", "0").find("positive"), std::string::npos);
  EXPECT_NE(message("scaled.scaling", "lazy").find("current or delayed"), std::string::npos);
}

}  // namespace
}  // namespace lab
