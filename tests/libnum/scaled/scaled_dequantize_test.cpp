// num::dequantize against the element and scale values taken one code at a
// time (num::element_value, num::scale_value), multiplied in double and
// rounded once to float here: every element code, block scales from E8M0's
// extremes (subnormal and overflowing products) to NVFP4's non-power-of-two
// E4M3 × fp32 scales.
#include <gtest/gtest.h>

#include <libnum/scaled_array.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <libnum/array.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void expect_elementwise_products(const std::string& name, std::uint32_t first_scale, std::uint32_t scale_step,
                                 float tensor_scale) {
  SCOPED_TRACE(name);
  num::scaled_options o;
  o.format = *num::find_scaled_format(name);
  const num::scale_type st = num::scale_type_of(o.format.rule);
  const std::size_t bits = static_cast<std::size_t>(num::element_bits(o.format.element));
  const std::size_t codes = std::size_t{1} << bits, block = o.format.block.cols;
  // Every code in every block: rows of `codes` elements, one block per row chunk.
  const std::size_t blocks = 12;
  const num::tensor_shape shape{1, blocks * block};
  std::vector<std::uint8_t> elements(shape.size());
  std::vector<std::uint32_t> scales(blocks);
  for (std::size_t i = 0; i < elements.size(); ++i) elements[i] = static_cast<std::uint8_t>((i * 7 + i / codes) % codes);
  for (std::size_t b = 0; b < blocks; ++b) scales[b] = first_scale + static_cast<std::uint32_t>(b) * scale_step;
  std::vector<float> out(shape.size());
  num::dequantize(elements, scales, tensor_scale, shape, out, o);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double exact = num::element_value(o.format.element, elements[i]) * num::scale_value(st, scales[i / block]) *
                         static_cast<double>(tensor_scale);
    const auto expected = static_cast<float>(exact);
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(out[i])) << i;
    else
      EXPECT_EQ(out[i], expected) << i << " code " << int{elements[i]} << " scale " << scales[i / block];
  }
}

TEST(ScaledDequantize, EveryCodeTimesItsBlockScaleRoundedOnce) {
  // E8M0 codes 0, 23, ..., 253: 2^-127 (products below float's subnormals)
  // up to 2^126 (products beyond float's range).
  expect_elementwise_products("mxfp8", 0, 23, 1.0f);
  expect_elementwise_products("mxfp8-e5m2", 0, 23, 1.0f);
  expect_elementwise_products("mxfp4", 0, 23, 1.0f);
  expect_elementwise_products("mxint8", 0, 23, 1.0f);
  // NVFP4: E4M3 block scales times an fp32 tensor scale with a full significand.
  expect_elementwise_products("nvfp4", 1, 11, 0.1f);
  expect_elementwise_products("nvfp4", 0x30, 5, 3.0f);
}

