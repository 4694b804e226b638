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

#include "libnum/array.hpp"
#include "scaled_stats_kernel.hpp"

namespace num {
namespace {

constexpr std::uint32_t magnitude_mask = 0x7FFFFFFFu, infinity_bits = 0x7F800000u;

// std::ilogb of a positive finite double, from its exponent field where it
// is normal (this runs once per block).
int binade_of(double scale) {
  const auto exponent = static_cast<int>((std::bit_cast<std::uint64_t>(scale) >> 52) & 0x7FF);
  return exponent == 0 ? std::ilogb(scale) : exponent - 1023;
}

}  // namespace

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

  // Two passes, each free of a loop-carried floating-point chain: the
  // element statistics over the flat tensor (the energies in eight partial
  // sums, see the header), then each block's amax. The energies' order is
  // fixed by the element index alone, so the statistics are the same for
  // every shape and block size of the same values.
  scaled_detail::element_sums sums;
  const std::size_t n = in.size();
  std::size_t vectorized = 0;
  switch (resolve_simd_path(simd_path::automatic)) {
    case simd_path::avx512:
      vectorized = scaled_detail::add_elements_avx512(in.data(), dequantized.data(), n, sums);
      break;
    case simd_path::avx2: vectorized = scaled_detail::add_elements_avx2(in.data(), dequantized.data(), n, sums); break;
    default: break;
  }
  for (std::size_t i = vectorized; i < n; ++i) {
    const float x = in[i], back = dequantized[i];
    const std::uint32_t m = std::bit_cast<std::uint32_t>(x) & magnitude_mask;
    const bool is_finite = m < infinity_bits;
    sums.finite += static_cast<std::uint64_t>(is_finite);
    sums.nonzero += static_cast<std::uint64_t>(is_finite && m != 0);
    sums.amax_bits = std::max(sums.amax_bits, is_finite ? m : 0u);
    // A NaN-scale block (dequantized NaN) carries no signal.
    const bool counted = is_finite && !std::isnan(back);
    const double value = counted ? static_cast<double>(x) : 0.0;
    const double error = counted ? static_cast<double>(x) - static_cast<double>(back) : 0.0;
    sums.signal[i % sums.lanes] += value * value;
    sums.noise[i % sums.lanes] += error * error;
  }
  const auto total = [](const double (&e)[scaled_detail::element_sums::lanes]) {
    return ((e[0] + e[1]) + (e[2] + e[3])) + ((e[4] + e[5]) + (e[6] + e[7]));
  };
  s.signal_energy = total(sums.signal);
  s.noise_energy = total(sums.noise);
  s.finite = sums.finite;
  s.nonzero_finite = sums.nonzero;
  s.amax = std::bit_cast<float>(sums.amax_bits);

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
  // The binades are tallied in a vector over the range met and moved into
  // the map at the end: a map insertion per block cost as much as the rest.
  std::vector<int> binades;
  binades.reserve(blocks);
  int lowest = std::numeric_limits<int>::max(), highest = std::numeric_limits<int>::min();
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
    const int binade = binade_of(scale);
    binades.push_back(binade);
    lowest = std::min(lowest, binade);
    highest = std::max(highest, binade);
    s.amax_over_scale[b] = static_cast<double>(std::bit_cast<float>(block_amax[b])) / scale;
  }
  if (!binades.empty()) {
    std::vector<std::uint64_t> tally(static_cast<std::size_t>(highest - lowest) + 1, 0);
    for (const int binade : binades) ++tally[static_cast<std::size_t>(binade - lowest)];
    for (std::size_t k = 0; k < tally.size(); ++k)
      if (tally[k] != 0) s.scale_binades.emplace_hint(s.scale_binades.end(), lowest + static_cast<int>(k), tally[k]);
  }
  return s;
}

}  // namespace num
