// fp32 GEMM compiled for AVX-512 (this file alone gets the instruction-set
// flags, see lab/CMakeLists.txt). Debian's OpenBLAS 0.3.21 does not know Zen 5
// and falls back to its AVX2 (Haswell) kernels, which run at about half the
// speed of these on the conv shapes of the trainer.
//
// Products whose B is not transposed and wide (conv forward: kernel x im2col
// matrix; conv input gradient: kernel^T x output gradient) run a kernel that
// reads B's rows in place, and long dot products of rows (conv kernel
// gradient: output gradient x im2col matrix^T) one that reads both operands'
// rows in place, so the large im2col matrix is not copied once more into a
// packed layout; everything else goes to Eigen's blocked GEMM.
#include "sgemm_avx512.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <vector>

// GCC 12 reports its own _mm512_undefined_ps() (`__m512 __Y = __Y;`) as
// "may be used uninitialized" wherever Eigen's AVX-512 packets are inlined,
// and as "used uninitialized" in the sanitizer build (-O2 -g with ASan).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
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

// Register block of the wide kernel: rows x (vectors * 16) of C.
constexpr std::size_t block_rows = 8, block_vectors = 3, block_cols = block_vectors * 16;

// op(A) in blocks of block_rows rows, each stored k-major ([k][row]), rows
// past m zero.
std::vector<float> pack_a(const gemm_args& g) {
  const std::size_t blocks = (g.m + block_rows - 1) / block_rows;
  std::vector<float> packed(blocks * block_rows * g.k, 0.0f);
  for (std::size_t i = 0; i < g.m; ++i) {
    float* dst = packed.data() + (i / block_rows) * block_rows * g.k + i % block_rows;
    for (std::size_t k = 0; k < g.k; ++k)
      dst[k * block_rows] = g.trans_a ? g.a[k * g.lda + i] : g.a[i * g.lda + k];
  }
  return packed;
}

