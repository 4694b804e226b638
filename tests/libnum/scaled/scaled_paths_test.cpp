// The NVFP4 and fp32-scale kernels (AVX-512, AVX2) against the scalar path, and
// hand-derived blocks on every path: identical element codes, scales,
// counts and flags for every rounding mode, on data that exercises their
// fallbacks (NaN/inf, fp32 subnormals, zero blocks, flushed tiny values)
// beside ordinary blocks. The MX kernels' comparisons are in
// scaled_mx_paths_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <libnum/array.hpp>
#include <string>
#include <vector>

#include "scaled_path_compare.hpp"
#include "scaled_run.hpp"
#include "scaled_test_data.hpp"

namespace {

using scaled_test::expect_same;

// NVFP4 operands as the trainer's recipes quantize them (tiny_block_data),
// in rows as its GEMMs cut them: shorter than one block (k = 9, 5), a
// partial block at each row's end (25, 784), whole blocks only (the MX
// formats' are in scaled_mx_paths_test.cpp), on each kernel the CPU has.
TEST(ScaledPaths, Nvfp4KernelsMatchScalarOnBlocksOfTinyElementsInAnyRowWidth) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  const num::tensor_shape shapes[] = {{70, 9}, {41, 5}, {33, 16}, {24, 25}, {3, 784}, {10, 64}};
  for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
    for (const num::tensor_shape shape : shapes) {
      const std::vector<float> in = scaled_test::tiny_block_data(shape.size(), 16, 5);
      for (num::rounding mode : num::all_roundings) {
        for (const float tensor_amax : {std::nanf(""), 64.0f}) {
          num::scaled_options o = scaled_test::options_for("nvfp4");
          o.spec.mode = mode;
          o.seed = 3;
          o.first_index = 7;
          o.tensor_amax = tensor_amax;
          const std::string label = "nvfp4 " + std::string(num::rounding_name(mode)) + " " +
                                    std::to_string(shape.rows) + "x" + std::to_string(shape.cols) + " amax " +
                                    std::to_string(tensor_amax);
          const auto scalar = scaled_test::expect_path_matches_scalar(path, in, o, shape, label);
          // The data does what it is for (rounding to odd never gives zero).
          if (mode != num::rounding::to_odd) {
            EXPECT_GT(scalar.result.counts.block_underflow, 0u) << label;
          }
        }
      }
    }
  }
}

// A row of 9 (one partial MXFP8 block), hand-derived: amax 1 gives X = 2^-8
// (E8M0 code 119); x / X for 2^-20 is 2^-12, under half of E4M3's smallest
// subnormal 2^-9: flushed by the block's scale (block underflow); 1.5·2^-17
// is the tie 1.5·2^-9 (even: 2·2^-9, code 2); 2^-17 is code 1 exactly;
// 0.75·2^-17 rounds up to code 1; 2^-12 is 2^-4 (code 0x18); 1 is 2^8 (0x78).
TEST(ScaledPaths, PartialBlockOfTinyElementsCountsAsDerived) {
  const std::vector<float> in = {1.0f,       0x1p-20f, -0x1p-20f, 0x1.8p-17f, 0x1p-17f,
                                 0.0f,       -0.0f,    0x1p-12f,  0x1.8p-18f};
  const std::vector<std::uint32_t> codes = {0x78, 0x00, 0x80, 0x02, 0x01, 0x00, 0x80, 0x18, 0x01};
  for (num::simd_path path : {num::simd_path::scalar, num::simd_path::avx2, num::simd_path::avx512}) {
    if (!num::simd_path_supported(path)) continue;
    num::scaled_options o = scaled_test::options_for("mxfp8");
    o.path = path;
    const auto q = scaled_test::run(in, o);
    const std::string label(num::simd_path_name(path));
    EXPECT_EQ(q.codes, codes) << label;
    EXPECT_EQ(q.scales, std::vector<std::uint32_t>{119}) << label;
    EXPECT_EQ(q.result.counts.elements, 9u) << label;
    EXPECT_EQ(q.result.counts.blocks, 1u) << label;
    EXPECT_EQ(q.result.counts.inexact, 4u) << label;
    EXPECT_EQ(q.result.counts.block_underflow, 2u) << label;
    EXPECT_EQ(q.result.counts.underflow_to_zero, 0u) << label;
    EXPECT_EQ(q.result.counts.saturated, 0u) << label;
    EXPECT_EQ(q.result.raised, num::flags::inexact | num::flags::underflow) << label;
  }
}

