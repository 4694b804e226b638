// Internal: a block's scale from its amax, by each scale rule.
#pragma once

#include <cstdint>

#include "element_rounding.hpp"
#include "libnum/scaled_array.hpp"

namespace num::scaled_detail {

/// What a rule needs besides the block's amax.
struct scale_context {
  element_type element = element_type::e4m3;
  scale_rule rule = scale_rule::mx_floor;
  int margin = 0;
  float given_scale = 1.0f;
  float tensor_scale = 1.0f;  ///< NVFP4's fp32 decode scale of the tensor
};

/// Whether the wanted scale fitted the scale format.
enum class scale_fit : std::uint8_t { fits, underflowed, overflowed };

/// A block's scale: its encoding, and the divisor elements are divided by.
struct block_scale {
  std::uint32_t code = 0;
  divisor by{};
  bool zero = false;  ///< NVFP4 block scale rounded to 0: every element is 0
  scale_fit fit = scale_fit::fits;
};

/// The scale of a block whose largest finite |x| is amax (>= 0, finite).
block_scale scale_for(const scale_context& c, float amax);

/// NVFP4's tensor decode scale from the tensor amax (finite, >= 0):
/// amax / (448·6) rounded to nearest-even fp32; 1 for amax 0, the smallest
/// fp32 subnormal where the quotient rounds to 0.
float nvfp4_tensor_scale(float tensor_amax);

/// The NaN encoding of a scale type.
std::uint32_t nan_scale_code(scale_type t);

}  // namespace num::scaled_detail
