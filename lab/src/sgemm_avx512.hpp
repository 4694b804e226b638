// fp32 matrix products with AVX-512 kernels (private to lab).
#pragma once

#include "lab/op_context.hpp"

namespace lab::detail {

/// C = op(A) * op(B) + beta * C in fp32 (products and sums rounded to
/// nearest-even in fp32, in Eigen's blocked summation order), using AVX-512
/// FMA. Only call it on a CPU with AVX-512F, AVX-512DQ, AVX2 and FMA.
void sgemm_avx512(const gemm_args& g);

}  // namespace lab::detail