// NVFP4 with s = 1 (tensor amax 2688 = 448·6), a row of 36, hand-derived:
// block 0 (all 6) takes S = 1 (0x38) and code 7 exactly; in block 1 every
// |x| = 2^-12 gives amax / 6 below 2^-10, so S rounds to zero (a scale
// underflow): each element keeps its sign only, inexact, flushed to zero
// (no block underflow: no element's own scale is nonzero either); the
// partial block of signed zeros takes S = 0 without underflow or flags.
TEST(ScaledPaths, Nvfp4ZeroScaleAndPartialBlocksCountAsDerived) {
  std::vector<float> in(36, 6.0f);
  std::vector<std::uint32_t> codes(36, 7);
  for (std::size_t j = 0; j < 16; ++j) {
    in[16 + j] = j % 4 == 3 ? 0.0f : (j % 2 ? -0x1p-12f : 0x1p-12f);
    codes[16 + j] = j % 4 == 3 || j % 2 == 0 ? 0 : 8;
  }
  for (std::size_t j = 32; j < 36; ++j) {
    in[j] = j % 2 ? 0.0f : -0.0f;
    codes[j] = j % 2 ? 0 : 8;
  }
  for (num::simd_path path : {num::simd_path::scalar, num::simd_path::avx2, num::simd_path::avx512}) {
    if (!num::simd_path_supported(path)) continue;
    num::scaled_options o = scaled_test::options_for("nvfp4");
    o.tensor_amax = 2688.0f;
    o.path = path;
    const auto q = scaled_test::run(in, o);
    const std::string label(num::simd_path_name(path));
    EXPECT_EQ(q.codes, codes) << label;
    EXPECT_EQ(q.scales, (std::vector<std::uint32_t>{0x38, 0, 0})) << label;
    EXPECT_EQ(q.result.counts.elements, 36u) << label;
    EXPECT_EQ(q.result.counts.blocks, 3u) << label;
    EXPECT_EQ(q.result.counts.inexact, 12u) << label;
    EXPECT_EQ(q.result.counts.underflow_to_zero, 12u) << label;
    EXPECT_EQ(q.result.counts.block_underflow, 0u) << label;
    EXPECT_EQ(q.result.counts.scale_underflow, 1u) << label;
    EXPECT_EQ(q.result.raised, num::flags::inexact | num::flags::underflow) << label;
    // Without block 1's nonzero values nothing is raised.
    std::vector<float> exact = in;
    std::fill(exact.begin() + 16, exact.begin() + 32, 0.0f);
    const auto e = scaled_test::run(exact, o);
    EXPECT_EQ(e.result.raised, num::flags::none) << label;
    EXPECT_EQ(e.result.counts.scale_underflow, 0u) << label;
  }
}

