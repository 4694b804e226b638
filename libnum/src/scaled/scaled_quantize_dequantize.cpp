// quantize_dequantize: quantize() and dequantize() over bands of whole
// blocks (rows of tiles, or a long row's run of 1-row blocks), each band's
// codes kept in a buffer small enough to stay in cache, so the values make
// one trip through memory. Each band is a tensor of its own whose element 0
// is the band's first element: its random words start at first_index + (its
// offset), and NVFP4's tensor scale comes from the whole tensor's amax, so
// every band quantizes as the whole call would.
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "element_decoder.hpp"
#include "libnum/scaled_array.hpp"
#include "quantize_setup.hpp"

namespace num {
namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("quantize_dequantize: " + what); }

// Values per band: large enough that the per-call work of quantize() is
// negligible (16K-value bands were 10-20% slower than two whole calls), small
// enough that a band's values (256 KB) and codes stay in a 1 MB L2.
constexpr std::size_t band_target = std::size_t{1} << 16;

scaled_result run_bands(std::span<const float> in, tensor_shape shape, std::span<float> out,
                        std::span<std::uint32_t> scales, const scaled_options& options) {
  scaled_result total;
  total.path = simd_path::scalar;
  if (shape.size() == 0) return total;
  const scaled_detail::block_grid grid(options.format, shape);
  const simd_path path = resolve_simd_path(options.path);
  scaled_options part_options = options;
  part_options.layout = element_layout::byte_per_element;
  if (options.format.rule == scale_rule::nvfp4) part_options.tensor_amax = scaled_detail::tensor_amax(in, options);
  const scaled_detail::element_decoder decoder(part_options);  // of the bands' byte-per-element codes

  const std::size_t tile_size = grid.tile_rows * shape.cols;
  const bool split_rows = grid.tile_rows == 1 && shape.cols > band_target;
  const std::size_t band_rows = split_rows ? 1 : std::max<std::size_t>(1, band_target / tile_size) * grid.tile_rows;
  const std::size_t band_cols =
      split_rows ? std::max<std::size_t>(1, band_target / grid.tile_cols) * grid.tile_cols : shape.cols;
  std::vector<std::uint8_t> codes(std::min(band_rows, shape.rows) * band_cols);
  for (std::size_t row0 = 0; row0 < shape.rows; row0 += band_rows) {
    for (std::size_t col0 = 0; col0 < shape.cols; col0 += band_cols) {
      const tensor_shape part{std::min(band_rows, shape.rows - row0), std::min(band_cols, shape.cols - col0)};
      const std::size_t offset = row0 * shape.cols + col0;
      part_options.first_index = options.first_index + offset;
      const std::span<std::uint8_t> part_codes(codes.data(), part.size());
      const std::span<std::uint32_t> part_scales = scales.subspan(
          row0 / grid.tile_rows * grid.block_cols + col0 / grid.tile_cols, scale_count(options.format, part));
      const scaled_result r =
          quantize(in.subspan(offset, part.size()), part, part_codes, part_scales, part_options);
      decoder.run(part_codes, part_scales, r.tensor_scale, part, out.subspan(offset, part.size()), path);
      total.raised |= r.raised;
      total.counts += r.counts;
      total.tensor_scale = r.tensor_scale;
      total.path = r.path;  // the same for every band: it depends on the options alone
    }
  }
  return total;
}

}  // namespace

scaled_result quantize_dequantize(std::span<const float> in, tensor_shape shape, std::span<float> out,
                                  std::span<std::uint32_t> scales, const scaled_options& options) {
  scaled_detail::check_options(options);
  scaled_detail::check_size("quantize_dequantize", in.size(), shape.size(), "the input");
  scaled_detail::check_size("quantize_dequantize", out.size(), shape.size(), "the output");
  scaled_detail::check_size("quantize_dequantize", scales.size(), scale_count(options.format, shape),
                            "the scale array");
  const std::less<const float*> before;
  const bool overlap = before(out.data(), in.data() + in.size()) && before(in.data(), out.data() + out.size());
  if (overlap && out.data() != in.data())
    bad("the output overlaps the input without being the input itself");
  return run_bands(in, shape, out, scales, options);
}

scaled_result quantize_dequantize(std::span<const float> in, tensor_shape shape, std::span<float> out,
                                  const scaled_options& options) {
  scaled_detail::check_options(options);
  std::vector<std::uint32_t> scales(scale_count(options.format, shape));
  return quantize_dequantize(in, shape, out, scales, options);
}

}  // namespace num
