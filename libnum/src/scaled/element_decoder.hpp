// Internal: dequantize()'s decoder and the row kernels' setup (AVX-512, AVX2).
// The element values are decoded once into a table per call; the row
// kernels look codes up in that table (AVX-512 with permutes, AVX2 with a
// gather) and multiply by the block's scale exactly as the scalar loop does
// (the same fp32 operations in the same order), so all give the same bits.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "libnum/scaled_array.hpp"

namespace num::scaled_detail {

/// The values of every element code of one format, and the loop that
/// multiplies them by their blocks' scales (dequantize()'s work).
class element_decoder {
 public:
  explicit element_decoder(const scaled_options& options);
  /// dequantize()'s work, sizes already checked; `path` as resolved by resolve_simd_path.
  void run(std::span<const std::uint8_t> elements, std::span<const std::uint32_t> scales, float tensor_scale,
           tensor_shape shape, std::span<float> out, simd_path path) const;
  /// The values of one block's elements (rows row0..row1, columns
  /// col0..col1 of a tensor `cols` wide) under its scale code, as run() gives them.
  void block(std::span<const std::uint8_t> elements, std::uint32_t scale_code, float tensor_scale, std::size_t row0,
             std::size_t row1, std::size_t col0, std::size_t col1, std::size_t cols, std::span<float> out) const;

 private:
  void scalar_block(std::span<const std::uint8_t> elements, double scale, std::size_t row0, std::size_t row1,
                    std::size_t col0, std::size_t col1, std::size_t cols, std::span<float> out) const;
  bool row_kernel_fits(float tensor_scale, tensor_shape shape) const;
  float scale_f(std::uint32_t code) const;  ///< scale_value(code) as a float (every scale value is one)

  scaled_options options_;
  int bits_;
  std::uint32_t mask_;
  std::array<double, 256> value_of_{};
  alignas(64) std::array<float, 256> value_f_{};  // every element value is a float (at most 8 significant bits)
  std::array<float, 256> scale_f_{};              // E8M0 / unsigned E4M3 scale values by code
};

/// One row of `cols` byte codes (or packed FP4 codes, two per byte) in
/// blocks `block_cols` wide: out[c] = table[code c] × block_scales[c /
/// block_cols], then × tensor_scale where `times_tensor_scale`, each an fp32
/// multiplication under the MXCSR, as the scalar loop does them.
struct decode_row {
  const float* table = nullptr;  ///< 2^element_bits values (64-byte aligned)
  int element_bits = 8;
  element_type element = element_type::e4m3;
  int fraction_bits = 3, bias = 7;     ///< E4M3 / E5M2 fields
  std::uint32_t first_special = 0x80;  ///< the smallest magnitude code that is inf or NaN (0x80: none)
  bool packed_fp4 = false;
  std::size_t block_cols = 32;
  float tensor_scale = 1.0f;
  bool times_tensor_scale = false;
};
void decode_row_avx512(const decode_row& setup, const std::uint8_t* codes, const float* block_scales, std::size_t cols,
                       float* out);
/// decode_row_avx512 on AVX2 (decode_avx2.cpp), bit for bit.
void decode_row_avx2(const decode_row& setup, const std::uint8_t* codes, const float* block_scales, std::size_t cols,
                     float* out);

}  // namespace num::scaled_detail