// NVFP4 with s = 1, one block of amax 6.5 (S = RNE_E4M3(6.5 / 6) = 1.125,
// code 0x39; 6.5 / S lies near no rounding boundary, so the AVX2 kernel
// takes the block): 6·2^-10 and the next fp32 above it both flush to zero;
// the first's own block scale would round to E4M3 zero too (amax / 6 =
// 2^-10, half the smallest subnormal, ties to even zero: underflow to
// zero), the second's would not (block underflow).
TEST(ScaledPaths, Nvfp4FlushedElementsClassedAtTheOwnScaleBoundary) {
  std::vector<float> in(16, 0.0f);
  in[0] = 6.5f;
  in[1] = 0x1.8p-8f;  // 6 · 2^-10
  in[2] = -std::nextafter(0x1.8p-8f, 1.0f);
  for (num::simd_path path : {num::simd_path::scalar, num::simd_path::avx2, num::simd_path::avx512}) {
    if (!num::simd_path_supported(path)) continue;
    num::scaled_options o = scaled_test::options_for("nvfp4");
    o.tensor_amax = 2688.0f;
    o.path = path;
    const auto q = scaled_test::run(in, o);
    const std::string label(num::simd_path_name(path));
    EXPECT_EQ(q.scales, std::vector<std::uint32_t>{0x39}) << label;
    EXPECT_EQ(q.codes[1], 0u) << label;
    EXPECT_EQ(q.codes[2], 8u) << label;
    EXPECT_EQ(q.result.counts.underflow_to_zero, 1u) << label;
    EXPECT_EQ(q.result.counts.block_underflow, 1u) << label;
  }
}

TEST(ScaledPaths, UnderflowFlagOnlyWhereRoundingStaysBelowTheNormalRange) {
  // E4M3, X = 1 (amax 448): 0.0155 is below 2^-6 = 0.015625 and rounds up to
  // it (tiny after rounding? no: with p bits and unbounded exponent it rounds
  // to 2^-6 too), while 0.01 stays subnormal (underflow).
  for (num::simd_path path : {num::simd_path::scalar, num::simd_path::avx2, num::simd_path::avx512}) {
    if (!num::simd_path_supported(path)) continue;
    num::scaled_options o = scaled_test::options_for("mxfp8");
    o.path = path;
    std::vector<float> in(32, 1.0f);
    in[0] = 448.0f;
    in[1] = 0.0155f;
    EXPECT_FALSE(num::any(scaled_test::run(in, o).result.raised, num::flags::underflow)) << num::simd_path_name(path);
    in[1] = 0.01f;
    EXPECT_TRUE(num::any(scaled_test::run(in, o).result.raised, num::flags::underflow)) << num::simd_path_name(path);
  }
}

}  // namespace

TEST(ScaledPaths, Nvfp4KernelsMatchScalarInEveryMode) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  const std::vector<float> in = scaled_test::nvfp4_data(7);
  ASSERT_EQ(in.size() % 16, 0u);
  // 1x16 blocks along rows; 16x16 blocks (nvfp4-2d) with partial tiles at
  // the right (96 rows of 40), at the bottom (60 rows of 64), and rows
  // narrower than a block (480 rows of 8).
  const num::tensor_shape shapes[] = {
      {1, in.size()}, {in.size() / 80, 80}, {in.size() / 40, 40}, {in.size() / 64, 64}, {in.size() / 8, 8}};
  for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
    for (const char* format : {"nvfp4", "nvfp4-2d"}) {
      for (const num::tensor_shape shape : shapes) {
        for (num::rounding mode : num::all_roundings) {
          for (const float tensor_amax : {std::nanf(""), 2688.0f, 1000.0f}) {
            for (const num::tininess tiny : {num::tininess::after_rounding, num::tininess::before_rounding}) {
              num::scaled_options o = scaled_test::options_for(format);
              o.spec.mode = mode;
              o.spec.tiny = tiny;
              o.spec.random_bits = tiny == num::tininess::after_rounding ? 32 : 5;
              o.seed = 17;
              o.first_index = 2;
              o.tensor_amax = tensor_amax;
              o.path = num::simd_path::scalar;
              const auto scalar = scaled_test::run(in, o, shape);
              o.path = path;
              const auto fast = scaled_test::run(in, o, shape);
              const std::string label = std::string(format) + " " + std::string(num::rounding_name(mode)) + " amax " +
                                        std::to_string(tensor_amax) +
                                        (tiny == num::tininess::after_rounding ? " after " : " before ") +
                                        std::to_string(shape.rows) + "x" + std::to_string(shape.cols) + " " +
                                        std::string(num::simd_path_name(path));
              EXPECT_EQ(fast.result.path, path) << label;
              EXPECT_EQ(fast.result.tensor_scale, scalar.result.tensor_scale) << label;
              expect_same(fast, scalar, label);
            }
          }
        }
      }
    }
  }
}

