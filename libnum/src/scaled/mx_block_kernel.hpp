// Internal: the AVX-512 path of MX quantization (scale rule mx_floor, 1x32
// blocks along a row, floating-point elements, saturation, tininess after
// rounding, one element per byte). It does the blocks it can and leaves the
// rest (NaN/inf, fp32 subnormal inputs, all-zero blocks, a scale below E8M0,
// elements flushed whose own scale would be clamped) to the scalar path,
// with the same results bit for bit.
#pragma once

#include <cstdint>

#include "libnum/rounding.hpp"
#include "libnum/scaled_array.hpp"

namespace num::scaled_detail {

/// What the kernel needs about the element format and the rounding.
struct mx_kernel_setup {
  int precision = 0, emin = 0, emax = 0, bias = 0, element_bits = 8;
  std::uint32_t max_code = 0;  ///< largest finite magnitude code
  round_spec spec{};
};

/// Quantizes the 32 values at `in` into `codes` (one byte each), returning
/// the E8M0 scale code and adding to `result`; returns false without writing
/// anything when the block needs the scalar path. `words` holds the 32 random
/// words of the block (stochastic rounding only).
bool mx_block_avx512(const mx_kernel_setup& setup, const float* in, const std::uint32_t* words, std::uint8_t* codes,
                     std::uint32_t& scale_code, scaled_result& result);

}  // namespace num::scaled_detail
