// The scaled kernels under a flushing MXCSR (FTZ, DAZ, both), as -ffast-math
// start-up code or torch.set_flush_denormal(True) leave the calling thread.
// The AVX-512 NVFP4 and fp32-scale kernels divide and multiply in floating
// point, so they step aside (num::mxcsr_flushes_subnormals) and the call
// must give what the scalar path gives under the same MXCSR: codes, scales,
// counts and flags, in every mode, on data with fp32 subnormals and blocks
// whose scale meets them. The MX kernels (AVX-512, AVX2) run: FTZ and DAZ
// change none of their results; the AVX2 one's nearest-even, fp32
// arithmetic under the MXCSR's rounding, steps aside where that is not to
// nearest.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <libnum/array.hpp>
#include <libnum/cpu_features.hpp>
#include <string>
#include <vector>

#include "scaled_run.hpp"
#include "mxcsr_bits.hpp"
#include "scaled_test_data.hpp"

#if defined(__x86_64__) || defined(__i386__)

namespace {

using test_support::mxcsr_bits;

// A tensor of fp32 subnormals only, so that the tensor and block scales
// themselves meet the subnormal range, the place FTZ and DAZ change.
std::vector<float> subnormal_tensor(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::uint32_t>((i * 2654435761u) % 0x7FFFFF + 1);
    v[i] = std::bit_cast<float>(k | (i % 3 == 0 ? 0x80000000u : 0u));
  }
  return v;
}

// Blocks of 32 with one huge value and the rest tiny: each tiny x / X lies
// below 2^-126 (an fp32 subnormal quotient, or one FTZ flushes, where a
// kernel divides in floating point), or just above it.
std::vector<float> huge_beside_tiny(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int block = static_cast<int>(i / 32);
    const float tiny = std::ldexp(1.0f + static_cast<float>(i % 7) / 8.0f, -20 - static_cast<int>(i % 23));
    v[i] = i % 32 == 3 ? std::ldexp(1.5f, 90 + block % 37) : (i % 2 ? -tiny : tiny);
  }
  return v;
}

void expect_scalar_results_under_flushing(const std::vector<float>& in, const char* data) {
  const num::tensor_shape shape{15, 128};
  ASSERT_EQ(in.size(), shape.rows * shape.cols);
  for (const char* name : {"mxfp8", "mxfp4", "nvfp4", "nvfp4-2d", "fp8-tensor", "fp8-block", "fp8-block-128x128"}) {
    for (const scaled_test::mode_case m : scaled_test::reference_modes) {
      for (unsigned bits : {test_support::mxcsr_flush_to_zero, test_support::mxcsr_denormals_are_zero,
                            test_support::mxcsr_flush_to_zero | test_support::mxcsr_denormals_are_zero}) {
        num::scaled_options o = scaled_test::options_for(name);
        o.spec.mode = m.mode;
        o.spec.random_bits = m.r;
        o.seed = 5;
        const mxcsr_bits flushing(bits);
        o.path = num::simd_path::scalar;
        const auto scalar = scaled_test::run(in, o, shape);
        o.path = num::simd_path::automatic;
        const auto dispatched = scaled_test::run(in, o, shape);
        const std::string label = std::string(name) + " " + std::string(num::rounding_name(m.mode)) +
                                  " r=" + std::to_string(m.r) + " MXCSR bits " + std::to_string(bits) + " " + data;
        EXPECT_EQ(dispatched.codes, scalar.codes) << label;
        EXPECT_EQ(dispatched.scales, scalar.scales) << label;
        EXPECT_EQ(dispatched.result.counts, scalar.result.counts) << label;
        EXPECT_EQ(dispatched.result.raised, scalar.result.raised) << label;
      }
    }
  }
}

TEST(ScaledMxcsr, FlushingMxcsrGivesTheScalarPathsResults) {
  if (!num::simd_path_supported(num::simd_path::avx2)) GTEST_SKIP() << "no AVX2 on this CPU";
  expect_scalar_results_under_flushing(scaled_test::path_data(60, 17), "mixed blocks");
  expect_scalar_results_under_flushing(subnormal_tensor(15 * 128), "subnormals only");
  expect_scalar_results_under_flushing(huge_beside_tiny(15 * 128), "huge beside tiny");
}

// Each rounding control of the MXCSR: the MX kernels give the scalar
// path's results under it, the AVX2 one under nearest-even by leaving the
// call to the scalar path where the control is not to nearest.
TEST(ScaledMxcsr, MxKernelsUnderEveryRoundingControlGiveTheScalarPathsResults) {
  const std::vector<float> in = scaled_test::path_data(60, 19);
  for (const num::simd_path path : {num::simd_path::avx2, num::simd_path::avx512}) {
    if (!num::simd_path_supported(path)) continue;
    for (const unsigned control : {0u, test_support::mxcsr_round_down, test_support::mxcsr_round_up,
                                   test_support::mxcsr_round_toward_zero}) {
      for (const char* name : {"mxfp8", "mxfp4", "mxint8", "e3m2/mx-even"}) {
        for (const num::rounding mode : {num::rounding::nearest_even, num::rounding::toward_positive}) {
          if (std::string(name) == "mxint8" && mode != num::rounding::nearest_even) continue;
          num::scaled_options o = scaled_test::options_for(name);
          o.spec.mode = mode;
          const mxcsr_bits rounding(control);
          o.path = num::simd_path::scalar;
          const auto scalar = scaled_test::run(in, o, {15, 128});
          o.path = path;
          const auto fast = scaled_test::run(in, o, {15, 128});
          const std::string label = std::string(name) + " " + std::string(num::rounding_name(mode)) + " " +
                                    std::string(num::simd_path_name(path)) + " MXCSR control " +
                                    std::to_string(control);
          const bool steps_aside = path == num::simd_path::avx2 && control != 0 && mode == num::rounding::nearest_even;
          EXPECT_EQ(fast.result.path, steps_aside ? num::simd_path::scalar : path) << label;
          EXPECT_EQ(fast.codes, scalar.codes) << label;
          EXPECT_EQ(fast.scales, scalar.scales) << label;
          EXPECT_EQ(fast.result.counts, scalar.result.counts) << label;
          EXPECT_EQ(fast.result.raised, scalar.result.raised) << label;
        }
      }
    }
  }
}

}  // namespace
#endif