// Blocks where one comparison decides, each in a call of its own (flags are
// per call), with s = 1 (tensor amax 2688 = 448·6): a tie of x / D at 0.875
// (nearest rounds to 1 = 2^emin: tiny before rounding only), just above 0.75
// (rounding up carries), and block amax / 6 at 464 (ties to the scale 448,
// no overflow) or just above it (saturates).
TEST(ScaledPaths, Nvfp4KernelsDecideTiesOfScaleAndTininessAsScalar) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  auto block = [](float first, float amax) {
    std::vector<float> v(16, amax);
    v[0] = first;
    return v;
  };
  const std::vector<float> cases[] = {block(0.875f, 6.0f),  block(-0.875f, 6.0f),
                                      block(0.8125f, 6.0f), block(std::nextafter(0.75f, 1.0f), 6.0f),
                                      block(1.0f, 2784.0f), block(1.0f, std::nextafter(2784.0f, 3000.0f))};
  for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
    for (const auto& in : cases) {
      for (num::rounding mode : num::all_roundings) {
        for (const num::tininess tiny : {num::tininess::after_rounding, num::tininess::before_rounding}) {
          // Stochastic rounding: seeds whose first word rounds up and down.
          for (std::uint64_t seed = 0; seed < (mode == num::rounding::stochastic ? 6u : 1u); ++seed) {
            num::scaled_options o = scaled_test::options_for("nvfp4");
            o.spec.mode = mode;
            o.spec.tiny = tiny;
            o.seed = seed;
            o.tensor_amax = 2688.0f;
            o.path = num::simd_path::scalar;
            const auto scalar = scaled_test::run(in, o);
            o.path = path;
            const auto fast = scaled_test::run(in, o);
            const std::string label = std::to_string(in[0]) + " amax " + std::to_string(in[1]) + " " +
                                      std::string(num::rounding_name(mode)) +
                                      (tiny == num::tininess::after_rounding ? " after" : " before") + " seed " +
                                      std::to_string(seed) + " " + std::string(num::simd_path_name(path));
            expect_same(fast, scalar, label);
          }
        }
      }
    }
  }
  // Hand-derived: 0.875 rounds to nearest-even 1.0 (code 2) without the
  // underflow flag after rounding; amax 2784 takes scale 448 (0x7E) without overflow.
  for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
    num::scaled_options o = scaled_test::options_for("nvfp4");
    o.tensor_amax = 2688.0f;
    o.path = path;
    const auto tie = scaled_test::run(cases[0], o);
    EXPECT_EQ(tie.codes[0], 2u);
    EXPECT_FALSE(num::any(tie.result.raised, num::flags::underflow));
    const auto scale_tie = scaled_test::run(cases[4], o);
    EXPECT_EQ(scale_tie.scales[0], 0x7Eu);
    EXPECT_EQ(scale_tie.result.counts.scale_overflow, 0u);
    EXPECT_EQ(scaled_test::run(cases[5], o).result.counts.scale_overflow, 1u);
  }
}

