// Statistics of a scaled quantization, from quantize() and dequantize().
#include "libnum/scaled_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace num {

double scaled_stats::block_underflow_fraction() const {
  return nonzero_finite == 0 ? 0.0 : static_cast<double>(counts.block_underflow) / static_cast<double>(nonzero_finite);
}

double scaled_stats::saturation_fraction() const {
  return finite == 0 ? 0.0 : static_cast<double>(counts.saturated) / static_cast<double>(finite);
}

double scaled_stats::snr_db() const {
  if (signal_energy == 0) return std::numeric_limits<double>::quiet_NaN();
  if (noise_energy == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal_energy / noise_energy);
}

scaled_stats compute_scaled_stats(std::span<const float> in, tensor_shape shape, const scaled_options& options) {
  scaled_options o = options;
  o.layout = element_layout::byte_per_element;
  std::vector<std::uint8_t> elements(element_bytes(o.format.element, o.layout, in.size()));
  std::vector<std::uint32_t> scales(scale_count(o.format, shape));
  scaled_stats s;
  s.format = o.format;
  const scaled_result r = quantize(in, shape, elements, scales, o);
  s.counts = r.counts;
  s.tensor_scale = r.tensor_scale;
  std::vector<float> back(in.size());
  dequantize(elements, scales, r.tensor_scale, shape, back, o);

  const scale_type st = scale_type_of(o.format.rule);
  const std::size_t tile_rows = std::min(o.format.block.rows, shape.rows);
  const std::size_t tile_cols = std::min(o.format.block.cols, shape.cols);
  const std::size_t block_cols = shape.size() == 0 ? 0 : (shape.cols + tile_cols - 1) / tile_cols;
  std::vector<double> amax(scales.size(), 0.0);
  for (std::size_t row = 0; row < shape.rows; ++row) {
    for (std::size_t col = 0; col < shape.cols; ++col) {
      const std::size_t i = row * shape.cols + col;
      const std::size_t block = (row / tile_rows) * block_cols + col / tile_cols;
      const double x = in[i];
      if (!std::isfinite(x)) continue;
      ++s.finite;
      if (x != 0) ++s.nonzero_finite;
      amax[block] = std::max(amax[block], std::fabs(x));
      if (std::isnan(back[i])) continue;  // a NaN-scale block carries no signal
      const double error = x - static_cast<double>(back[i]);
      s.signal_energy += x * x;
      s.noise_energy += error * error;
    }
  }
  s.amax_over_scale.resize(scales.size());
  for (std::size_t b = 0; b < scales.size(); ++b) {
    const double scale = scale_value(st, scales[b]) * static_cast<double>(r.tensor_scale);
    if (std::isnan(scale)) {
      s.amax_over_scale[b] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    if (scale == 0) {
      ++s.zero_scale_blocks;
      continue;
    }
    ++s.scale_binades[std::ilogb(scale)];
    s.amax_over_scale[b] = amax[b] / scale;
  }
  return s;
}

}  // namespace num
