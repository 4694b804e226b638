// The flushes of a per-tensor scale, counted as a block scale's
// (operand_quantization::given_scale_stands_for, scaled_gemm.hpp).
#pragma once

#include <span>

#include <libnum/scaled_array.hpp>

namespace lab {

/// `given` (rule fp32_given, the whole tensor one block) quantized `in` to
/// `dequantized` (num::quantize_dequantize) and reported `counts`, every
/// flush as underflow_to_zero. Moves to counts.block_underflow each flushed
/// element that `rule`'s scale of the element alone would hold: the split
/// num::quantize makes within a block of that rule, decided by libnum itself
/// on the element alone where no shortcut is sure.
void count_flushes_as_block_underflow(std::span<const float> in, std::span<const float> dequantized,
                                      const num::scaled_options& given, num::scale_rule rule,
                                      num::scaled_counts& counts);

}  // namespace lab
