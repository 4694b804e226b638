// The scaled-format censuses (scaled_census.hpp) on hand-made quantized
// operands, against values worked out by hand; and the scaled experiments'
// tiny runs on what their rules guarantee.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "experiments/experiment.hpp"
#include "experiments/scaled_census.hpp"

namespace numlab::experiments {
namespace {

lab::quantized_operand operand(const std::vector<float>& values, const std::vector<float>& dequantized) {
  lab::quantized_operand q;
  q.values = values;
  q.dequantized = dequantized;
  q.result.counts.elements = values.size();
  return q;
}

TEST(ScaledCensus, MagnitudeBiasAndCountsAreTheHandDerivedOnes) {
  const std::vector<float> values{1.0f, -2.0f, 0.0f, 3.0f, 0.25f};
  const std::vector<float> dequantized{1.0f, -1.5f, 0.0f, 4.0f, 0.0f};
  lab::quantized_operand q = operand(values, dequantized);
  q.result.counts.block_underflow = 1;  // the 0.25
  q.result.counts.saturated = 1;
  scaled_census c;
  c.add(q);
  // Nonzero: 1, -2, 3, 0.25. sign(x)(Q(x) - x): 0, -(0.5), +1, -0.25 -> 0.25;
  // sum |x| = 6.25: bias 4%. Block underflow 1 of 4 nonzero: 25%; saturated 1 of 5: 20%.
  EXPECT_EQ(c.nonzero, 4u);
  EXPECT_DOUBLE_EQ(c.signed_error, 0.25);
  EXPECT_DOUBLE_EQ(c.magnitude, 6.25);
  EXPECT_EQ(census_cell(c, census_measure::bias), "4");
  EXPECT_EQ(census_cell(c, census_measure::block_underflow), "25.000");
  EXPECT_EQ(census_cell(c, census_measure::saturated), "20.000");
  EXPECT_EQ(census_cell(scaled_census{}, census_measure::bias), "-");
}

TEST(ScaledCensus, PerLayerTableSumsTheListedOperandsOfEachLayer) {
  operand_censuses a{}, b{};
  a[0].elements = a[0].nonzero = 10;
  a[0].block_underflow = 1;
  a[2].elements = a[2].nonzero = 10;
  a[2].block_underflow = 3;
  b[2].elements = b[2].nonzero = 4;
  b[2].block_underflow = 1;
  const layer_censuses run{{"conv1", a}, {"logits", b}};
  const std::vector<std::pair<std::string, layer_censuses>> runs{{"r", run}};
  constexpr std::array<lab::gemm_operand, 2> both{lab::gemm_operand::activation, lab::gemm_operand::gradient};
  const table t = per_layer_table("t", "t", runs, both, census_measure::block_underflow);
  ASSERT_EQ(t.rows().size(), 2u);
  EXPECT_EQ(t.cell(0, "r"), "20.000");  // (1 + 3) / 20
  EXPECT_EQ(t.cell(1, "r"), "25.000");  // 1 / 4
}

TEST(Fp8Scaling, CurrentScalingNeverSaturates) {
  run_options o;
  o.tiny = true;
  const experiment_result r = find_experiment("fp8-scaling").run(o);
  const table& t = r.find_table("quantization");
  std::size_t current_rows = 0;
  for (std::size_t row = 0; row < t.rows().size(); ++row) {
    if (t.cell(row, "run").find("fp8-current") == std::string::npos) continue;
    ++current_rows;
    // Its scale maps the tensor's own amax onto the element maximum, so no
    // element lies beyond it.
    EXPECT_EQ(t.cell(row, "saturated (%)"), "0.000") << t.cell(row, "run") << " " << t.cell(row, "operand");
  }
  EXPECT_EQ(current_rows, 6u);  // two models, three operands
}

}  // namespace
}  // namespace numlab::experiments
