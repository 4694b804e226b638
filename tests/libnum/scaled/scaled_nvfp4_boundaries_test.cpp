// NVFP4's AVX-512 kernel rounds most blocks from an approximate quotient
// |x| · RN(1/D) and sends a block to its exact comparisons where a lane
// lies within a few fp32 patterns of a rounding boundary
// (nvfp4_quotient_avx512.hpp); the AVX2 kernel (nvfp4_avx2.cpp) sends such
// a block to the scalar path. These blocks put elements on every boundary
// and up to 12 patterns either side of it, under block scales whose D = S·s
// has many significant bits, and compare the kernel with the rational
// reference (codes, scales, counts) and with the scalar path (flags too).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <libnum/array.hpp>
#include <libnum/scaled_array.hpp>
#include <string>
#include <vector>

#include "scaled_block_reference.hpp"
#include "scaled_path_compare.hpp"
#include "scaled_run.hpp"

namespace {

constexpr float tensor_amax = 1000.0f;  // s = RN(1000 / 2688): 24 significant bits

// The fp32 pattern k places from x (x > 0).
float patterns_away(float x, int k) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(static_cast<int>(std::bit_cast<std::uint32_t>(x)) + k));
}

const double s = static_cast<double>(static_cast<float>(tensor_amax / 2688.0));

// Every midpoint and grid point of E2M1 up to 6, and the tininess points
// 0.75 / 0.875 / 1.
const std::vector<double> boundaries = {0.25, 0.5, 0.75, 0.875, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6};
// Saturation's: 7 (nearest) and 8 (toward zero), reached only where the
// block scale saturates at 448.
const std::vector<double> saturating = {6, 7, 8};
// E4M3 values with 1 to 4 significant bits, one subnormal (5 · 2^-9), and
// the largest (a block amax 9 · 448 · s saturates it).
const double block_scales[] = {1.0, 1.125, 0.8125, 3.75, 240.0, 0.009765625, 448.0};

// One block under the E4M3 block scale S: its first element sets S (block
// amax / (6·s) = S · (1 + 2^-6), which rounds to S, or 1.5 · 448 where S
// saturates: its own quotient lies near no boundary), the other 15 lie k
// patterns from boundary[j] · S · s, alternately signed.
void add_block(std::vector<float>& in, double block_scale, const std::vector<double>& at, int k) {
  const auto amax = static_cast<float>((block_scale == 448.0 ? 9.0 : 6.09375) * block_scale * s);
  in.push_back(in.size() % 32 ? -amax : amax);
  for (std::size_t j = 1; j < 16; ++j) {
    const float x = patterns_away(static_cast<float>(at[(j + static_cast<std::size_t>(k + 12)) % at.size()] *
                                                     block_scale * s),
                                  k);
    in.push_back(j % 2 ? -x : x);
  }
}

// Runs nvfp4 on `in` in every mode and tininess on each kernel the CPU
// has, expecting it taken and equal to the reference and (flags) to the
// scalar path.
void expect_kernel_matches(const std::vector<float>& in, const std::string& what) {
  for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
    for (num::rounding mode : num::all_roundings) {
      for (const num::tininess tiny : {num::tininess::after_rounding, num::tininess::before_rounding}) {
        num::scaled_options o = scaled_test::options_for("nvfp4");
        o.spec.mode = mode;
        o.spec.tiny = tiny;
        o.tensor_amax = tensor_amax;
        o.seed = 5;
        const std::string label = what + " " + std::string(num::rounding_name(mode)) +
                                  (tiny == num::tininess::after_rounding ? " after " : " before ") +
                                  std::string(num::simd_path_name(path));
        o.path = path;
        const auto fast = scaled_test::run(in, o);
        ASSERT_EQ(fast.result.path, path) << label;
        const scaled_ref::tensor_out want = scaled_ref::quantize(in, {1, in.size()}, o);
        EXPECT_EQ(fast.scales, want.scales) << label;
        EXPECT_EQ(fast.codes, want.codes) << label;
        EXPECT_EQ(fast.result.counts, want.counts) << label;
        o.path = num::simd_path::scalar;
        EXPECT_EQ(fast.result.raised, scaled_test::run(in, o).result.raised) << label;
      }
    }
  }
}

// Per block scale, one block per offset k = -12 .. 12 (its 15 elements on
// different boundaries): blocks with |k| > 8 (patterns of x, about as many
// of x / D) take the approximate quotient, the others the exact path; 25
// blocks run through the kernel's group of sixteen and its single-block path.
TEST(ScaledNvfp4Boundaries, KernelMatchesReferenceAroundEveryBoundary) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  for (const double block_scale : block_scales) {
    std::vector<float> in;
    for (int k = -12; k <= 12; ++k) add_block(in, block_scale, block_scale == 448.0 ? saturating : boundaries, k);
    expect_kernel_matches(in, "S " + std::to_string(block_scale));
  }
}

// The underflow flag is per call: each tininess point alone, k patterns
// away, in one block (the single-block path) and in sixteen (the group's).
TEST(ScaledNvfp4Boundaries, KernelRaisesUnderflowAsReferenceNearTheTininessPoints) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  for (const double point : {0.75, 0.875, 1.0}) {
    for (const double block_scale : {1.125, 3.75}) {
      for (int k = -12; k <= 12; ++k) {
        for (const int blocks : {1, 16}) {
          std::vector<float> in;
          for (int b = 0; b < blocks; ++b) add_block(in, block_scale, {point}, k);
          expect_kernel_matches(in, "point " + std::to_string(point) + " S " + std::to_string(block_scale) + " k " +
                                        std::to_string(k) + " blocks " + std::to_string(blocks));
        }
      }
    }
  }
}

}  // namespace