// Packed FP4 (two codes per byte): the kernels write whole bytes where every
// row starts on one (even column counts) and leave odd ones to the scalar
// path; the bytes equal the scalar path's either way.
TEST(ScaledPaths, KernelsPackedFp4BytesMatchScalar) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  const std::vector<float> in = scaled_test::nvfp4_data(3);  // 3840 values
  const num::tensor_shape shapes[] = {{1, in.size()}, {in.size() / 96, 96}, {in.size() / 160, 160}, {1, in.size() - 1}};
  for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
    for (const num::tensor_shape shape : shapes) {
      const std::vector<float> part(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(shape.size()));
      for (const char* name : {"mxfp4", "nvfp4"}) {
        for (num::rounding mode :
             {num::rounding::nearest_even, num::rounding::toward_positive, num::rounding::stochastic}) {
          num::scaled_options o = scaled_test::options_for(name);
          o.layout = num::element_layout::packed;
          o.spec.mode = mode;
          o.seed = 4;
          o.path = num::simd_path::scalar;
          const auto scalar = scaled_test::run(part, o, shape);
          o.path = path;
          const auto fast = scaled_test::run(part, o, shape);
          const std::string label = std::string(name) + " " + std::string(num::rounding_name(mode)) + " " +
                                    std::to_string(shape.rows) + "x" + std::to_string(shape.cols) + " " +
                                    std::string(num::simd_path_name(path));
          EXPECT_EQ(fast.elements, scalar.elements) << label;
          expect_same(fast, scalar, label);
        }
      }
    }
  }
}

// The element kernels of the fp32 scale rules (AVX-512, AVX2, each the CPU
// has) against the scalar path: 1-D and 2-D blocks, a whole-tensor block, a
// given scale, margins, both tininess rules, every mode (stochastic at r = 32
// and r = 3, its words following the elements from first_index 3 on), rows
// whose block segments end in a partial vector,
// on data with ties under power-of-two scales (the grid rows of nvfp4_data)
// and flushed, subnormal and NaN/inf-holding blocks.
TEST(ScaledPaths, Fp32ScaleKernelsMatchScalar) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  std::vector<float> in = scaled_test::path_data(200, 29);
  const std::vector<float> grid = scaled_test::nvfp4_data(31);
  in.insert(in.end(), grid.begin(), grid.end());
  in.resize(in.size() / 160 * 160);
  // Rows of 160 (whole 8-element steps in each block's segment) and of 150
  // (1x128 and 1x32 blocks end in a partial step: 22 = 2·8 + 6, 150 = 4·32 + 22).
  const num::tensor_shape whole_steps{in.size() / 160, 160}, partial_steps{in.size() / 160, 150};
  struct variant {
    const char* format;
    int margin;
    float given_scale;
  };
  const variant variants[] = {{"fp8-block", 0, 1}, {"fp8-block-128x128", 0, 1}, {"fp8-tensor", 0, 1},
                              {"fp8-tensor-e5m2", 0, 1}, {"e4m3/fp32-amax-pow2/1x128", 0, 1}, {"fp8-block", 2, 1},
                              {"e5m2/fp32-amax/1x32", 0, 1}, {"", 0, 0.75f}, {"", 0, 0x1p-130f}};
  for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
    for (const num::tensor_shape shape : {whole_steps, partial_steps}) {
      const std::vector<float> values(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(shape.size()));
      for (const variant& v : variants) {
        for (const scaled_test::mode_case m : scaled_test::reference_modes) {
          if (m.mode == num::rounding::stochastic && m.r != 32 && m.r != 3) continue;
          const num::rounding mode = m.mode;
          for (const num::tininess tiny : {num::tininess::after_rounding, num::tininess::before_rounding}) {
            num::scaled_options o;
            o.spec.random_bits = m.r;
            o.seed = 11;
            o.first_index = 3;
            if (*v.format != '\0') {
              o.format = num::parse_scaled_format(v.format);
            } else {
              o.format = {num::element_type::e4m3, num::scale_rule::fp32_given, num::whole_tensor_block};
              o.given_scale = v.given_scale;
            }
            o.margin = v.margin;
            o.spec.mode = mode;
            o.spec.tiny = tiny;
            o.path = num::simd_path::scalar;
            const auto scalar = scaled_test::run(values, o, shape);
            o.path = path;
            const auto fast = scaled_test::run(values, o, shape);
            const std::string label = std::string(*v.format ? v.format : "fp32-given") + " margin " +
                                      std::to_string(v.margin) + " " + std::string(num::rounding_name(mode)) +
                                      " r=" + std::to_string(m.r) +
                                      (tiny == num::tininess::after_rounding ? " after " : " before ") +
                                      std::to_string(shape.cols) + " columns " + std::string(num::simd_path_name(path));
            EXPECT_EQ(fast.result.path, path) << label;
            expect_same(fast, scalar, label);
          }
        }
      }
    }
  }
}