// C[rows x cols block] = beta * C + sum over k of A_block[k][i] * B[k][j], each
// element one fused multiply-add per k in order of k (then one more for beta).
void wide_block(const float* a_block, const gemm_args& g, std::size_t row0, std::size_t rows, std::size_t col0,
                std::size_t cols) {
  __mmask16 mask[block_vectors];
  for (std::size_t v = 0; v < block_vectors; ++v) {
    const std::size_t lo = std::min(cols, v * 16), hi = std::min(cols, v * 16 + 16);
    mask[v] = static_cast<__mmask16>((1u << (hi - lo)) - 1u);
  }
  __m512 acc[block_rows][block_vectors];
  for (auto& row : acc)
    for (auto& v : row) v = _mm512_setzero_ps();
  const float* b = g.b + col0;
  for (std::size_t k = 0; k < g.k; ++k, b += g.ldb) {
    __m512 bv[block_vectors];
    for (std::size_t v = 0; v < block_vectors; ++v) bv[v] = _mm512_maskz_loadu_ps(mask[v], b + v * 16);
    const float* a = a_block + k * block_rows;
    for (std::size_t i = 0; i < block_rows; ++i) {
      const __m512 ai = _mm512_set1_ps(a[i]);
      for (std::size_t v = 0; v < block_vectors; ++v) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  const __m512 beta = _mm512_set1_ps(g.beta);
  // A constant trip count keeps acc in registers (indexed only by constants).
  for (std::size_t i = 0; i < block_rows; ++i) {
    if (i >= rows) break;
    float* c = g.c + (row0 + i) * g.ldc + col0;
    for (std::size_t v = 0; v < block_vectors; ++v) {
      __m512 result = acc[i][v];
      if (g.beta != 0.0f) result = _mm512_fmadd_ps(beta, _mm512_maskz_loadu_ps(mask[v], c + v * 16), result);
      _mm512_mask_storeu_ps(c + v * 16, mask[v], result);
    }
  }
}

// True where the wide kernel applies: B not transposed, enough columns to
// fill its blocks, and a depth whose B panel stays in the L2 cache.
bool wide_kernel_fits(const gemm_args& g) { return !g.trans_b && g.n >= 64 && g.k > 0 && g.k <= 1024; }

void wide_gemm(const gemm_args& g) {
  const std::vector<float> packed = pack_a(g);
  // Column blocks outside, row blocks inside: a block of B's columns is read
  // from the cache by every row block.
  for (std::size_t col0 = 0; col0 < g.n; col0 += block_cols)
    for (std::size_t row0 = 0; row0 < g.m; row0 += block_rows)
      wide_block(packed.data() + row0 * g.k, g, row0, std::min(block_rows, g.m - row0), col0,
                 std::min(block_cols, g.n - col0));
}

// Register block of the deep kernel: rows of A x rows of B, one vector of
// 16 partial sums each.
constexpr std::size_t deep_rows_a = 4, deep_rows_b = 6;

// C[m][n] = beta * C + sum over k of A[m][k] * B[n][k] for one block: each
// element's products go into 16 lanes (k mod 16, one FMA chain per lane in
// order of k), and the lanes are then added by _mm512_reduce_add_ps.
void deep_block(const gemm_args& g, std::size_t row0, std::size_t rows, std::size_t col0, std::size_t cols) {
  // Rows past the edge repeat the last one (computed, never stored), so the
  // block keeps its constant shape and its accumulators stay in registers.
  const float* a[deep_rows_a];
  const float* b[deep_rows_b];
  for (std::size_t i = 0; i < deep_rows_a; ++i) a[i] = g.a + (row0 + std::min(i, rows - 1)) * g.lda;
  for (std::size_t j = 0; j < deep_rows_b; ++j) b[j] = g.b + (col0 + std::min(j, cols - 1)) * g.ldb;
  __m512 acc[deep_rows_a][deep_rows_b];
  for (auto& row : acc)
    for (auto& v : row) v = _mm512_setzero_ps();
  const auto step = [&](std::size_t k, __mmask16 mask) {
    __m512 bv[deep_rows_b];
    for (std::size_t j = 0; j < deep_rows_b; ++j) bv[j] = _mm512_maskz_loadu_ps(mask, b[j] + k);
    for (std::size_t i = 0; i < deep_rows_a; ++i) {
      const __m512 av = _mm512_maskz_loadu_ps(mask, a[i] + k);
      for (std::size_t j = 0; j < deep_rows_b; ++j) acc[i][j] = _mm512_fmadd_ps(av, bv[j], acc[i][j]);
    }
  };
  std::size_t k = 0;
  for (; k + 16 <= g.k; k += 16) step(k, __mmask16{0xffff});
  if (k < g.k) step(k, static_cast<__mmask16>((1u << (g.k - k)) - 1u));
  // Constant indices only, so acc stays in registers.
  float sums[deep_rows_a][deep_rows_b];
  for (std::size_t i = 0; i < deep_rows_a; ++i)
    for (std::size_t j = 0; j < deep_rows_b; ++j) sums[i][j] = _mm512_reduce_add_ps(acc[i][j]);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      float& c = g.c[(row0 + i) * g.ldc + col0 + j];
      c = g.beta == 0.0f ? sums[i][j] : std::fma(g.beta, c, sums[i][j]);
    }
}

// True where the deep kernel applies: A as stored, B transposed (both with
// k contiguous) and a long sum (the conv kernel gradient over image pixels).
bool deep_kernel_fits(const gemm_args& g) { return !g.trans_a && g.trans_b && g.k >= 256; }

void deep_gemm(const gemm_args& g) {
  // B's rows outside (a block of them stays in L1), A's rows inside.
  for (std::size_t col0 = 0; col0 < g.n; col0 += deep_rows_b)
    for (std::size_t row0 = 0; row0 < g.m; row0 += deep_rows_a)
      deep_block(g, row0, std::min(deep_rows_a, g.m - row0), col0, std::min(deep_rows_b, g.n - col0));
}

}  // namespace

void sgemm_avx512(const gemm_args& g) {
  if (g.m == 0 || g.n == 0) return;
  if (wide_kernel_fits(g)) {
    wide_gemm(g);
    return;
  }
  if (deep_kernel_fits(g)) {
    deep_gemm(g);
    return;
  }
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
