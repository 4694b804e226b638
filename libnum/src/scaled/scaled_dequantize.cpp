// dequantize: element × scale (× tensor scale) rounded once to fp32.
#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "element_decoder.hpp"
#include "element_packing.hpp"
#include "element_rounding.hpp"
#include "quantize_setup.hpp"

namespace num {
namespace scaled_detail {

element_decoder::element_decoder(const scaled_options& options)
    : options_(options),
      bits_(element_bits(options.format.element)),
      mask_((std::uint32_t{1} << bits_) - 1) {
  // Every element code's value, decoded once: a lookup per element instead
  // of a decode (the same doubles, so the same results).
  for (std::uint32_t code = 0; code <= mask_; ++code) {
    value_of_[code] = decode_element(options.format.element, code);
    value_f_[code] = static_cast<float>(value_of_[code]);
  }
  const scale_type st = scale_type_of(options.format.rule);
  if (st != scale_type::fp32) {
    for (std::uint32_t code = 0; code < 256; ++code) scale_f_[code] = static_cast<float>(scale_value(st, code));
  }
}

float element_decoder::scale_f(std::uint32_t code) const {
  return scale_type_of(options_.format.rule) == scale_type::fp32 ? std::bit_cast<float>(code) : scale_f_[code & 0xFF];
}

void element_decoder::scalar_block(std::span<const std::uint8_t> elements, double scale, std::size_t row0,
                                   std::size_t row1, std::size_t col0, std::size_t col1, std::size_t cols,
                                   std::span<float> out) const {
  const auto scale_f = static_cast<float>(scale);
  const bool byte_codes = bits_ == 8 || options_.layout == element_layout::byte_per_element;
  for (std::size_t r = row0; r < row1; ++r) {
    const std::size_t begin = r * cols + col0, end = r * cols + col1;
    if (byte_codes && scale_f == scale) {
      // Element values and this scale are floats, and a float product is the
      // exact product rounded once: the same as the double product's cast.
      for (std::size_t i = begin; i < end; ++i) out[i] = value_f_[elements[i] & mask_] * scale_f;
    } else if (byte_codes) {
      for (std::size_t i = begin; i < end; ++i) out[i] = static_cast<float>(value_of_[elements[i] & mask_] * scale);
    } else {
      for (std::size_t i = begin; i < end; ++i) {
        const std::uint32_t code = load_element(elements, bits_, options_.layout, i);
        out[i] = static_cast<float>(value_of_[code & mask_] * scale);
      }
    }
  }
}

void element_decoder::block(std::span<const std::uint8_t> elements, std::uint32_t scale_code, float tensor_scale,
                            std::size_t row0, std::size_t row1, std::size_t col0, std::size_t col1, std::size_t cols,
                            std::span<float> out) const {
  scalar_block(elements, scale_value(scale_type_of(options_.format.rule), scale_code) * tensor_scale, row0, row1, col0,
               col1, cols, out);
}

// The row kernel computes value × block scale (× tensor scale) in fp32. That
// is the scalar loop's one rounding where the tensor scale is 1 (every scale
// encoding is a float), or where value × block scale is exact in fp32 so
// that only the last product rounds (E2M1 values have 2 significant bits,
// unsigned E4M3 scales 4: NVFP4). Packed FP4 rows must start on a byte;
// packed FP6 is unpacked to one byte per element a run of blocks at a time.
bool element_decoder::row_kernel_fits(float tensor_scale, tensor_shape shape) const {
  const scaled_format& f = options_.format;
  const bool exact_product = f.element == element_type::e2m1 && scale_type_of(f.rule) == scale_type::ue4m3;
  const bool tensor_scale_fits = tensor_scale == 1.0f || (exact_product && std::isfinite(tensor_scale));
  const block_grid grid(f, shape);
  const bool layout_fits = bits_ == 8 || bits_ == 6 || options_.layout == element_layout::byte_per_element ||
                           (bits_ == 4 && shape.cols % 2 == 0 && grid.tile_cols % 2 == 0);
  return tensor_scale_fits && layout_fits;
}

void element_decoder::run(std::span<const std::uint8_t> elements, std::span<const std::uint32_t> scales,
                          float tensor_scale, tensor_shape shape, std::span<float> out, simd_path path) const {
  if (shape.size() == 0) return;
  const block_grid grid(options_.format, shape);
  const scale_type st = scale_type_of(options_.format.rule);
  // element × scale × tensor_scale is exact in double (at most 36 significant
  // bits, exponents far inside double's range), so the cast to float is the
  // one rounding.
  auto scale_of = [&](std::size_t block) { return scale_value(st, scales[block]) * tensor_scale; };
  auto block_bounds = [&](std::size_t br, std::size_t bc, auto&& f) {
    f(br * grid.tile_rows, std::min(shape.rows, (br + 1) * grid.tile_rows), bc * grid.tile_cols,
      std::min(shape.cols, (bc + 1) * grid.tile_cols));
  };
  // AVX2 rows shorter than 16 stay scalar: at 9 columns (a 3x3
  // convolution's operand) two gathers a row, one for a single code, ran an
  // MXFP8 quantize-then-dequantize 20% slower than the scalar loop.
  const bool row_kernel = path == simd_path::avx512 || (path == simd_path::avx2 && shape.cols >= 16);
  if (!row_kernel || !row_kernel_fits(tensor_scale, shape)) {
    for (std::size_t br = 0; br < grid.block_rows; ++br) {
      for (std::size_t bc = 0; bc < grid.block_cols; ++bc) {
        block_bounds(br, bc, [&](std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
          scalar_block(elements, scale_of(br * grid.block_cols + bc), r0, r1, c0, c1, shape.cols, out);
        });
      }
    }
    return;
  }
  std::vector<float> block_scales(grid.count());
  for (std::size_t b = 0; b < block_scales.size(); ++b) block_scales[b] = scale_f(scales[b]);
  const bool packed_fp4 = bits_ == 4 && options_.layout == element_layout::packed;
  decode_row setup;
  setup.table = value_f_.data();
  setup.element_bits = bits_;
  setup.element = options_.format.element;
  if (const auto g = element_value_grid(setup.element); g && bits_ == 8) {
    setup.fraction_bits = g->fraction_bits();
    setup.bias = g->bias();
    setup.first_special = setup.element == element_type::e4m3 ? 0x7F : 0x7C;
  }
  setup.packed_fp4 = packed_fp4;
  setup.block_cols = grid.tile_cols;
  setup.tensor_scale = tensor_scale;
  setup.times_tensor_scale = tensor_scale != 1.0f;
  auto decode = [&](const std::uint8_t* codes, const float* row_scales, std::size_t count, float* row_out) {
    if (path == simd_path::avx2) {
      decode_row_avx2(setup, codes, row_scales, count, row_out);
    } else {
      decode_row_avx512(setup, codes, row_scales, count, row_out);
    }
  };
  // Packed FP6 goes through a buffer of whole blocks' codes, about 32 KB.
  const bool packed_fp6 = bits_ == 6 && options_.layout == element_layout::packed;
  const std::size_t run_cols = std::max<std::size_t>(1, 32768 / grid.tile_cols) * grid.tile_cols;
  std::vector<std::uint8_t> unpacked(packed_fp6 ? std::min(shape.cols, run_cols) : 0);
  for (std::size_t r = 0; r < shape.rows; ++r) {
    const std::size_t first = r * shape.cols;
    const float* row_scales = block_scales.data() + r / grid.tile_rows * grid.block_cols;
    if (!packed_fp6) {
      decode(elements.data() + (packed_fp4 ? first / 2 : first), row_scales, shape.cols, out.data() + first);
      continue;
    }
    for (std::size_t col = 0; col < shape.cols; col += run_cols) {
      const std::size_t count = std::min(run_cols, shape.cols - col);
      unpack_fp6_codes(elements, first + col, count, unpacked.data());
      decode(unpacked.data(), row_scales + col / grid.tile_cols, count, out.data() + first + col);
    }
  }
  // A NaN scale: the scalar loop's NaN, whatever the element.
  for (std::size_t b = 0; b < block_scales.size(); ++b) {
    if (!std::isnan(block_scales[b])) continue;
    block_bounds(b / grid.block_cols, b % grid.block_cols,
                 [&](std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
                   scalar_block(elements, scale_of(b), r0, r1, c0, c1, shape.cols, out);
                 });
  }
}

}  // namespace scaled_detail

void dequantize(std::span<const std::uint8_t> elements, std::span<const std::uint32_t> scales, float tensor_scale,
                tensor_shape shape, std::span<float> out, const scaled_options& options) {
  scaled_detail::check_format(options);
  scaled_detail::check_size("dequantize", out.size(), shape.size(), "the output");
  scaled_detail::check_size("dequantize", elements.size(),
                            element_bytes(options.format.element, options.layout, shape.size()), "the element array");
  scaled_detail::check_size("dequantize", scales.size(), scaled_detail::block_grid(options.format, shape).count(),
                            "the scale array");
  scaled_detail::element_decoder(options).run(elements, scales, tensor_scale, shape, out,
                                              resolve_simd_path(options.path));
}

}  // namespace num
