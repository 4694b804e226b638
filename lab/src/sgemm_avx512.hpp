// fp32 matrix products with AVX-512 kernels (private to lab).
#pragma once

#include "lab/op_context.hpp"

namespace lab::detail {

/// C = op(A) * op(B) + beta * C in fp32 with AVX-512 FMA (every step rounded
/// to nearest-even in fp32). Summation order: for B not transposed, at least
/// 64 columns and a depth up to 1024, one FMA chain per element in order of
/// k; for A not and B transposed with a depth of 256 or more, 16 FMA chains
/// (k mod 16) added pairwise; otherwise Eigen's blocked order. Only call it on
/// a CPU with AVX-512F, AVX-512DQ, AVX2 and FMA.
void sgemm_avx512(const gemm_args& g);

}  // namespace lab::detail
