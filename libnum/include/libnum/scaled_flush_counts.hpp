// Flushes under a per-tensor scale, counted as a block scale's. A per-tensor
// recipe (TransformerEngine's current or delayed FP8 scaling) often hands
// quantize() its scale as a given one (scale_rule::fp32_given): delayed
// scaling's comes from an amax history, and a tensor quantized in parts must
// use the whole tensor's. quantize() counts every flush under a given scale as
// underflow_to_zero, since it knows no rule the scale came from. The scale is
// the tensor's block scale, though: where a rule's scale of the element alone
// would have held an element, the flush is the block scale's doing, which
// quantize() counts as block_underflow within a block of that rule.
#pragma once

#include <span>

#include "scaled_array.hpp"

namespace num {

/// `given` (rule fp32_given, the whole tensor one block) quantized `in` to
/// `dequantized` (quantize_dequantize()'s fp32 values) and reported `counts`.
/// Moves from counts.underflow_to_zero to counts.block_underflow each flushed
/// element (nonzero finite input, zero result) that `rule`'s scale of the
/// element alone, with given's element type, rounding, margin and random
/// word of that element, would quantize to a nonzero element: the split
/// quantize() makes within a block of `rule` (fp32_amax for current and
/// delayed scaling). Throws std::invalid_argument where the sizes differ or
/// given's rule is not fp32_given.
void count_flushes_as_block_underflow(std::span<const float> in, std::span<const float> dequantized,
                                      const scaled_options& given, scale_rule rule, scaled_counts& counts);

}  // namespace num
