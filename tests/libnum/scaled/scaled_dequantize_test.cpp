// num::dequantize against the element and scale values taken one code at a
// time (num::element_value, num::scale_value), multiplied in double and
// rounded once to float here: every element code, block scales from E8M0's
// extremes (subnormal and overflowing products) to NVFP4's non-power-of-two
// E4M3 × fp32 scales.
#include <gtest/gtest.h>

#include <libnum/scaled_array.hpp>

#include <cmath>
#include <cstdint>
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

}  // namespace
