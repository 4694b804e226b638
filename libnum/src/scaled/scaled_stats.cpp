// Statistics of a scaled quantization, from quantize_dequantize().
#include "libnum/scaled_stats.hpp"

#include <algorithm>
#include <array>
#include <bit>
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

  // Two passes, each free of a loop-carried floating-point chain so the
  // compiler vectorizes it: the element statistics over the flat tensor (the
  // energies in energy_lanes partial sums), then each block's amax. The
  // energies' order is fixed by the element index alone, so the statistics
  // are the same for every shape and block size of the same values.
  constexpr std::uint32_t magnitude_mask = 0x7FFFFFFFu, infinity_bits = 0x7F800000u;
  constexpr std::size_t energy_lanes = 8;
  std::array<double, energy_lanes> signal{}, noise{};
  std::uint64_t finite = 0, nonzero = 0;
  std::uint32_t amax_bits = 0;
  const std::size_t n = in.size();
  const auto add = [&](std::size_t i, std::size_t lane) {
    const float x = in[i], back = dequantized[i];
    const std::uint32_t m = std::bit_cast<std::uint32_t>(x) & magnitude_mask;
    const bool is_finite = m < infinity_bits;
    finite += static_cast<std::uint64_t>(is_finite);
    nonzero += static_cast<std::uint64_t>(is_finite && m != 0);
    amax_bits = std::max(amax_bits, is_finite ? m : 0u);
    // A NaN-scale block (dequantized NaN) carries no signal.
    const bool counted = is_finite && !std::isnan(back);
    const double value = counted ? static_cast<double>(x) : 0.0;
    const double error = counted ? static_cast<double>(x) - static_cast<double>(back) : 0.0;
    signal[lane] += value * value;
    noise[lane] += error * error;
  };
  std::size_t i = 0;
  for (; i + energy_lanes <= n; i += energy_lanes)
    for (std::size_t lane = 0; lane < energy_lanes; ++lane) add(i + lane, lane);
  for (std::size_t lane = 0; i < n; ++i, ++lane) add(i, lane);
  const auto total = [](const std::array<double, energy_lanes>& e) {
    return ((e[0] + e[1]) + (e[2] + e[3])) + ((e[4] + e[5]) + (e[6] + e[7]));
  };
  s.signal_energy = total(signal);
  s.noise_energy = total(noise);
  s.finite = finite;
  s.nonzero_finite = nonzero;
  s.amax = std::bit_cast<float>(amax_bits);

  const scale_type st = scale_type_of(format.rule);
  const std::size_t tile_rows = std::min(format.block.rows, shape.rows);
  const std::size_t tile_cols = std::min(format.block.cols, shape.cols);
  const std::size_t block_cols = shape.size() == 0 ? 0 : (shape.cols + tile_cols - 1) / tile_cols;
  // Each block's largest finite |x|, as the bits of |x| (an integer maximum,
  // which vectorizes where a float one would not without -ffast-math).
  std::vector<std::uint32_t> block_amax(blocks, 0u);
  for (std::size_t row = 0; row < shape.rows; ++row) {
    const std::size_t block_row = (row / tile_rows) * block_cols;
    const float* values = in.data() + row * shape.cols;
    for (std::size_t col0 = 0, block = block_row; col0 < shape.cols; col0 += tile_cols, ++block) {
      const std::size_t col1 = std::min(shape.cols, col0 + tile_cols);
      std::uint32_t m = block_amax[block];
      for (std::size_t c = col0; c < col1; ++c) {
        const std::uint32_t bits = std::bit_cast<std::uint32_t>(values[c]) & magnitude_mask;
        m = std::max(m, bits < infinity_bits ? bits : 0u);
      }
      block_amax[block] = m;
    }
  }
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
    s.amax_over_scale[b] = static_cast<double>(std::bit_cast<float>(block_amax[b])) / scale;
  }
  return s;
}

}  // namespace num
