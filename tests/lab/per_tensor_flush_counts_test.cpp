// What fp8-current and fp8-delayed count as block underflow and as underflow
// to zero (scaled_gemm.hpp, operand_quantization::given_scale_stands_for):
// a per-tensor scale is the tensor's block scale, so an element it flushes is
// block underflow where the scale of that element alone would hold it, and
// underflow to zero where even that scale flushes it. The expected counts are
// worked out by hand below for one forward input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "lab/dense.hpp"
#include "lab/precision_hook.hpp"
#include "lab/precision_policy.hpp"
#include "scaled_test_support.hpp"

namespace lab {
namespace {

class forward_input_counts : public scaled_test::operand_watcher {
 public:
  void observe_quantized(const site&, const quantized_operand& q) override {
    if (q.gemm_role == tensor_role::activation && q.operand == gemm_operand::activation) counts = q.result.counts;
  }
  num::scaled_counts counts;
};

// Two rows of 8 inputs, amax 448 (E4M3's largest), so the current scale and
// delayed scaling's first scale (an empty history) are both 1: an element
// flushes where |x| <= 2^-10 (half E4M3's smallest subnormal 2^-9, the tie
// going to even zero). Flushed: 2^-11, -2^-12, 1e-30, 2^-149, 2^-10 and
// 5e-4 (< 2^-10); kept: 1e-3 and 1.5·2^-10 (above the half), 2^-9, and the
// large values. Of 14 nonzero inputs, 6 flush.
const std::vector<float> inputs = {448.0f, 0x1p-11f, -0x1p-12f, 1e-30f, 0x1p-149f, 0.0f, 1.0f, 0x1p-10f,
                                   -3.0f, 0.25f, 0x1.8p-10f, 1e-3f, 0.0f, 5e-4f, 0x1p-9f, 7.0f};
constexpr std::size_t rows = 2, cols = 8;

num::scaled_counts forward_input_counts_under(const std::string& preset, const std::string& margin) {
  precision_config config;
  config.preset = preset;
  config.refinements["scaled.margin"] = margin;
  const precision_policy policy = config.resolve();
  forward_input_counts rec;
  precision_hook hook(policy, 1, &rec);
  dense d("d", cols, 3);
  tensor x({rows, cols}), y;
  std::copy(inputs.begin(), inputs.end(), x.values().begin());
  hook.begin_step(0);
  d.forward(hook.context(), x, y);
  hook.end_step();
  return rec.counts;
}

TEST(PerTensorFlushCounts, FlushesTheElementsOwnScaleHoldsAreBlockUnderflow) {
  // Margin 0: a lone x's own scale |x| / 448 maps it onto 448, and where that
  // scale underflows fp32 (2^-149's) it is clamped to 2^-149, which still
  // maps 2^-149 onto 1: every flush is the per-tensor scale's doing.
  for (const std::string preset : {"fp8-current", "fp8-delayed"}) {
    SCOPED_TRACE(preset);
    const num::scaled_counts c = forward_input_counts_under(preset, "0");
    EXPECT_EQ(c.elements, rows * cols);
    EXPECT_EQ(c.blocks, 1u);
    EXPECT_EQ(c.block_underflow, 6u);
    EXPECT_EQ(c.underflow_to_zero, 0u);
    EXPECT_EQ(c.saturated, 0u);
  }
}

TEST(PerTensorFlushCounts, FlushesEvenTheOwnScaleMakesAreUnderflowToZero) {
  // Margin 20, current scaling: the scale is 448 · 2^20 / 448 = 2^20, so
  // every |x| <= 448 becomes at most 448 · 2^-20 < 2^-10 and all 14 nonzero
  // inputs flush; a lone x's own scale |x| · 2^20 / 448 maps it onto the same
  // 448 · 2^-20 (for 2^-149 a subnormal scale 2^-12 off at most), which
  // flushes too.
  const num::scaled_counts c = forward_input_counts_under("fp8-current", "20");
  EXPECT_EQ(c.block_underflow, 0u);
  EXPECT_EQ(c.underflow_to_zero, 14u);
}

}  // namespace
}  // namespace lab
