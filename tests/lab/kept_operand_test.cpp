// The weight's quantization kept across conv2d's chunks (kept_operand.hpp):
// every chunk's forward and dgrad GEMM multiplies exactly what num::quantize
// called here makes of the weight now, also after the weight changed within
// a step; stochastically rounded weights still draw a stream per chunk.
#include <gtest/gtest.h>

#include <libnum/scaled_array.hpp>

#include <bit>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lab/conv2d.hpp"
#include "lab/kept_operand.hpp"
#include "lab/precision_hook.hpp"
#include "lab/precision_policy.hpp"
#include "lab/rng.hpp"
#include "scaled_test_support.hpp"

namespace lab {
namespace {

constexpr std::size_t images = 6, in_c = 3, out_c = 4, hw = 12, ksize = 3;  // 3 images a chunk, 2 chunks
constexpr std::size_t crs = in_c * ksize * ksize;

struct seen_weight {
  tensor_role gemm;
  std::size_t part;
  std::vector<float> dequantized;
  num::scaled_counts counts;
  std::uint64_t stream;
  const float* storage;  // where the GEMM read the dequantized weight from
};

class weight_recorder : public scaled_test::operand_watcher {
 public:
  void observe_quantized(const site&, const quantized_operand& q) override {
    if (q.operand == gemm_operand::weight)
      seen.push_back({q.gemm_role, q.part, {q.dequantized.begin(), q.dequantized.end()}, q.result.counts,
                      q.options.stream, q.dequantized.data()});
  }
  std::vector<seen_weight> seen;
};

using scaled_test::normal_values;

// The weight [out_c, crs] quantized along crs (forward) or, transposed, along out_c (dgrad), by libnum.
std::vector<float> reference(std::span<const float> w, bool along_out_channels, const num::scaled_options& o) {
  std::vector<float> values(w.begin(), w.end());
  num::tensor_shape shape{out_c, crs};
  if (along_out_channels) {
    shape = {crs, out_c};
    for (std::size_t k = 0; k < out_c; ++k)
      for (std::size_t p = 0; p < crs; ++p) values[p * out_c + k] = w[k * crs + p];
  }
  std::vector<std::uint8_t> elements(num::element_bytes(o.format.element, o.layout, shape.size()));
  std::vector<std::uint32_t> scales(num::scale_count(o.format, shape));
  const auto r = num::quantize(values, shape, elements, scales, o);
  std::vector<float> dq(shape.size());
  num::dequantize(elements, scales, r.tensor_scale, shape, dq, o);
  return dq;
}

bool same_bits(std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::uint32_t>(a[i]) != std::bit_cast<std::uint32_t>(b[i])) return false;
  return true;
}

struct conv_run {
  explicit conv_run(const precision_policy& policy) : hook(policy, 7, &rec), c("c", in_c, out_c, ksize, 1, padding_mode::same, true) {
    rng gen(1);
    c.initialise(gen);
    x = tensor({images, in_c, hw, hw});
    dy = tensor({images, out_c, hw, hw});
    const auto xv = normal_values(x.size(), 2, 1.0f), dyv = normal_values(dy.size(), 3, 1e-3f);
    std::copy(xv.begin(), xv.end(), x.values().begin());
    std::copy(dyv.begin(), dyv.end(), dy.values().begin());
  }
  void pass() {
    op_context ctx = hook.context();
    ctx.threads = threads;
    c.forward(ctx, x, y);
    c.backward(ctx, x, y, dy, &dx);
  }
  std::span<float> weight() { return c.parameters().front()->value.values(); }
  std::size_t threads = 2;
  weight_recorder rec;
  precision_hook hook;
  conv2d c;
  tensor x, y, dy, dx;
};

// Every GEMM part of the pass just run (forward and dgrad, 2 chunks each)
// multiplied exactly what libnum makes of the weight now; `also` checks
// more of each.
template <typename Check>
void expect_the_weight_as_it_is_now(conv_run& run, const num::scaled_options& o, Check also) {
  const std::vector<float> w(run.weight().begin(), run.weight().end());
  const auto forward = reference(w, false, o), dgrad = reference(w, true, o);
  ASSERT_EQ(run.rec.seen.size(), 4u);
  for (const auto& s : run.rec.seen) {
    SCOPED_TRACE(std::string(role_name(s.gemm)) + " part " + std::to_string(s.part));
    EXPECT_TRUE(same_bits(s.dequantized, s.gemm == tensor_role::activation ? forward : dgrad));
    also(s);
  }
}

TEST(KeptWeight, EveryChunkMultipliesTheWeightAsItIsNowEvenAfterItChanged) {
  const precision_policy policy = precision_preset("mxfp8");
  conv_run run(policy);
  num::scaled_options o;
  o.format = policy.scaled.format(gemm_operand::weight);
  run.hook.begin_step(0);
  for (int pass = 0; pass < 2; ++pass) {
    SCOPED_TRACE("pass " + std::to_string(pass));
    // The second pass of the same step sees a changed weight (one element
    // doubled): a kept quantization of the old one must not be used.
    if (pass == 1) run.weight()[5] *= 2.0f;
    run.rec.seen.clear();
    run.pass();
    std::map<tensor_role, num::scaled_counts> first_counts;
    expect_the_weight_as_it_is_now(run, o, [&](const seen_weight& s) {
      // Every chunk reports the quantization's counts, kept or not.
      const auto [it, first] = first_counts.emplace(s.gemm, s.counts);
      if (!first) {
        EXPECT_EQ(s.counts, it->second);
      }
    });
  }
  run.hook.end_step();
}

TEST(KeptWeight, EachStepQuantizesTheNewWeightIntoTheStorageOfTheLastOne) {
  // Steps whose weight changes: every chunk still multiplies exactly what
  // libnum makes of the weight now, and the quantization is written where
  // the last step's was (no allocation, no fresh pages per step). One
  // worker, so that no chunk of the same GEMM holds the kept one meanwhile.
  const precision_policy policy = precision_preset("mxfp8");
  conv_run run(policy);
  run.threads = 1;
  num::scaled_options o;
  o.format = policy.scaled.format(gemm_operand::weight);
  std::map<tensor_role, const float*> first_storage;
  for (std::uint64_t step = 0; step < 4; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    run.hook.begin_step(step);
    for (std::size_t i = 0; i < run.weight().size(); i += 7) run.weight()[i] *= 1.5f;
    run.rec.seen.clear();
    run.pass();
    run.hook.end_step();
    expect_the_weight_as_it_is_now(run, o, [&](const seen_weight& s) {
      const auto [it, first] = first_storage.emplace(s.gemm, s.storage);
      if (!first) {
        EXPECT_EQ(s.storage, it->second);
      }
    });
  }
}

TEST(OperandKeeper, HandsBackItsStorageOnlyWhereNothingElseHoldsIt) {
  operand_keeper keeper;
  EXPECT_EQ(keeper.take_unshared(), nullptr);  // nothing kept
  auto kept = std::make_shared<kept_quantization>();
  const kept_quantization* at = kept.get();
  keeper.keep(kept);  // `kept` still holds it too, as a GEMM part reading it would
  EXPECT_EQ(keeper.take_unshared(), nullptr);
  kept.reset();
  const auto taken = keeper.take_unshared();
  EXPECT_EQ(taken.get(), at);
  EXPECT_EQ(keeper.take_unshared(), nullptr);  // taken out: the keeper holds none
}

TEST(KeptWeight, StochasticallyRoundedWeightsAreQuantizedPerChunk) {
  precision_config config;
  config.preset = "mxfp8";
  config.refinements["rounding.weight"] = "stochastic";
  const precision_policy policy = config.resolve();
  conv_run run(policy);
  run.hook.begin_step(0);
  run.pass();
  run.hook.end_step();
  ASSERT_EQ(run.rec.seen.size(), 4u);
  const seen_weight *part0 = nullptr, *part1 = nullptr;
  for (const auto& s : run.rec.seen)
    if (s.gemm == tensor_role::activation) (s.part == 0 ? part0 : part1) = &s;
  ASSERT_TRUE(part0 != nullptr && part1 != nullptr);
  EXPECT_NE(part0->stream, part1->stream);
  // Two streams round some of the weight's elements differently.
  EXPECT_FALSE(same_bits(part0->dequantized, part1->dequantized));
}

}  // namespace
}  // namespace lab
