// Scaled-format censuses and their tables; see scaled_census.hpp.
#include "experiments/scaled_census.hpp"

#include <cmath>

#include "experiments/printing.hpp"

namespace numlab::experiments {

void scaled_census::add(const lab::quantized_operand& q) {
  const num::scaled_counts& n = q.result.counts;
  elements += n.elements;
  block_underflow += n.block_underflow;
  underflow_to_zero += n.underflow_to_zero;
  saturated += n.saturated;
  for (std::size_t i = 0; i < q.values.size() && i < q.dequantized.size(); ++i) {
    const double x = q.values[i];
    if (x == 0.0 || !std::isfinite(x)) continue;
    ++nonzero;
    signed_error += std::copysign(1.0, x) * (static_cast<double>(q.dequantized[i]) - x);
    magnitude += std::fabs(x);
  }
}

scaled_census& scaled_census::operator+=(const scaled_census& o) {
  elements += o.elements;
  nonzero += o.nonzero;
  block_underflow += o.block_underflow;
  underflow_to_zero += o.underflow_to_zero;
  saturated += o.saturated;
  signed_error += o.signed_error;
  magnitude += o.magnitude;
  return *this;
}

double census_value(const scaled_census& c, census_measure m) {
  const auto ratio = [](double part, double whole) { return whole == 0 ? 0.0 : 100.0 * part / whole; };
  switch (m) {
    case census_measure::block_underflow:
      return ratio(static_cast<double>(c.block_underflow), static_cast<double>(c.nonzero));
    case census_measure::flushed:
      return ratio(static_cast<double>(c.block_underflow + c.underflow_to_zero), static_cast<double>(c.nonzero));
    case census_measure::saturated:
      return ratio(static_cast<double>(c.saturated), static_cast<double>(c.elements));
    case census_measure::bias:
      return ratio(c.signed_error, c.magnitude);
  }
  return 0.0;
}

std::string census_cell(const scaled_census& c, census_measure m) {
  if (c.elements == 0) return "-";
  return m == census_measure::bias ? significant(census_value(c, m), 3) : fixed(census_value(c, m), 3);
}

operand_censuses total_census(const layer_censuses& layers) {
  operand_censuses sum{};
  for (const auto& [layer, by_operand] : layers)
    for (std::size_t o = 0; o < sum.size(); ++o) sum[o] += by_operand[o];
  return sum;
}

table quantization_table(const std::string& id, const std::string& title,
                         std::span<const std::pair<std::string, layer_censuses>> runs) {
  table t(id, title,
          {"run", "operand", "elements", "flushed by the block scale (%)", "zero under any scale (%)",
           "saturated (%)", "magnitude bias (%)"});
  for (const auto& [name, layers] : runs) {
    const operand_censuses sum = total_census(layers);
    for (std::size_t o = 0; o < sum.size(); ++o) {
      const scaled_census& c = sum[o];
      if (c.elements == 0) continue;
      const auto zero = [&] {
        return c.nonzero == 0 ? std::string("0.000")
                              : fixed(100.0 * static_cast<double>(c.underflow_to_zero) / static_cast<double>(c.nonzero), 3);
      };
      t.add_row({name, std::string(lab::gemm_operand_name(static_cast<lab::gemm_operand>(o))),
                 std::to_string(c.elements), census_cell(c, census_measure::block_underflow), zero(),
                 census_cell(c, census_measure::saturated), census_cell(c, census_measure::bias)});
    }
  }
  return t;
}

table per_layer_table(const std::string& id, const std::string& title,
                      std::span<const std::pair<std::string, layer_censuses>> runs,
                      std::span<const lab::gemm_operand> operands, census_measure m) {
  std::vector<std::string> columns{"layer"};
  const layer_censuses* layout = nullptr;
  for (const auto& [name, layers] : runs) {
    columns.push_back(name);
    if (layout == nullptr && !layers.empty()) layout = &layers;
  }
  table t(id, title, columns);
  if (layout == nullptr) return t;
  for (const auto& [layer, unused] : *layout) {
    std::vector<std::string> row{layer};
    for (const auto& [name, layers] : runs) {
      scaled_census sum;
      for (const auto& [other, by_operand] : layers) {
        if (other != layer) continue;
        for (const lab::gemm_operand o : operands) sum += by_operand[static_cast<std::size_t>(o)];
      }
      row.push_back(census_cell(sum, m));
    }
    t.add_row(std::move(row));
  }
  return t;
}

}  // namespace numlab::experiments
