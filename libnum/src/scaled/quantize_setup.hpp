// Internal: what quantize() and quantize_dequantize() both do before the
// blocks: check the options, find NVFP4's tensor amax.
#pragma once

#include <span>

#include "libnum/scaled_array.hpp"

namespace num::scaled_detail {

/// Throws std::invalid_argument ("quantize: ...") naming the first bad
/// option: the format, r, the overflow mode or special-block policy the
/// element cannot express, the margin, the given scale, the tensor amax.
void check_options(const scaled_options& o);

/// The amax NVFP4's tensor scale comes from: o.tensor_amax where given,
/// else the largest finite |x| of `in` (0 when none).
float tensor_amax(std::span<const float> in, const scaled_options& o);

}  // namespace num::scaled_detail
