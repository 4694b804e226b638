// reduction_rows (scaled_gemm.hpp): a GEMM operand laid out rows x k for
// quantization, where the op stored it k-major a transposition (OpenBLAS's
// somatcopy). Checked element by element against the index arithmetic of
// op(A) and op(B), on bit patterns that include quiet NaNs with payloads
// (somatcopy quiets a signalling one, which quantize treats alike), for every
// shape up to 19 x 19 and a larger one.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "lab/scaled_gemm.hpp"

namespace lab {
namespace {

// Random bit patterns (every fifth a quiet NaN with a payload).
std::vector<float> patterns(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t word = i % 5 == 0 ? (0x7FC00001u | (gen() & 0x803FFFFFu)) : gen();
    if ((word & 0x7F800000u) == 0x7F800000u && (word & 0x007FFFFFu) != 0) word |= 0x00400000u;  // quiet
    v[i] = std::bit_cast<float>(word);
  }
  return v;
}

void check(std::size_t outer, std::size_t k) {
  SCOPED_TRACE(std::to_string(outer) + " x " + std::to_string(k));
  // A stored k x m (trans_a) and B stored k x n (not trans_b): both k-major,
  // both transposed into rows x k.
  const std::size_t ld = outer + 3;
  const std::vector<float> stored = patterns(k * ld, static_cast<std::uint32_t>(outer * 131 + k));
  gemm_args g;
  g.k = k;
  g.m = g.n = outer;
  g.trans_a = true;
  g.a = stored.data();
  g.lda = ld;
  g.trans_b = false;
  g.b = stored.data();
  g.ldb = ld;
  for (const bool is_a : {true, false}) {
    std::vector<float> rows;
    reduction_rows(g, is_a, rows);
    ASSERT_EQ(rows.size(), outer * k);
    for (std::size_t i = 0; i < outer; ++i)
      for (std::size_t p = 0; p < k; ++p)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(rows[i * k + p]), std::bit_cast<std::uint32_t>(stored[p * ld + i]))
            << (is_a ? "A" : "B") << " row " << i << " column " << p;
  }
}

TEST(ReductionRows, KMajorOperandsAreTransposedBitForBit) {
  for (std::size_t outer = 1; outer <= 19; ++outer)
    for (std::size_t k = 1; k <= 19; ++k) check(outer, k);
  check(150, 77);
}

}  // namespace
}  // namespace lab
