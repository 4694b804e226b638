// What a scaled recipe's quantization did to a training run's GEMM operands
// (lab's scaled_gemm, observed through tensor_hook::observe_quantized), per
// layer and operand kind, and the tables the scaled-format experiments
// (fp8-scaling, microscaling, fp4-stochastic) share.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <lab/scaled_gemm.hpp>

#include "table.hpp"

namespace numlab::experiments {

/// One layer's quantized operands of one kind, summed over every GEMM and step.
struct scaled_census {
  std::uint64_t elements = 0;
  std::uint64_t nonzero = 0;            ///< nonzero finite inputs
  std::uint64_t block_underflow = 0;    ///< nonzero inputs flushed to zero by their block's scale
  std::uint64_t underflow_to_zero = 0;  ///< nonzero inputs that are zero even under their own scale
  std::uint64_t saturated = 0;          ///< inputs clamped to the element format's largest value
  /// Sum of sign(x)·(Q(x) − x) over nonzero inputs: negative when quantization
  /// shrinks magnitudes on the whole (round-to-nearest's flushes and ties),
  /// near zero for an unbiased (stochastic) rounding.
  double signed_error = 0;
  double magnitude = 0;  ///< sum of |x| over the same inputs

  /// Adds one quantized operand's counts and errors.
  void add(const lab::quantized_operand& q);
  scaled_census& operator+=(const scaled_census& o);
};

/// By lab::gemm_operand: activation, weight, gradient.
using operand_censuses = std::array<scaled_census, lab::gemm_operand_count>;

/// A run's censuses by layer, in first-seen order.
using layer_censuses = std::vector<std::pair<std::string, operand_censuses>>;

/// What a census row shows.
enum class census_measure {
  block_underflow,  ///< block_underflow / nonzero, percent
  flushed,          ///< (block_underflow + underflow_to_zero) / nonzero, percent
  saturated,        ///< saturated / elements, percent
  bias,             ///< signed_error / magnitude, percent
};

/// The measure of one census as a table cell ("-" where it has no elements).
std::string census_cell(const scaled_census& c, census_measure m);
/// The measure as a number (0 where the census is empty).
double census_value(const scaled_census& c, census_measure m);

/// All layers of a run added up, by operand.
operand_censuses total_census(const layer_censuses& layers);

/// One row per run and operand kind (all layers): elements quantized, flushed
/// by the block scale, zero under any scale, saturated, and the magnitude bias.
table quantization_table(const std::string& id, const std::string& title,
                         std::span<const std::pair<std::string, layer_censuses>> runs);

/// One row per layer (of the first run that has layers), one column per run:
/// measure `m` of the operands listed, summed.
table per_layer_table(const std::string& id, const std::string& title,
                      std::span<const std::pair<std::string, layer_censuses>> runs,
                      std::span<const lab::gemm_operand> operands, census_measure m);

}  // namespace numlab::experiments
