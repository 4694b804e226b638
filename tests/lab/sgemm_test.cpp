// lab::sgemm (the fp32 GEMM of dense and conv when no engine is installed)
// against products summed in double, for every transpose combination, edge
// sizes of the register blocks, row strides wider than the rows, and beta
// 0, 1 and neither; also that beta 0 never reads C.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "lab/op_context.hpp"
#include "lab/rng.hpp"

namespace lab {
namespace {

struct gemm_case {
  bool trans_a, trans_b;
  std::size_t m, n, k;
  float beta;
};

class Sgemm : public ::testing::TestWithParam<gemm_case> {};

TEST_P(Sgemm, MatchesDoubleReference) {
  const auto p = GetParam();
  const std::size_t pad = 3;  // row strides wider than the rows
  const std::size_t a_rows = p.trans_a ? p.k : p.m, a_cols = p.trans_a ? p.m : p.k;
  const std::size_t b_rows = p.trans_b ? p.n : p.k, b_cols = p.trans_b ? p.k : p.n;
  const std::size_t lda = a_cols + pad, ldb = b_cols + pad, ldc = p.n + pad;
  rng gen(7, p.m * 1000 + p.n);
  std::vector<float> a(a_rows * lda), b(b_rows * ldb), c(p.m * ldc);
  for (auto& v : a) v = gen.uniform(-1.0f, 1.0f);
  for (auto& v : b) v = gen.uniform(-1.0f, 1.0f);
  for (auto& v : c) v = p.beta == 0.0f ? std::numeric_limits<float>::quiet_NaN() : gen.uniform(-1.0f, 1.0f);
  const std::vector<float> c_before = c;
  sgemm({p.trans_a, p.trans_b, p.m, p.n, p.k, a.data(), lda, b.data(), ldb, p.beta, c.data(), ldc});
  for (std::size_t i = 0; i < p.m; ++i) {
    for (std::size_t j = 0; j < p.n; ++j) {
      double sum = 0.0, magnitude = 0.0;
      for (std::size_t q = 0; q < p.k; ++q) {
        const double x = p.trans_a ? a[q * lda + i] : a[i * lda + q];
        const double y = p.trans_b ? b[j * ldb + q] : b[q * ldb + j];
        sum += x * y;
        magnitude += std::abs(x * y);
      }
      if (p.beta != 0.0f) {
        sum += static_cast<double>(p.beta) * c_before[i * ldc + j];
        magnitude += std::abs(static_cast<double>(p.beta) * c_before[i * ldc + j]);
      }
      // fp32 sums of k + 1 terms: at most (k + 1) * 2^-24 of the magnitudes.
      const double tolerance = static_cast<double>(p.k + 2) * std::ldexp(magnitude, -24);
      ASSERT_NEAR(c[i * ldc + j], sum, tolerance) << "at " << i << "," << j;
    }
    // The padding between rows of C is never written.
    for (std::size_t j = p.n; j < ldc; ++j)
      if (p.beta != 0.0f) ASSERT_EQ(c[i * ldc + j], c_before[i * ldc + j]);
      else ASSERT_TRUE(std::isnan(c[i * ldc + j]));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Sgemm,
    ::testing::Values(
        // conv forward and input-gradient shapes (B not transposed, wide)
        gemm_case{false, false, 16, 1024, 144, 0.0f}, gemm_case{true, false, 144, 256, 32, 0.0f},
        // register-block edges: m not a multiple of 8, n not of 48
        gemm_case{false, false, 13, 100, 27, 0.0f}, gemm_case{true, false, 7, 64, 5, 1.0f},
        gemm_case{false, false, 9, 97, 300, 0.5f}, gemm_case{true, false, 1, 65, 1, 0.0f},
        // conv kernel gradient and dense shapes (B transposed, or narrow)
        gemm_case{false, true, 32, 288, 784, 1.0f}, gemm_case{false, true, 32, 10, 500, 0.0f},
        gemm_case{false, true, 7, 13, 300, 0.5f}, gemm_case{false, true, 5, 9, 256, 0.0f},
        gemm_case{true, false, 10, 40, 32, 1.0f}, gemm_case{true, true, 5, 6, 7, 0.0f},
        // deeper than the wide kernel takes
        gemm_case{false, false, 4, 80, 1500, 0.0f}));

}  // namespace
}  // namespace lab
