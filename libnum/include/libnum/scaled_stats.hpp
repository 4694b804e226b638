// Statistics of a tensor quantized into a scaled format: what the block
// scales did to it (the tensor-statistics pass of tensor_stats.hpp, for
// scaled formats).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "scaled_array.hpp"

namespace num {

/// One quantization's statistics.
struct scaled_stats {
  scaled_format format{};
  scaled_counts counts;       ///< quantize()'s counts
  float tensor_scale = 1.0f;  ///< NVFP4's second-level scale (1 otherwise)
  /// Histogram of the block scales' binades: k -> blocks whose decode scale
  /// (× tensor scale) lies in [2^k, 2^(k+1)). NaN and zero scales are apart.
  std::map<int, std::uint64_t> scale_binades;
  std::uint64_t zero_scale_blocks = 0;  ///< NVFP4 block scales that rounded to 0
  /// Per block (row-major block order): its amax divided by its decode scale
  /// (× tensor scale), i.e. the largest |element| before rounding; NaN for a
  /// NaN scale, 0 for a zero scale or an all-zero block.
  std::vector<double> amax_over_scale;
  /// Sum of x² over finite elements of blocks with a finite scale, in
  /// double; the element of index i (row-major) goes to partial sum i mod 8,
  /// combined as ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)).
  double signal_energy = 0;
  double noise_energy = 0;   ///< sum of (x - dequantized x)² over the same elements, in the same order
  /// The largest finite |x| of the input (0 for none): the amax every scale
  /// rule takes, of the values quantize() took (after any transform the
  /// caller applied before it).
  float amax = 0.0f;

  /// Fraction of nonzero finite elements flushed by their block's scale.
  double block_underflow_fraction() const;
  /// Fraction of finite elements that saturated.
  double saturation_fraction() const;
  /// 10·log10(signal / noise) in dB; +inf when nothing changed, NaN without signal.
  double snr_db() const;
  std::uint64_t nonzero_finite = 0;  ///< nonzero finite inputs
  std::uint64_t finite = 0;          ///< finite inputs
};

/// Quantizes and dequantizes `in` as `options` say (quantize_dequantize, into
/// scratch storage) and gathers the statistics (scaled_stats_of). Throws
/// std::invalid_argument as quantize_dequantize() does.
scaled_stats compute_scaled_stats(std::span<const float> in, tensor_shape shape, const scaled_options& options);

/// The statistics of a quantization already made, without quantizing again:
/// `in` and `shape` as quantize() took them, the block `scales` and `result`
/// it gave with `format`, and `dequantized`, the fp32 value of every element
/// (dequantize()'s output). Equal to compute_scaled_stats() of the same call.
/// Throws std::invalid_argument where the sizes do not fit the shape.
scaled_stats scaled_stats_of(std::span<const float> in, tensor_shape shape, const scaled_format& format,
                             std::span<const std::uint32_t> scales, const scaled_result& result,
                             std::span<const float> dequantized);

}  // namespace num
