// Internal: what quantize(), dequantize() and quantize_dequantize() share
// before the blocks: the checks and the block grid.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "libnum/scaled_array.hpp"

namespace num::scaled_detail {

/// The block grid of a tensor: tiles clipped to the tensor.
struct block_grid {
  std::size_t tile_rows = 0, tile_cols = 0, block_rows = 0, block_cols = 0;
  block_grid(const scaled_format& f, tensor_shape shape) {
    if (shape.size() == 0) return;
    tile_rows = std::min(f.block.rows, shape.rows);
    tile_cols = std::min(f.block.cols, shape.cols);
    block_rows = (shape.rows + tile_rows - 1) / tile_rows;
    block_cols = (shape.cols + tile_cols - 1) / tile_cols;
  }
  std::size_t count() const { return block_rows * block_cols; }
};

/// Throws std::invalid_argument ("quantize: ...") naming what is wrong with
/// the format (scaled_format_problem).
void check_format(const scaled_options& o);
/// Throws std::invalid_argument ("quantize: ...") naming the first bad
/// option: the format, r, the overflow mode or special-block policy the
/// element cannot express, the margin, the given scale, the tensor amax.
void check_options(const scaled_options& o);
/// Throws std::invalid_argument ("CALL: WHAT has GOT entries, expected WANT")
/// where got != want.
void check_size(std::string_view call, std::size_t got, std::size_t want, const char* what);

/// Whether quantize_into can write values straight from the rounding here
/// (an MX or 1x16 NVFP4 kernel, AVX-512 or AVX2, runs the call).
bool fused_values_fit(const scaled_options& o, tensor_shape shape);
/// quantize()'s work, arguments already checked. With `values` set (only
/// where fused_values_fit), the elements' dequantized values go there, as
/// dequantize() would give them, and `elements` (one byte per element)
/// holds only the codes of the blocks the kernel left to the scalar path.
scaled_result quantize_into(std::span<const float> in, tensor_shape shape, std::span<std::uint8_t> elements,
                            std::span<std::uint32_t> scales, const scaled_options& options, float* values);

/// Whether quantize_into runs a packed FP6 call through the MX kernels in
/// bands (packed_fp6_bands.cpp): a kernel takes the call one byte per element.
bool packed_fp6_bands_fit(const scaled_options& o, tensor_shape shape);
/// quantize_into for such a call: bands quantized one byte per element into
/// a buffer, then packed; the same results as one call.
scaled_result quantize_packed_fp6_bands(std::span<const float> in, tensor_shape shape,
                                        std::span<std::uint8_t> elements, std::span<std::uint32_t> scales,
                                        const scaled_options& options);

}  // namespace num::scaled_detail