// Per-tensor scales (a given one, as fp8-current and fp8-delayed pass it,
// and the amax rule with a margin) on operand-like data free of NaN/inf, so
// that the whole tensor runs on the kernel with flushed elements in many rows.
TEST(ScaledPaths, TensorScaleKernelsCountFlushedElementsAsScalar) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  const std::vector<float> in = scaled_test::tiny_block_data(20 * 160, 32, 8);
  for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
    for (const int margin : {0, 3}) {
      for (num::rounding mode : num::all_roundings) {
        num::scaled_options o;
        o.seed = 2;
        o.format = {num::element_type::e4m3, margin == 0 ? num::scale_rule::fp32_given : num::scale_rule::fp32_amax,
                    num::whole_tensor_block};
        o.given_scale = 0x1p-3f;
        o.margin = margin;
        o.spec.mode = mode;
        o.path = num::simd_path::scalar;
        const auto scalar = scaled_test::run(in, o, {20, 160});
        o.path = path;
        const auto fast = scaled_test::run(in, o, {20, 160});
        const std::string label = "margin " + std::to_string(margin) + " " + std::string(num::rounding_name(mode)) +
                                  " " + std::string(num::simd_path_name(path));
        EXPECT_EQ(fast.result.path, path) << label;
        expect_same(fast, scalar, label);
        if (mode != num::rounding::to_odd) {
          EXPECT_GT(scalar.result.counts.underflow_to_zero + scalar.result.counts.block_underflow, 20u) << label;
        }
      }
    }
  }
}

// Under a given scale of 1, E4M3: 0.0155 lies below 2^-6 but rounds up to it
// at 4 bits with an unbounded exponent (not tiny after rounding), 0.01 stays
// subnormal; each in a call of its own, since the flag is per call.
TEST(ScaledPaths, Fp32ScaleUnderflowFlagOnlyWhereRoundingStaysBelowTheNormalRange) {
  for (num::simd_path path : {num::simd_path::scalar, num::simd_path::avx2, num::simd_path::avx512}) {
    if (!num::simd_path_supported(path)) continue;
    for (const num::tininess tiny : {num::tininess::after_rounding, num::tininess::before_rounding}) {
      num::scaled_options o;
      o.format = {num::element_type::e4m3, num::scale_rule::fp32_given, num::whole_tensor_block};
      o.spec.tiny = tiny;
      o.path = path;
      std::vector<float> in(32, 1.0f);
      in[1] = 0.0155f;
      EXPECT_EQ(num::any(scaled_test::run(in, o).result.raised, num::flags::underflow),
                tiny == num::tininess::before_rounding)
          << num::simd_path_name(path);
      in[1] = 0.01f;
      EXPECT_TRUE(num::any(scaled_test::run(in, o).result.raised, num::flags::underflow)) << num::simd_path_name(path);
    }
  }
}

