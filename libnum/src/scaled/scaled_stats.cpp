// Statistics of a scaled quantization, from quantize_dequantize().
#include "libnum/scaled_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

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
  std::vector<std::uint32_t> scales(scale_count(options.format, shape));
  std::vector<float> back(in.size());
  const scaled_result r = quantize_dequantize(in, shape, back, scales, options);
  return scaled_stats_of(in, shape, options.format, scales, r, back);
}

scaled_stats scaled_stats_of(std::span<const float> in, tensor_shape shape, const scaled_format& format,
                             std::span<const std::uint32_t> scales, const scaled_result& result,
                             std::span<const float> dequantized) {
  const std::size_t blocks = scale_count(format, shape);
  if (in.size() != shape.size() || dequantized.size() != shape.size() || scales.size() != blocks)
    throw std::invalid_argument("scaled_stats_of: " + std::to_string(in.size()) + " values, " +
                                std::to_string(dequantized.size()) + " dequantized and " +
                                std::to_string(scales.size()) + " scales do not fit a " + std::to_string(shape.rows) +
                                " x " + std::to_string(shape.cols) + " tensor of " + std::to_string(blocks) +
                                " blocks");
  scaled_stats s;
  s.format = format;
  s.counts = result.counts;
  s.tensor_scale = result.tensor_scale;

  const scale_type st = scale_type_of(format.rule);
  const std::size_t tile_rows = std::min(format.block.rows, shape.rows);
  const std::size_t tile_cols = std::min(format.block.cols, shape.cols);
  const std::size_t block_cols = shape.size() == 0 ? 0 : (shape.cols + tile_cols - 1) / tile_cols;
  std::vector<double> amax(blocks, 0.0);
  // Row-major order, as the energies are summed in it; the block index is
  // stepped along the row rather than divided out per element, and the sums
  // live in locals (not in `s` or `amax`, which the compiler must assume
  // alias) so each addition waits only for the one before it.
  double signal = 0, noise = 0;
  std::uint64_t finite = 0, nonzero = 0;
  for (std::size_t row = 0; row < shape.rows; ++row) {
    const std::size_t block_row = (row / tile_rows) * block_cols;
    for (std::size_t col0 = 0, block = block_row; col0 < shape.cols; col0 += tile_cols, ++block) {
      const std::size_t col1 = std::min(shape.cols, col0 + tile_cols);
      double block_amax = amax[block];
      for (std::size_t i = row * shape.cols + col0, end = row * shape.cols + col1; i < end; ++i) {
        const double x = in[i];
        if (!std::isfinite(x)) continue;
        ++finite;
        if (x != 0) ++nonzero;
        block_amax = std::max(block_amax, std::fabs(x));
        if (std::isnan(dequantized[i])) continue;  // a NaN-scale block carries no signal
        const double error = x - static_cast<double>(dequantized[i]);
        signal += x * x;
        noise += error * error;
      }
      amax[block] = block_amax;
    }
  }
  s.signal_energy = signal;
  s.noise_energy = noise;
  s.finite = finite;
  s.nonzero_finite = nonzero;
  s.amax_over_scale.resize(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    const double scale = scale_value(st, scales[b]) * static_cast<double>(result.tensor_scale);
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
