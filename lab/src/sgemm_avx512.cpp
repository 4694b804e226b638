// Eigen's blocked GEMM compiled for AVX-512 (this file alone gets the
// instruction-set flags, see lab/CMakeLists.txt). Debian's OpenBLAS 0.3.21
// does not know Zen 5 and falls back to its AVX2 (Haswell) kernels, which run
// at about half the speed of these on the conv shapes of the trainer.
#include "sgemm_avx512.hpp"

// GCC 12 reports its own _mm512_undefined_ps() as "may be used
// uninitialized" wherever Eigen's AVX-512 packets are inlined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <Eigen/Core>

namespace lab::detail {
namespace {

using row_major = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using stride = Eigen::OuterStride<>;
using const_view = Eigen::Map<const row_major, Eigen::Unaligned, stride>;
using view = Eigen::Map<row_major, Eigen::Unaligned, stride>;

// Row-major rows x cols matrix at `p` with row stride `ld`.
const_view matrix(const float* p, std::size_t rows, std::size_t cols, std::size_t ld) {
  return {p, static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols), stride(static_cast<Eigen::Index>(ld))};
}

template <typename A, typename B>
void multiply_into(const A& a, const B& b, float beta, view& c) {
  if (beta == 0.0f) {
    c.noalias() = a * b;  // like BLAS, C is not read when beta is 0
    return;
  }
  if (beta != 1.0f) c *= beta;
  c.noalias() += a * b;
}

}  // namespace

void sgemm_avx512(const gemm_args& g) {
  if (g.m == 0 || g.n == 0) return;
  view c(g.c, static_cast<Eigen::Index>(g.m), static_cast<Eigen::Index>(g.n), stride(static_cast<Eigen::Index>(g.ldc)));
  const auto a = g.trans_a ? matrix(g.a, g.k, g.m, g.lda) : matrix(g.a, g.m, g.k, g.lda);
  const auto b = g.trans_b ? matrix(g.b, g.n, g.k, g.ldb) : matrix(g.b, g.k, g.n, g.ldb);
  if (g.trans_a && g.trans_b)
    multiply_into(a.transpose(), b.transpose(), g.beta, c);
  else if (g.trans_a)
    multiply_into(a.transpose(), b, g.beta, c);
  else if (g.trans_b)
    multiply_into(a, b.transpose(), g.beta, c);
  else
    multiply_into(a, b, g.beta, c);
}

}  // namespace lab::detail
