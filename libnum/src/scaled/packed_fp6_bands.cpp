// Packed FP6 (four elements in three bytes) through the MX block kernels,
// which store whole bytes: the tensor is quantized in bands, each one
// element per byte into a buffer that stays in cache, and each band's
// codes are then packed into place (pack_fp6_codes). Before, every packed
// FP6 call ran scalar, about 130 times slower than its one-byte-per-element
// twin.
//
// A band is whole rows, or a run of one row's whole blocks where a row is
// longer than a band. MX blocks are 1x32 along rows, so a band holds the
// same blocks it holds within the whole tensor, and each element keeps its
// random word (first_index moves with the band): the codes, scales, counts
// and flags are those of one call over the whole tensor.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "element_packing.hpp"
#include "quantize_setup.hpp"

namespace num::scaled_detail {
namespace {

// Elements per band: 32 KB of codes, about an L1 cache, and a multiple of
// the 32-element block.
constexpr std::size_t band_elements = 32768;

}  // namespace

bool packed_fp6_bands_fit(const scaled_options& o, tensor_shape shape) {
  if (o.layout != element_layout::packed || element_bits(o.format.element) != 6 || shape.size() == 0) return false;
  scaled_options bytes = o;
  bytes.layout = element_layout::byte_per_element;
  return fused_values_fit(bytes, shape);  // a block kernel takes the whole call
}

scaled_result quantize_packed_fp6_bands(std::span<const float> in, tensor_shape shape,
                                        std::span<std::uint8_t> elements, std::span<std::uint32_t> scales,
                                        const scaled_options& options) {
  scaled_options bytes = options;
  bytes.layout = element_layout::byte_per_element;
  const std::size_t cols = shape.cols;
  const std::size_t blocks_per_row = block_grid(options.format, {1, cols}).block_cols;
  // Rows of a multiple of four elements start groups of their own, so every
  // group lies in one band and is written whole; else zero first for the ORs.
  if (cols % 4 != 0) std::fill(elements.begin(), elements.end(), std::uint8_t{0});
  const std::size_t buffer_size = std::min(shape.size(), band_elements > cols ? band_elements / cols * cols
                                                                              : band_elements);
  const auto buffer = std::make_unique_for_overwrite<std::uint8_t[]>(buffer_size);
  scaled_result result;
  // One band: `part` starting at element `first`, its blocks at scale `first_scale`.
  auto band = [&](std::size_t first, tensor_shape part, std::size_t first_scale) {
    bytes.first_index = options.first_index + first;
    const scaled_result r =
        quantize_into(in.subspan(first, part.size()), part, {buffer.get(), part.size()},
                      scales.subspan(first_scale, scale_count(options.format, part)), bytes, nullptr);
    pack_fp6_codes(buffer.get(), part.size(), elements, first, true);  // every kernel path has AVX2
    result.counts += r.counts;
    result.raised |= r.raised;
    result.path = r.path;
  };
  if (cols > band_elements) {
    for (std::size_t row = 0; row < shape.rows; ++row) {
      for (std::size_t col = 0; col < cols; col += band_elements) {
        band(row * cols + col, {1, std::min(band_elements, cols - col)},
             row * blocks_per_row + col / options.format.block.cols);
      }
    }
  } else {
    const std::size_t rows_per_band = band_elements / cols;
    for (std::size_t row = 0; row < shape.rows; row += rows_per_band) {
      band(row * cols, {std::min(rows_per_band, shape.rows - row), cols}, row * blocks_per_row);
    }
  }
  return result;
}

}  // namespace num::scaled_detail