// The same flag on data off the element grid, so that the kernels' fast
// way (an approximate quotient, every lane far from a boundary) decides it,
// in the modes whose tininess points differ. E4M3 under a given scale of 1,
// tininess after rounding: y = 0.0155 · 2^6 = 0.992 and 0.0148 · 2^6 = 0.947
// lie below 2^-6. Rounding at 4 bits with an unbounded exponent carries to
// 2^-6 from above 0.96875 (nearest) or above 0.9375 (magnitude up), never
// toward zero.
TEST(ScaledPaths, Fp32ScaleUnderflowFlagOffTheGridInEveryMode) {
  struct expectation {
    float value;
    num::rounding mode;
    bool tiny_after;
  };
  const expectation cases[] = {
      {0.0155f, num::rounding::nearest_even, false},     {0.0148f, num::rounding::nearest_even, true},
      {0.0155f, num::rounding::toward_positive, false},  {0.0148f, num::rounding::toward_positive, false},
      {-0.0148f, num::rounding::toward_positive, true},  {-0.0148f, num::rounding::toward_negative, false},
      {0.0155f, num::rounding::toward_zero, true},       {0.0155f, num::rounding::nearest_away, false},
      {0.01f, num::rounding::toward_positive, true},
  };
  for (num::simd_path path : {num::simd_path::scalar, num::simd_path::avx2, num::simd_path::avx512}) {
    if (!num::simd_path_supported(path)) continue;
    for (const expectation& c : cases) {
      for (const num::tininess tiny : {num::tininess::after_rounding, num::tininess::before_rounding}) {
        num::scaled_options o;
        o.format = {num::element_type::e4m3, num::scale_rule::fp32_given, num::whole_tensor_block};
        o.spec.mode = c.mode;
        o.spec.tiny = tiny;
        o.path = path;
        std::vector<float> in(48, 1.03f);  // far from E4M3's grid points and midpoints
        in[20] = c.value;
        const bool expected = tiny == num::tininess::before_rounding || c.tiny_after;
        EXPECT_EQ(num::any(scaled_test::run(in, o).result.raised, num::flags::underflow), expected)
            << num::simd_path_name(path) << " " << c.value << " " << num::rounding_name(c.mode)
            << (tiny == num::tininess::after_rounding ? " after" : " before");
      }
    }
  }
}

// Stochastic rounding's tininess after rounding: 0.0155 under a given scale
// of 1 (E4M3) lies below 2^-6 and rounds up to it at 4 bits with an
// unbounded exponent only where its word says so (fraction 0.872 of a
// quantum), the same word that rounds the element itself. Over many seeds
// the kernels raise underflow exactly where the scalar path does, and both
// outcomes occur.
TEST(ScaledPaths, Fp32ScaleStochasticTininessFollowsTheWord) {
  for (num::simd_path path : scaled_test::mx_kernel_paths()) {
    int raised = 0;
    constexpr int seeds = 40;
    for (std::uint64_t seed = 0; seed < seeds; ++seed) {
      num::scaled_options o;
      o.format = {num::element_type::e4m3, num::scale_rule::fp32_given, num::whole_tensor_block};
      o.spec.mode = num::rounding::stochastic;
      o.seed = seed;
      std::vector<float> in(48, 1.03f);
      in[20] = 0.0155f;
      o.path = num::simd_path::scalar;
      const bool scalar = num::any(scaled_test::run(in, o).result.raised, num::flags::underflow);
      o.path = path;
      EXPECT_EQ(num::any(scaled_test::run(in, o).result.raised, num::flags::underflow), scalar)
          << num::simd_path_name(path) << " seed " << seed;
      raised += scalar ? 1 : 0;
    }
    EXPECT_GT(raised, 0);
    EXPECT_LT(raised, seeds);
  }
}

