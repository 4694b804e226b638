// The comparisons of a SIMD path of quantize() with its scalar path, for
// the kernel tests (scaled_paths_test.cpp, scaled_mx_paths_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <libnum/array.hpp>
#include <string>
#include <vector>

#include "scaled_run.hpp"

namespace scaled_test {

/// The fast path's outputs equal the scalar path's: codes, scales, counts, flags.
inline void expect_same(const quantized& fast, const quantized& scalar, const std::string& label) {
  EXPECT_EQ(fast.codes, scalar.codes) << label;
  EXPECT_EQ(fast.scales, scalar.scales) << label;
  EXPECT_EQ(fast.result.counts, scalar.result.counts) << label;
  EXPECT_EQ(fast.result.raised, scalar.result.raised) << label;
}

/// Runs `o` on the scalar path and on `path`, expects the same outputs (the
/// element bytes too) and `path` taken, and returns the scalar run.
inline quantized expect_path_matches_scalar(num::simd_path path, const std::vector<float>& in, num::scaled_options o,
                                            num::tensor_shape shape, const std::string& label) {
  o.path = num::simd_path::scalar;
  const quantized scalar = run(in, o, shape);
  o.path = path;
  const quantized fast = run(in, o, shape);
  const std::string where = label + " on " + std::string(num::simd_path_name(path));
  EXPECT_EQ(fast.result.path, path) << where;
  expect_same(fast, scalar, where);
  EXPECT_EQ(fast.elements, scalar.elements) << where;
  return scalar;
}

/// The paths with an MX or NVFP4 block kernel (AVX2, AVX-512) this CPU can run.
inline std::vector<num::simd_path> mx_kernel_paths() {
  std::vector<num::simd_path> paths;
  for (num::simd_path p : {num::simd_path::avx2, num::simd_path::avx512}) {
    if (num::simd_path_supported(p)) paths.push_back(p);
  }
  return paths;
}

}  // namespace scaled_test
