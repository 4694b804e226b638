// quantize_dequantize against its definition, dequantize(quantize(x)) on the
// whole tensor: the same fp32 bits, scales, counts, flags and tensor scale,
// for every named format, rounding mode, option and instruction-set path, on
// tensors that end in partial blocks.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <libnum/array.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "scaled_run.hpp"
#include "scaled_test_data.hpp"

namespace {

std::vector<std::uint32_t> bits_of(const std::vector<float>& v) {
  std::vector<std::uint32_t> b(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) b[i] = std::bit_cast<std::uint32_t>(v[i]);
  return b;
}

// Compares quantize_dequantize with quantize + dequantize for one set of options.
void expect_fused_matches(const std::vector<float>& in, num::tensor_shape shape, const num::scaled_options& o,
                          const std::string& label) {
  const scaled_test::quantized reference = scaled_test::run(in, o, shape);
  std::vector<float> out(in.size(), -1.0f);
  std::vector<std::uint32_t> scales(num::scale_count(o.format, shape), 0xDEADBEEF);
  const num::scaled_result r = num::quantize_dequantize(in, shape, out, scales, o);
  EXPECT_EQ(bits_of(out), bits_of(reference.decoded)) << label;
  EXPECT_EQ(scales, reference.scales) << label;
  EXPECT_EQ(r.counts, reference.result.counts) << label;
  EXPECT_EQ(r.raised, reference.result.raised) << label;
  EXPECT_EQ(std::bit_cast<std::uint32_t>(r.tensor_scale), std::bit_cast<std::uint32_t>(reference.result.tensor_scale))
      << label;
}

std::vector<num::simd_path> supported_paths() {
  std::vector<num::simd_path> paths;
  for (num::simd_path p : {num::simd_path::scalar, num::simd_path::avx2, num::simd_path::avx512})
    if (num::simd_path_supported(p)) paths.push_back(p);
  return paths;
}

// 51,200 values as 512 rows of 100, each row ending in a partial block;
// NVFP4's grid data in the last rows.
std::vector<float> tensor_data() {
  std::vector<float> v = scaled_test::path_data(1600, 23);
  const std::vector<float> grid = scaled_test::nvfp4_data(5);
  std::copy(grid.begin(), grid.end(), v.end() - static_cast<std::ptrdiff_t>(grid.size()));
  return v;
}

constexpr num::tensor_shape tensor_shape{512, 100};

TEST(ScaledQuantizeDequantize, MatchesQuantizeThenDequantizeForEveryFormatModeAndPath) {
  const std::vector<float> in = tensor_data();
  for (const num::named_scaled_format& named : num::named_scaled_formats()) {
    for (num::rounding mode : num::all_roundings) {
      for (int r : {32, 3}) {
        if (r != 32 && mode != num::rounding::stochastic) continue;
        for (num::simd_path path : supported_paths()) {
          num::scaled_options o;
          o.format = named.format;
          o.spec.mode = mode;
          o.spec.random_bits = r;
          o.seed = 41;
          o.stream = 2;
          o.first_index = 7;
          o.path = path;
          expect_fused_matches(in, tensor_shape, o,
                               std::string(named.name) + " " + std::string(num::rounding_name(mode)) + " r=" +
                                   std::to_string(r) + " " + std::string(num::simd_path_name(path)));
        }
      }
    }
  }
}

// The options besides the mode: NaN/inf kept in FP8 elements, overflow to
// infinity, tininess before rounding, a margin, a given tensor amax or
// scale, symmetric INT8, the packed layout (which the fused call ignores).
TEST(ScaledQuantizeDequantize, MatchesQuantizeThenDequantizeUnderEveryOption) {
  const std::vector<float> in = tensor_data();
  struct variant {
    const char* format;
    void (*set)(num::scaled_options&);
    const char* what;
  };
  const variant variants[] = {
      {"mxfp8", [](num::scaled_options& o) { o.specials = num::special_block_policy::keep_in_elements; }, "keep"},
      {"mxfp8-e5m2",
       [](num::scaled_options& o) {
         o.specials = num::special_block_policy::keep_in_elements;
         o.spec.overflow = num::overflow_mode::ieee;
       },
       "keep, IEEE overflow"},
      {"mxfp8", [](num::scaled_options& o) { o.spec.overflow = num::overflow_mode::nan; }, "NaN overflow"},
      {"mxfp6-e3m2", [](num::scaled_options& o) { o.spec.tiny = num::tininess::before_rounding; }, "tiny before"},
      {"fp8-tensor", [](num::scaled_options& o) { o.margin = 3; }, "margin 3"},
      {"fp8-block", [](num::scaled_options& o) { o.margin = 1; }, "margin 1"},
      {"e4m3/fp32-amax-pow2/1x128", [](num::scaled_options& o) { o.margin = 2; }, "pow2 margin 2"},
      {"nvfp4", [](num::scaled_options& o) { o.tensor_amax = 1000.0f; }, "tensor amax 1000"},
      {"nvfp4-2d", [](num::scaled_options& o) { o.tensor_amax = 0.0f; }, "tensor amax 0"},
      {"mxint8", [](num::scaled_options& o) { o.int8_symmetric = true; }, "symmetric"},
      {"mxfp4", [](num::scaled_options& o) { o.layout = num::element_layout::packed; }, "packed"},
      {"mxfp6-e2m3", [](num::scaled_options& o) { o.layout = num::element_layout::packed; }, "packed"},
      {"nvfp4", [](num::scaled_options& o) { o.layout = num::element_layout::packed; }, "packed"},
  };
  for (const variant& v : variants) {
    for (num::rounding mode :
         {num::rounding::nearest_even, num::rounding::toward_negative, num::rounding::stochastic}) {
      for (num::simd_path path : supported_paths()) {
        num::scaled_options o = scaled_test::options_for(v.format);
        v.set(o);
        o.spec.mode = mode;
        o.seed = 3;
        o.path = path;
        expect_fused_matches(in, tensor_shape, o,
                             std::string(v.format) + " " + v.what + " " + std::string(num::rounding_name(mode)) + " " +
                                 std::string(num::simd_path_name(path)));
      }
    }
  }
  num::scaled_options given;
  given.format = {num::element_type::e4m3, num::scale_rule::fp32_given, num::whole_tensor_block};
  given.given_scale = 0.375f;
  expect_fused_matches(in, tensor_shape, given, "fp32-given 0.375");
}

// Odd shapes: one value, one short row, a single column, 150,000 values as
// rows and as one long row (sizes the former 64K-value bands split), and an
// empty tensor.
TEST(ScaledQuantizeDequantize, MatchesOnOddShapes) {
  const std::vector<float> data = scaled_test::path_data(5000, 37);
  const num::tensor_shape shapes[] = {{1, 1}, {1, 7}, {300, 1}, {97, 9}, {45, 16}, {600, 250}, {1, 150000}, {0, 5}};
  for (const num::tensor_shape shape : shapes) {
    const std::vector<float> in(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(shape.size()));
    for (const char* name : {"mxfp8", "nvfp4", "nvfp4-2d", "fp8-block-128x128", "fp8-tensor"}) {
      num::scaled_options o = scaled_test::options_for(name);
      o.spec.mode = num::rounding::stochastic;
      expect_fused_matches(in, shape, o,
                           std::string(name) + " " + std::to_string(shape.rows) + "x" + std::to_string(shape.cols));
    }
  }
}

// Operands as the trainer's recipes give them (one large value per block,
// the rest 2^-10..2^-20 below: subnormal elements and flushed ones) in its
// GEMMs' row widths, where the MX kernel writes values from its rounding.
TEST(ScaledQuantizeDequantize, MatchesOnBlocksOfTinyElementsInTrainerRowWidths) {
  const num::tensor_shape shapes[] = {{784, 9}, {101, 5}, {3, 784}, {9, 784}};
  for (const num::tensor_shape shape : shapes) {
    const std::vector<float> in = scaled_test::tiny_block_data(shape.size(), 32, 19);
    for (const char* name : {"mxfp8", "mxfp8-e5m2", "mxfp6-e3m2", "mxfp4", "mxint8", "nvfp4"}) {
      for (num::rounding mode : {num::rounding::nearest_even, num::rounding::toward_zero, num::rounding::stochastic}) {
        num::scaled_options o = scaled_test::options_for(name);
        o.spec.mode = mode;
        o.seed = 8;
        expect_fused_matches(in, shape, o,
                             std::string(name) + " " + std::string(num::rounding_name(mode)) + " " +
                                 std::to_string(shape.rows) + "x" + std::to_string(shape.cols));
      }
    }
  }
}

// amax in [2^-119, 2^-118): MXFP8's X = 2^(-119 - 8) is E8M0's smallest,
// 2^-127 (code 0), an fp32 subnormal. Values of at most 4 significant bits
// up to 1.75·2^-119 (E4M3's 448 = 1.75·2^8) are exact and come back unchanged.
TEST(ScaledQuantizeDequantize, BlockAtTheBottomOfE8M0ComesBackExactly) {
  std::vector<float> in(64);
  for (std::size_t i = 0; i < in.size(); ++i) {
    in[i] = std::ldexp(1.0f + 0.125f * static_cast<float>(i % 7), -119) * (i % 3 == 0 ? -1.0f : 1.0f);
  }
  const num::scaled_options o = scaled_test::options_for("mxfp8");
  expect_fused_matches(in, {2, 32}, o, "bottom of E8M0");
  std::vector<float> out(in.size());
  std::vector<std::uint32_t> scales(2);
  num::quantize_dequantize(in, {2, 32}, out, scales, o);
  EXPECT_EQ(bits_of(out), bits_of(in));
  EXPECT_EQ(scales, (std::vector<std::uint32_t>{0, 0}));
}

// In place, also in rows of 9 (MX passes of three rows, each loading five
// values of the next pass's rows, and rows left to the scalar path).
TEST(ScaledQuantizeDequantize, RunsInPlaceAndWithoutScales) {
  const std::vector<float> in = tensor_data();
  for (const num::tensor_shape shape : {tensor_shape, num::tensor_shape{in.size() / 9, 9}}) {
    const std::vector<float> rows(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(shape.size()));
    for (const char* name : {"mxfp4", "mxfp8", "nvfp4", "fp8-block-128x128"}) {
      const num::scaled_options o = scaled_test::options_for(name);
      const scaled_test::quantized reference = scaled_test::run(rows, o, shape);
      std::vector<float> values = rows;
      const num::scaled_result r = num::quantize_dequantize(values, shape, values, o);
      EXPECT_EQ(bits_of(values), bits_of(reference.decoded)) << name << " " << shape.cols;
      EXPECT_EQ(r.counts, reference.result.counts) << name << " " << shape.cols;
    }
  }
}

TEST(ScaledQuantizeDequantize, BadArgumentsThrowBeforeAnythingIsWritten) {
  std::vector<float> in(64, 1.5f), out(64, -1.0f);
  std::vector<std::uint32_t> scales(2, 7);
  num::scaled_options o = scaled_test::options_for("mxfp8");
  auto untouched = [&] {
    return out == std::vector<float>(64, -1.0f) && scales == std::vector<std::uint32_t>(2, 7);
  };
  auto message = [&](auto&& call) {
    try {
      call();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message([&] { num::quantize_dequantize(in, {1, 64}, std::span(out).first(63), scales, o); })
                .find("the output has 63 entries, expected 64"),
            std::string::npos);
  EXPECT_NE(message([&] { num::quantize_dequantize(in, {1, 64}, out, std::span(scales).first(1), o); })
                .find("the scale array has 1 entries, expected 2"),
            std::string::npos);
  const std::span<float> shifted = std::span(out).subspan(16, 32);
  EXPECT_NE(message([&] { num::quantize_dequantize(std::span(out).first(32), {1, 32}, shifted, o); })
                .find("overlaps the input"),
            std::string::npos);
  o.spec.random_bits = 0;
  EXPECT_NE(message([&] { num::quantize_dequantize(in, {1, 64}, out, scales, o); }).find("random bits r = 0"),
            std::string::npos);
  EXPECT_TRUE(untouched());
}

}  // namespace