// Inputs within a few fp32 patterns of every rounding boundary under
// scales with full 24-bit significands: where the fp32-scale kernels'
// approximate quotient may fall on either side of a boundary, they must take
// the exact way. The boundaries are every value of p + 1 significant bits
// (grid points, midpoints, saturation and tininess points among them) from
// half the smallest subnormal to twice the largest element, times D.
TEST(ScaledPaths, Fp32ScaleKernelsMatchScalarNearEveryBoundary) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  struct element {
    num::element_type type;
    int precision, emin, emax;
  };
  for (const element e : {element{num::element_type::e4m3, 4, -6, 8}, element{num::element_type::e5m2, 3, -14, 15}}) {
    for (const float d : {0.7131f, 3.14159e-3f, 1234.567f, 0x1.fffffep-5f, 0x1.000002p+3f}) {
      std::vector<float> in;
      for (int exponent = e.emin - e.precision; exponent <= e.emax + 1; ++exponent) {
        for (int m = 0; m < (1 << e.precision); ++m) {
          const double boundary = std::ldexp(1.0 + m * std::ldexp(1.0, -e.precision), exponent);
          const auto bits = std::bit_cast<std::uint32_t>(static_cast<float>(boundary * d));
          for (int k = -12; k <= 12; ++k) {
            const float x = std::bit_cast<float>(bits + static_cast<std::uint32_t>(k));
            in.push_back(x);
            in.push_back(-x);
          }
        }
      }
      in.resize(in.size() / 16 * 16 + 16, 0.0f);
      for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
        for (num::rounding mode : num::all_roundings) {
          for (const num::tininess tiny : {num::tininess::after_rounding, num::tininess::before_rounding}) {
            num::scaled_options o;
            o.seed = 6;
            o.format = {e.type, num::scale_rule::fp32_given, num::whole_tensor_block};
            o.given_scale = d;
            o.spec.mode = mode;
            o.spec.tiny = tiny;
            o.path = num::simd_path::scalar;
            const auto scalar = scaled_test::run(in, o);
            o.path = path;
            const auto fast = scaled_test::run(in, o);
            const std::string label = std::string(num::element_name(e.type)) + " D " + std::to_string(d) + " " +
                                      std::string(num::rounding_name(mode)) +
                                      (tiny == num::tininess::after_rounding ? " after " : " before ") +
                                      std::string(num::simd_path_name(path));
            EXPECT_EQ(fast.result.path, path) << label;
            expect_same(fast, scalar, label);
          }
        }
      }
    }
  }
}

// The tensor amax scan (FP8 per-tensor and NVFP4's tensor scale) reads
// whole vectors in groups of four, then single vectors, then a partial one,
// and rescans lane by lane only when NaN or inf is present: the largest
// value and a NaN or inf at the start, middle and end of each length that
// ends in each of those parts give the scalar path's outputs, and the
// largest value gives the hand-derived FP8 scale amax / 448.
TEST(ScaledPaths, TensorAmaxScanFindsTheLargestAndTheSpecialAnywhere) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  const float specials[] = {std::nanf(""), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()};
  for (const std::size_t n : {5u, 16u, 63u, 64u, 65u, 127u, 200u}) {
    std::vector<float> base(n);
    for (std::size_t j = 0; j < n; ++j) base[j] = (j % 2 ? -0.01f : 0.01f) * static_cast<float>(j % 7 + 1);
    for (const std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
      std::vector<float> largest = base;
      largest[at] = -300.0f;
      std::vector<std::vector<float>> inputs = {largest};
      for (const float special : specials) {
        inputs.push_back(largest);
        inputs.back()[(at + n / 3) % n] = special;
      }
      for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
        for (const char* format : {"fp8-tensor", "nvfp4"}) {
          for (std::size_t i = 0; i < inputs.size(); ++i) {
            const std::string label = std::string(format) + " n " + std::to_string(n) + " largest at " +
                                      std::to_string(at) + " input " + std::to_string(i);
            const auto scalar = scaled_test::expect_path_matches_scalar(
                path, inputs[i], scaled_test::options_for(format), {1, n}, label);
            if (i == 0 && std::string(format) == "fp8-tensor") {
              ASSERT_EQ(scalar.scales.size(), 1u) << label;
              EXPECT_EQ(scalar.scales[0], std::bit_cast<std::uint32_t>(300.0f / 448.0f)) << label;
            }
          }
        }
      }
    }
  }
}
