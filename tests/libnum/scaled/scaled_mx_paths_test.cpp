// The MX block kernels (AVX2 and AVX-512, each where the CPU has it)
// against the scalar path: identical element codes and bytes, scales,
// counts and flags for every element format, scale rule and rounding mode,
// both layouts, on data that exercises their fallbacks (NaN/inf, fp32
// subnormals, zero blocks, blocks whose scale leaves E8M0, flushed tiny
// values) beside ordinary blocks, in whole, partial and short rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <libnum/array.hpp>
#include <limits>
#include <string>
#include <vector>

#include "scaled_path_compare.hpp"
#include "scaled_run.hpp"
#include "scaled_test_data.hpp"

namespace {

using scaled_test::expect_path_matches_scalar;
using scaled_test::mx_kernel_paths;

#define SKIP_WITHOUT_MX_KERNEL() \
  if (mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU"

std::string label_of(const char* name, num::rounding mode, num::tensor_shape shape) {
  return std::string(name) + " " + std::string(num::rounding_name(mode)) + " " + std::to_string(shape.rows) + "x" +
         std::to_string(shape.cols);
}

bool is_fp4(const std::string& name) {
  return name.find("fp4") != std::string::npos || name.find("e2m1") != std::string::npos;
}

TEST(ScaledMxPaths, KernelMatchesScalarInEveryModeAndFormat) {
  SKIP_WITHOUT_MX_KERNEL();
  const std::vector<float> in = scaled_test::path_data(400, 5);
  for (const num::simd_path path : mx_kernel_paths()) {
    for (const char* name : {"mxfp8", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4", "e4m3/mx-rceil",
                             "e2m1/mx-rceil", "e5m2/mx-even", "e2m3/mx-even", "e3m2/mx-rceil"}) {
      for (num::rounding mode : num::all_roundings) {
        for (int r : {32, 3}) {
          if (r != 32 && mode != num::rounding::stochastic) continue;
          for (const num::tininess tiny : {num::tininess::after_rounding, num::tininess::before_rounding}) {
            num::scaled_options o = scaled_test::options_for(name);
            o.spec.mode = mode;
            o.spec.random_bits = r;
            o.spec.tiny = tiny;
            o.seed = 9;
            o.first_index = 3;
            expect_path_matches_scalar(path, in, o, {1, in.size()},
                                       label_of(name, mode, {1, in.size()}) + " r=" + std::to_string(r) +
                                           (tiny == num::tininess::after_rounding ? " after" : " before"));
          }
        }
      }
    }
  }
}

// Stochastic rounding of elements far below their block's largest, where
// the kernel's cut s reaches 31, 32 and more bits: MXFP8 (E4M3, p = 4)
// blocks of amax 1 have X = 2^-8, so an element in [2^(-26 + k), 2^(-25 +
// k)) lies 12 - k binades below the element's 2^emin · X and cuts s = 32 -
// k bits (s = 20 + binades below). There the rounding up that the word
// decides happens with a probability of about m / 2^s (2^-8 at s = 32):
// 2048 blocks of 31 such elements, one binade a block, give some in every
// binade, each compared with the scalar path for r = 32 and r = 9.
TEST(ScaledMxPaths, StochasticKernelMatchesScalarWhereTheCutReachesThirtyTwoBits) {
  SKIP_WITHOUT_MX_KERNEL();
  std::vector<float> in;
  for (std::size_t b = 0; b < 2048; ++b) {
    in.push_back(b % 2 ? -1.0f : 1.0f);
    for (std::size_t j = 1; j < 32; ++j) {
      const int k = static_cast<int>(b % 4) - 1;  // s = 33, 32, 31, 30 (one cut per block: the kernel
                                                  // takes its fast way where no lane cuts more than 31)
      const float significand = 1.0f + static_cast<float>((b * 31 + j * 7) % 128) / 128.0f;
      in.push_back((j % 3 ? 1.0f : -1.0f) * std::ldexp(significand, -26 + k));
    }
  }
  for (const num::simd_path path : mx_kernel_paths()) {
    for (const int r : {32, 9}) {
      num::scaled_options o = scaled_test::options_for("mxfp8");
      o.spec.mode = num::rounding::stochastic;
      o.spec.random_bits = r;
      o.seed = 21;
      const auto scalar = expect_path_matches_scalar(path, in, o, {1, in.size()},
                                                     label_of("mxfp8", o.spec.mode, {1, in.size()}) +
                                                         " far below the block's amax, r=" + std::to_string(r));
      // The data does what it is for: some tiny elements rounded up.
      std::size_t nonzero_tiny = 0;
      for (std::size_t i = 0; i < in.size(); ++i) nonzero_tiny += (i % 32 != 0 && (scalar.codes[i] & 0x7F) != 0);
      EXPECT_GT(nonzero_tiny, 0u) << "r=" << r;
    }
  }
}

// The kernel runs along rows: rows of 100 columns (three whole blocks and a
// partial one, each row's random words starting at a position that is not a
// multiple of 4) and one long row (the random window refilled many times).
TEST(ScaledMxPaths, KernelMatchesScalarAlongRowsWithPartialBlocks) {
  SKIP_WITHOUT_MX_KERNEL();
  const std::vector<float> in = scaled_test::path_data(100, 11);
  const num::tensor_shape shapes[] = {{32, 100}, {1, 3200}, {100, 32}, {64, 50}};
  for (const num::simd_path path : mx_kernel_paths()) {
    for (const num::tensor_shape shape : shapes) {
      for (const char* name : {"mxfp8", "mxfp4", "mxfp6-e3m2"}) {
        for (num::rounding mode : num::all_roundings) {
          for (const num::element_layout layout :
               {num::element_layout::byte_per_element, num::element_layout::packed}) {
            if (layout == num::element_layout::packed && !is_fp4(name)) continue;
            num::scaled_options o = scaled_test::options_for(name);
            o.spec.mode = mode;
            o.seed = 21;
            o.stream = 5;
            o.first_index = 1;
            o.layout = layout;
            expect_path_matches_scalar(
                path, in, o, shape,
                label_of(name, mode, shape) + (layout == num::element_layout::packed ? " packed" : ""));
          }
        }
      }
    }
  }
}

// The AVX-512 kernel takes a row's whole blocks 16 to a group (one pass for
// their scales, one for their elements), both kernels draw their random
// words 16 blocks at a time: rows whose whole blocks end a group exactly,
// just before or after it (1, 8, 15, 16, 17, 33 blocks), with and without a
// partial last block, a NaN (a block left to the scalar path) at a group's
// first and last position and the next group's first, and a zero block.
TEST(ScaledMxPaths, GroupsOfSixteenBlocksMatchScalarAtEveryBoundary) {
  SKIP_WITHOUT_MX_KERNEL();
  for (const num::simd_path path : mx_kernel_paths()) {
    for (const std::size_t blocks : {1, 8, 15, 16, 17, 33}) {
      for (const std::size_t tail : {0, 6}) {
        const num::tensor_shape shape{3, blocks * 32 + tail};
        std::vector<float> in = scaled_test::path_data((shape.size() + 31) / 32, 13);
        in.resize(shape.size());
        for (std::size_t r = 0; r < shape.rows; ++r) {
          for (const std::size_t b : {0, 15, 16}) {
            if (b < blocks) in[r * shape.cols + 32 * b + 4 + r] = std::numeric_limits<float>::quiet_NaN();
          }
        }
        std::fill_n(in.begin() + static_cast<std::ptrdiff_t>(shape.cols + 32 * (blocks - 1)), 32, 0.0f);
        for (const char* name : {"mxfp8", "mxfp4", "e3m2/mx-rceil"}) {
          for (num::rounding mode :
               {num::rounding::nearest_even, num::rounding::toward_zero, num::rounding::stochastic}) {
            num::scaled_options o = scaled_test::options_for(name);
            o.spec.mode = mode;
            o.seed = 4;
            o.first_index = 2;
            expect_path_matches_scalar(path, in, o, shape, label_of(name, mode, shape));
          }
        }
      }
    }
  }
}

// Rows of at most 16 columns go several to one pass of the MX kernel (each
// row its own block, its own scale): widths that fill the 32 lanes exactly
// (1, 2, 16) and not (5, 9, 10), row counts that leave a last, smaller group,
// on data with every fallback (NaN/inf, fp32 subnormals, scales outside
// E8M0), so that some rows of a pass go to the scalar path and the others
// must stay untouched by it. Packed FP4 at the even widths.
TEST(ScaledMxPaths, KernelMatchesScalarOnRowsShorterThanHalfABlock) {
  SKIP_WITHOUT_MX_KERNEL();
  const std::vector<float> data = scaled_test::path_data(120, 13);
  const num::tensor_shape shapes[] = {{1000, 1}, {301, 2}, {203, 5}, {211, 9}, {97, 10}, {37, 16}};
  for (const num::simd_path path : mx_kernel_paths()) {
    for (const num::tensor_shape shape : shapes) {
      const std::vector<float> in(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(shape.size()));
      for (const char* name : {"mxfp8", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4", "mxint8", "e4m3/mx-rceil",
                               "e2m1/mx-rceil", "e5m2/mx-even", "e2m3/mx-even"}) {
        for (num::rounding mode : num::all_roundings) {
          for (const num::element_layout layout :
               {num::element_layout::byte_per_element, num::element_layout::packed}) {
            if (layout == num::element_layout::packed && (!is_fp4(name) || shape.cols % 2 != 0)) continue;
            num::scaled_options o = scaled_test::options_for(name);
            o.spec.mode = mode;
            o.spec.random_bits = 5;
            o.seed = 4;
            o.stream = 2;
            o.first_index = 3;
            o.layout = layout;
            expect_path_matches_scalar(
                path, in, o, shape,
                label_of(name, mode, shape) + (layout == num::element_layout::packed ? " packed" : ""));
          }
        }
      }
    }
  }
}

// Operands as the trainer's recipes quantize them (tiny_block_data), in rows
// as its GEMMs cut them: shorter than one block (k = 9, 25), a partial block
// at each row's end (784 = 24.5 blocks of 32), whole blocks only. The
// kernels take every block here, partial ones included.
TEST(ScaledMxPaths, KernelMatchesScalarOnBlocksOfTinyElementsInAnyRowWidth) {
  SKIP_WITHOUT_MX_KERNEL();
  const num::tensor_shape shapes[] = {{70, 9}, {41, 5}, {33, 16}, {24, 25}, {3, 784}, {10, 64}};
  for (const num::simd_path path : mx_kernel_paths()) {
    for (const num::tensor_shape shape : shapes) {
      for (const char* name : {"mxfp8", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp4", "mxint8", "e4m3/mx-rceil"}) {
        const std::vector<float> in = scaled_test::tiny_block_data(shape.size(), 32, 5);
        for (num::rounding mode : num::all_roundings) {
          num::scaled_options o = scaled_test::options_for(name);
          o.spec.mode = mode;
          o.seed = 3;
          o.first_index = 7;
          const std::string label = label_of(name, mode, shape);
          const auto scalar = expect_path_matches_scalar(path, in, o, shape, label);
          // The data does what it is for (rounding to odd never gives zero).
          if (mode != num::rounding::to_odd) {
            EXPECT_GT(scalar.result.counts.block_underflow, 0u) << label;
          }
        }
      }
    }
  }
}

// MX INT8 in every rounding mode: every scale rule, with and without -2,
// against the scalar path.
TEST(ScaledMxPaths, Int8MatchesScalar) {
  SKIP_WITHOUT_MX_KERNEL();
  std::vector<float> in = scaled_test::path_data(400, 13);
  // One hand-made block (amax 4).
  for (std::size_t j = 0; j < 32; ++j) in[j] = j == 0 ? -4.0f : 0.75f * static_cast<float>(j % 7) - 2.0f;
  // A whole block whose RCEIL and EVEN scales leave E8M0 (FLT_MAX over INT8's 127/64).
  in[40] = std::numeric_limits<float>::max();
  for (const num::simd_path path : mx_kernel_paths()) {
    for (const char* name : {"mxint8", "int8/mx-rceil", "int8/mx-even"}) {
      for (const bool symmetric : {false, true}) {
        for (num::rounding mode : num::all_roundings) {
          for (int r : {32, 3}) {
            if (r != 32 && mode != num::rounding::stochastic) continue;
            num::scaled_options o = scaled_test::options_for(name);
            o.int8_symmetric = symmetric;
            o.spec.mode = mode;
            o.spec.random_bits = r;
            o.seed = 21;
            const std::string label = label_of(name, mode, {1, in.size()}) + (symmetric ? " symmetric" : "") +
                                      " r=" + std::to_string(r);
            expect_path_matches_scalar(path, in, o, {1, in.size()}, label);
            expect_path_matches_scalar(path, in, o, {in.size() / 40, 40}, label + " rows of 40");
          }
        }
      }
    }
    // Hand-derived: -4 in a block of amax 4 is X = 4, -1 · 2^6 = code 0xC0.
    num::scaled_options o = scaled_test::options_for("mxint8");
    o.path = path;
    EXPECT_EQ(scaled_test::run(in, o).codes[0], 0xC0u) << num::simd_path_name(path);
  }
}

// Tininess before and after rounding on the kernels (MXFP8, E4M3, X = 1
// for a block of amax 256): 0.0155 lies below 2^-6 and rounds up to it at 4
// bits with an unbounded exponent (15.872 quanta of 2^-10 to nearest: 16),
// so it is tiny only before rounding; the other elements are exact. 0.0148
// (15.155 quanta) stays below: tiny under both rules.
TEST(ScaledMxPaths, UnderflowFlagFollowsTheTininessRule) {
  for (const num::simd_path path : mx_kernel_paths()) {
    for (const float small : {0.0155f, 0.0148f}) {
      for (const num::tininess tiny : {num::tininess::after_rounding, num::tininess::before_rounding}) {
        std::vector<float> in(32, 1.0f);
        in[0] = 256.0f;
        in[9] = small;
        num::scaled_options o = scaled_test::options_for("mxfp8");
        o.spec.tiny = tiny;
        o.path = path;
        const num::scaled_result r = scaled_test::run(in, o).result;
        EXPECT_EQ(r.path, path);
        EXPECT_EQ(num::any(r.raised, num::flags::underflow), tiny == num::tininess::before_rounding || small < 0.0150f)
            << num::simd_path_name(path) << " " << small;
      }
    }
  }
}

// Packed FP6 runs the kernels band by band (packed_fp6_bands.cpp), against
// the scalar path's element-by-element packing: a row longer than a band
// (runs of its blocks), rows cut across bands, rows whose groups of four
// straddle rows (cols % 4 != 0), in every mode (each element's random word
// follows it into its band). The first group's three bytes are also packed
// by hand from the one-byte-per-element codes.
TEST(ScaledMxPaths, PackedFp6MatchesScalarAcrossBands) {
  SKIP_WITHOUT_MX_KERNEL();
  const num::tensor_shape shapes[] = {{1, 70001}, {2, 33000}, {3000, 24}, {1200, 39}, {7, 6}};
  for (const num::simd_path path : mx_kernel_paths()) {
    for (const num::tensor_shape shape : shapes) {
      const std::vector<float> data = scaled_test::path_data(shape.size() / 32 + 1, 17);
      const std::vector<float> in(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(shape.size()));
      for (const char* name : {"mxfp6-e2m3", "mxfp6-e3m2"}) {
        for (num::rounding mode : num::all_roundings) {
          num::scaled_options o = scaled_test::options_for(name);
          o.spec.mode = mode;
          o.seed = 8;
          o.first_index = 5;
          o.layout = num::element_layout::packed;
          const std::string label = label_of(name, mode, shape) + " packed";
          const auto scalar = expect_path_matches_scalar(path, in, o, shape, label);
          o.layout = num::element_layout::byte_per_element;
          o.path = path;
          const std::vector<std::uint32_t>& c = scaled_test::run(in, o, shape).codes;
          EXPECT_EQ(scalar.elements[0], (c[0] | c[1] << 6) & 0xFF) << label;
          EXPECT_EQ(scalar.elements[1], (c[1] >> 2 | c[2] << 4) & 0xFF) << label;
          EXPECT_EQ(scalar.elements[2], (c[2] >> 4 | c[3] << 2) & 0xFF) << label;
        }
      }
    }
  }
}

// Hand-made blocks, each in a call of its own (flags are per call) and
// again all in one row (a partial last block included): all zeros, all
// negative zeros, signed zeros among values, NaN, ±inf, a huge value beside
// tiny ones (flushed by the block's scale), FLT_MAX (RCEIL's and EVEN's
// scales leave E8M0), an amax exactly at and just past max_elem · 2^k
// (RCEIL's boundary), ties of every element format, values one binade under
// the element's normal range.
std::vector<std::vector<float>> edge_blocks() {
  std::vector<std::vector<float>> blocks;
  auto block = [&](auto value_at) {
    std::vector<float> b(32);
    for (std::size_t j = 0; j < 32; ++j) b[j] = value_at(j);
    blocks.push_back(b);
  };
  block([](std::size_t) { return 0.0f; });
  block([](std::size_t) { return -0.0f; });
  block(
      [](std::size_t j) { return j % 3 == 0 ? -0.0f : (j % 3 == 1 ? 0.0f : std::ldexp(-1.5f, static_cast<int>(j))); });
  block([](std::size_t j) { return j == 17 ? std::numeric_limits<float>::quiet_NaN() : 1.0f; });
  block([](std::size_t j) { return j == 0 ? -std::numeric_limits<float>::infinity() : 2.0f; });
  block([](std::size_t j) { return j == 31 ? std::numeric_limits<float>::infinity() : -0.0f; });
  block([](std::size_t j) { return j == 5 ? 0x1.8p120f : (j % 2 ? -0x1p-20f : 0x1.234p-30f); });
  block([](std::size_t j) { return j == 9 ? -std::numeric_limits<float>::max() : 0x1p100f; });
  block([](std::size_t j) { return j == 0 ? 448.0f : 0.0155f * static_cast<float>(j); });
  block([](std::size_t j) { return j == 0 ? std::nextafter(448.0f, 1e9f) : 0.0100f * static_cast<float>(j); });
  block([](std::size_t j) { return j == 0 ? 6.0f : (j % 2 ? -0.25f : 0.75f) * static_cast<float>(j % 9); });
  block([](std::size_t j) { return std::ldexp(1.0f + static_cast<float>(j) / 16.0f, -static_cast<int>(j % 12)); });
  block([](std::size_t j) { return j == 3 ? 0x1p-127f : 1.0f; });  // an fp32 subnormal: scalar
  return blocks;
}

TEST(ScaledMxPaths, EdgeBlocksMatchScalarAlone) {
  SKIP_WITHOUT_MX_KERNEL();
  const std::vector<std::vector<float>> blocks = edge_blocks();
  for (const num::simd_path path : mx_kernel_paths()) {
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      for (const char* name : {"mxfp8", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp6-e3m2", "mxfp4", "mxint8", "e4m3/mx-rceil",
                               "e2m1/mx-even", "int8/mx-rceil"}) {
        for (num::rounding mode : num::all_roundings) {
          num::scaled_options o = scaled_test::options_for(name);
          o.spec.mode = mode;
          o.seed = 12;
          const std::string label = "edge block " + std::to_string(b) + " " + label_of(name, mode, {1, 32});
          expect_path_matches_scalar(path, blocks[b], o, {1, 32}, label);
          // As a row's partial last block too.
          const std::vector<float> partial(blocks[b].begin(), blocks[b].begin() + 26);
          expect_path_matches_scalar(path, partial, o, {1, 26}, label + " first 26");
        }
      }
    }
  }
}

TEST(ScaledMxPaths, EdgeBlocksMatchScalarInOneRow) {
  SKIP_WITHOUT_MX_KERNEL();
  std::vector<float> in;
  for (const std::vector<float>& b : edge_blocks()) in.insert(in.end(), b.begin(), b.end());
  in.resize(in.size() - 6);  // a partial last block of 26 (even: packed FP4 rows start on bytes)
  for (const num::simd_path path : mx_kernel_paths()) {
    for (const char* name : {"mxfp8", "mxfp6-e2m3", "mxfp4", "e4m3/mx-rceil", "e2m1/mx-even"}) {
      for (num::rounding mode : num::all_roundings) {
        for (const num::element_layout layout : {num::element_layout::byte_per_element, num::element_layout::packed}) {
          if (layout == num::element_layout::packed && !is_fp4(name)) continue;
          num::scaled_options o = scaled_test::options_for(name);
          o.spec.mode = mode;
          o.layout = layout;
          o.seed = 2;
          o.first_index = 5;
          expect_path_matches_scalar(path, in, o, {1, in.size()}, label_of(name, mode, {1, in.size()}));
        }
      }
    }
  }
}

// Hand-derived: an all-zero block takes E8M0 code 0 (X = 2^-127) and keeps
// each zero's sign; a block of 1.0 with one NaN goes to the scalar path,
// which gives it the NaN scale; neither sets a flag beyond invalid.
TEST(ScaledMxPaths, ZeroAndNanBlocksAsDerived) {
  SKIP_WITHOUT_MX_KERNEL();
  const std::vector<std::vector<float>> blocks = edge_blocks();
  for (const num::simd_path path : mx_kernel_paths()) {
    num::scaled_options o = scaled_test::options_for("mxfp8");
    o.path = path;
    const auto negative_zeros = scaled_test::run(blocks[1], o);
    EXPECT_EQ(negative_zeros.codes, std::vector<std::uint32_t>(32, 0x80u));
    EXPECT_EQ(negative_zeros.scales, std::vector<std::uint32_t>{0});
    EXPECT_EQ(negative_zeros.result.raised, num::flags::none);
    EXPECT_EQ(negative_zeros.result.path, path);
    const auto nan = scaled_test::run(blocks[3], o);
    EXPECT_EQ(nan.scales, std::vector<std::uint32_t>{0xFF});
    EXPECT_EQ(nan.result.counts.nan_scale_blocks, 1u);
  }
}

}  // namespace
