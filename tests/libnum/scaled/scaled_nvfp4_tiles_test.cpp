// NVFP4's 2-D blocks (16x16) on the AVX-512 and AVX2 kernels (each where
// the CPU has it), row by row, in tensors
// of every width from 1 to 40 columns: full tiles, tiles narrower than 16 at
// the right edge, rows narrower than a block. The input lies between
// poisoned neighbours (NaN before, negative values far above the tensor's
// amax after, whose signs and scales would show if a lane past a row were
// read into a block), and the element array is filled with garbage before
// the call, with a guard behind it: every element must be written, none past
// the array, and each equal to the rational reference (codes, scales,
// counts), in every mode and both layouts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <libnum/array.hpp>
#include <libnum/scaled_array.hpp>
#include <span>
#include <string>
#include <vector>

#include "scaled_block_reference.hpp"
#include "scaled_path_compare.hpp"
#include "scaled_run.hpp"
#include "scaled_test_data.hpp"

namespace {

constexpr std::size_t guard = 64;       // poisoned floats each side of the input
constexpr std::uint8_t garbage = 0xA5;  // the element array's bytes before the call

void expect_tiles_match(const std::vector<float>& values, num::tensor_shape shape, num::element_layout layout,
                        num::simd_path path) {
  const std::size_t n = shape.size();
  std::vector<float> buffer(n + 2 * guard);
  for (std::size_t i = 0; i < guard; ++i) {
    buffer[i] = std::nanf("");
    buffer[guard + n + i] = -1e30f;
  }
  std::copy(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n), buffer.begin() + guard);
  const std::span<const float> in(buffer.data() + guard, n);
  const std::vector<float> in_vector(in.begin(), in.end());
  for (const scaled_test::mode_case& m : scaled_test::reference_modes) {
    num::scaled_options o;
    o.format = num::parse_scaled_format("nvfp4-2d");
    o.layout = layout;
    o.spec.mode = m.mode;
    o.spec.random_bits = m.r;
    o.seed = 17;
    o.first_index = 3;
    o.path = path;
    const std::string label = std::string(num::simd_path_name(path)) + " " + std::to_string(shape.rows) + "x" +
                              std::to_string(shape.cols) +
                              (layout == num::element_layout::packed ? " packed " : " bytes ") +
                              std::string(num::rounding_name(m.mode)) + " r=" + std::to_string(m.r);
    const std::size_t bytes = num::element_bytes(o.format.element, layout, n);
    std::vector<std::uint8_t> elements(bytes + guard, garbage);
    std::vector<std::uint32_t> scales(num::scale_count(o.format, shape));
    const num::scaled_result got = num::quantize(in, shape, std::span<std::uint8_t>(elements.data(), bytes), scales, o);
    ASSERT_EQ(got.path, path) << label;
    const scaled_ref::tensor_out want = scaled_ref::quantize(in_vector, shape, o);
    ASSERT_EQ(scales, want.scales) << label;
    int shown = 0;
    for (std::size_t i = 0; i < n && shown < 5; ++i) {
      const std::uint32_t code = num::element_code_at(elements, o.format.element, layout, i);
      if (code != want.codes[i]) {
        ADD_FAILURE() << label << ": element " << i << " (row " << i / shape.cols << ", column " << i % shape.cols
                      << ") = " << in[i] << " gave code " << code << ", reference " << want.codes[i];
        ++shown;
      }
    }
    EXPECT_EQ(got.counts, want.counts) << label;
    for (std::size_t i = bytes; i < bytes + guard; ++i) ASSERT_EQ(elements[i], garbage) << label << ": byte " << i;
  }
}

TEST(ScaledNvfp4Tiles, EveryWidthWritesEachElementFromItsOwnRowOnly) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  const std::vector<float> data = scaled_test::nvfp4_data(23);
  constexpr std::size_t rows = 19;  // a full 16-row tile and a partial one
  for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
    for (std::size_t cols = 1; cols <= 40; ++cols) {
      ASSERT_LE(rows * cols, data.size());
      expect_tiles_match(data, {rows, cols}, num::element_layout::byte_per_element, path);
      if (cols % 2 == 0) expect_tiles_match(data, {rows, cols}, num::element_layout::packed, path);
    }
  }
}

}  // namespace