// Every path gives the scalar loop's bits: random bytes as codes (NaN and
// inf codes of E4M3/E5M2 among them), scale codes over the whole encoding
// (NaN scales, E8M0's extremes, fp32 infinities, NaNs and subnormals), in
// each layout, 1-D and 2-D blocks, rows that end in partial blocks.
TEST(ScaledDequantize, EveryPathMatchesTheScalarLoop) {
  std::mt19937 gen(77);
  const num::tensor_shape shape{40, 150};
  for (const char* name : {"mxfp8", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4", "mxint8", "nvfp4", "nvfp4-2d",
                           "fp8-block", "fp8-block-128x128"}) {
    for (const num::element_layout layout : {num::element_layout::byte_per_element, num::element_layout::packed}) {
      for (const float tensor_scale : {1.0f, 0.1f, 3.0f}) {
        num::scaled_options o;
        o.format = *num::find_scaled_format(name);
        o.layout = layout;
        std::vector<std::uint8_t> elements(num::element_bytes(o.format.element, layout, shape.size()));
        for (auto& e : elements) e = static_cast<std::uint8_t>(gen());
        std::vector<std::uint32_t> scales(num::scale_count(o.format, shape));
        const num::scale_type st = num::scale_type_of(o.format.rule);
        for (auto& c : scales) c = st == num::scale_type::fp32 ? static_cast<std::uint32_t>(gen()) : gen() % 256;
        if (st == num::scale_type::fp32) {
          const std::uint32_t specials[] = {0x7F800000, 0x7FC00001, 0x00000123};  // inf, NaN, a subnormal
          for (std::size_t k = 0; k < 3 && k < scales.size(); ++k) scales[k] = specials[k];
        }
        std::vector<float> scalar(shape.size()), fast(shape.size());
        o.path = num::simd_path::scalar;
        num::dequantize(elements, scales, tensor_scale, shape, scalar, o);
        for (const num::simd_path path : {num::simd_path::avx2, num::simd_path::avx512}) {
          if (!num::simd_path_supported(path)) continue;
          o.path = path;
          num::dequantize(elements, scales, tensor_scale, shape, fast, o);
          for (std::size_t i = 0; i < shape.size(); ++i) {
            ASSERT_EQ(std::bit_cast<std::uint32_t>(fast[i]), std::bit_cast<std::uint32_t>(scalar[i]))
                << name << (layout == num::element_layout::packed ? " packed" : " bytes") << " tensor scale "
                << tensor_scale << " " << num::simd_path_name(path) << " element " << i;
          }
        }
      }
    }
  }
}

// A size mismatch names dequantize (not quantize, as it once did), the
// array and both sizes.
TEST(ScaledDequantize, SizeErrorsNameTheCallAndTheArray) {
  num::scaled_options o;
  o.format = *num::find_scaled_format("mxfp8");
  std::vector<std::uint8_t> elements(64);
  std::vector<std::uint32_t> scales(2);
  std::vector<float> out(63);
  try {
    num::dequantize(elements, scales, 1.0f, {1, 64}, out, o);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "dequantize: the output has 63 entries, expected 64");
  }
  out.resize(64);
  scales.resize(3);
  try {
    num::dequantize(elements, scales, 1.0f, {1, 64}, out, o);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "dequantize: the scale array has 3 entries, expected 2");
  }
}

// Packed FP6 decodes through a buffer a run of whole blocks at a time
// (32,768 columns): rows longer than that, and rows that start inside a
// group of four, give the scalar loop's bits.
TEST(ScaledDequantize, PackedFp6LongRowsMatchTheScalarLoop) {
  std::mt19937 gen(78);
  for (const num::tensor_shape shape : {num::tensor_shape{2, 70001}, num::tensor_shape{3, 32810}}) {
    for (const char* name : {"mxfp6-e2m3", "mxfp6-e3m2"}) {
      num::scaled_options o;
      o.format = *num::find_scaled_format(name);
      o.layout = num::element_layout::packed;
      std::vector<std::uint8_t> elements(num::element_bytes(o.format.element, o.layout, shape.size()));
      for (auto& e : elements) e = static_cast<std::uint8_t>(gen());
      std::vector<std::uint32_t> scales(num::scale_count(o.format, shape));
      for (auto& c : scales) c = 100 + gen() % 50;
      std::vector<float> scalar(shape.size()), fast(shape.size());
      o.path = num::simd_path::scalar;
      num::dequantize(elements, scales, 1.0f, shape, scalar, o);
      for (const num::simd_path path : {num::simd_path::avx2, num::simd_path::avx512}) {
        if (!num::simd_path_supported(path)) continue;
        o.path = path;
        num::dequantize(elements, scales, 1.0f, shape, fast, o);
        for (std::size_t i = 0; i < shape.size(); ++i) {
          ASSERT_EQ(std::bit_cast<std::uint32_t>(fast[i]), std::bit_cast<std::uint32_t>(scalar[i]))
              << name << " " << shape.rows << "x" << shape.cols << " " << num::simd_path_name(path) << " element " << i;
        }
      }
    }
  }
}

}  // namespace
