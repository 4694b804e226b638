// quantize_dequantize: quantize() and dequantize() over bands of whole block
// rows, each band's codes kept in a buffer small enough to stay in cache, so
// the values make one trip through memory. Each band is a tensor of its own
// whose element 0 is the band's first element: its random words start at
// first_index + (its offset), and NVFP4's tensor scale comes from the whole
// tensor's amax, so every band quantizes as the whole call would.
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "libnum/scaled_array.hpp"
#include "quantize_setup.hpp"

namespace num {
namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("quantize_dequantize: " + what); }

void check_size(std::size_t got, std::size_t want, const char* what) {
  if (got != want)
    bad(std::string(what) + " has " + std::to_string(got) + " entries, expected " + std::to_string(want));
}

// Values per band: large enough that the per-call work of quantize() is
// negligible, small enough that a band's values and codes stay in L2.
constexpr std::size_t band_target = std::size_t{1} << 14;

scaled_result run_bands(std::span<const float> in, tensor_shape shape, std::span<float> out,
                        std::span<std::uint32_t> scales, const scaled_options& options) {
  scaled_result total;
  total.path = simd_path::scalar;
  if (shape.size() == 0) return total;
  const scaled_format& f = options.format;
  const std::size_t tile_rows = std::min(f.block.rows, shape.rows);
  const std::size_t blocks_per_tile_row = scale_count(f, {tile_rows, shape.cols});
  const std::size_t tiles_per_band = std::max<std::size_t>(1, band_target / (tile_rows * shape.cols));
  const std::size_t band_rows = tiles_per_band * tile_rows;

  scaled_options band = options;
  band.layout = element_layout::byte_per_element;
  if (f.rule == scale_rule::nvfp4) band.tensor_amax = scaled_detail::tensor_amax(in, options);
  std::vector<std::uint8_t> codes(std::min(band_rows, shape.rows) * shape.cols);
  for (std::size_t row0 = 0; row0 < shape.rows; row0 += band_rows) {
    const tensor_shape part{std::min(band_rows, shape.rows - row0), shape.cols};
    const std::size_t offset = row0 * shape.cols;
    band.first_index = options.first_index + offset;
    const std::span<std::uint8_t> part_codes(codes.data(), part.size());
    const std::span<std::uint32_t> part_scales =
        scales.subspan(row0 / tile_rows * blocks_per_tile_row, scale_count(f, part));
    const scaled_result r = quantize(in.subspan(offset, part.size()), part, part_codes, part_scales, band);
    dequantize(part_codes, part_scales, r.tensor_scale, part, out.subspan(offset, part.size()), band);
    total.raised |= r.raised;
    total.counts += r.counts;
    total.tensor_scale = r.tensor_scale;
    total.path = r.path;  // the same for every band: it depends on the options alone
  }
  return total;
}

}  // namespace

scaled_result quantize_dequantize(std::span<const float> in, tensor_shape shape, std::span<float> out,
                                  std::span<std::uint32_t> scales, const scaled_options& options) {
  scaled_detail::check_options(options);
  check_size(in.size(), shape.size(), "the input");
  check_size(out.size(), shape.size(), "the output");
  check_size(scales.size(), scale_count(options.format, shape), "the scale array");
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
