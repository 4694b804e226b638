// The fast binary16 nearest-even partial-sum kernel behind
// gemm_low_accumulation (AVX-512F; callers check fp16_kernel_supported()).
#pragma once

#include <cstddef>

namespace lab::detail {

/// A block of output rows: A(r, p) = a[r * a_row + p * a_col] for r < rows,
/// row p of op(B) at b + p * ldb (n contiguous values).
struct fp16_block {
  const float* a;
  std::size_t a_row, a_col;
  const float* b;
  std::size_t ldb;
  std::size_t rows, n;
};

/// Whether this CPU runs the AVX-512 kernels.
bool fp16_kernel_supported();
/// partial[r*n + j] <- fp16_rne(partial[r*n + j] + A(r,p) * B(p,j)) for p in
/// [p_begin, p_end), each sum rounded once from its exact value.
void fp16_accumulate(const fp16_block& blk, std::size_t p_begin, std::size_t p_end, float* partial);
/// partial[i] <- fp16_rne(partial[i] + addend[i]), rounded once.
void fp16_add(float* partial, const float* addend, std::size_t len);

}  // namespace lab::detail
