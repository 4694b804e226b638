// Element loops of the trainer that need a fused multiply-add per element
// (private to lab). The build targets baseline x86-64, where std::fma is a
// call into libm for every element; each loop here also has a clone
// compiled for AVX2 + FMA (an inlined, vectorised vfmadd), taken where
// num::host_cpu() reports both. Either computes the same correctly rounded
// fusedMultiplyAdd (IEEE 754-2019 §5.4.1) in fp32, so the results are
// bit-identical whichever runs.
#pragma once

#include <cstddef>
#include <span>

namespace lab::detail {

/// weight[i] <- fma(scale, direction[i], weight[i] * keep) in fp32, each
/// operation rounded to nearest even: apply_step_fp32's arithmetic.
void fused_step(std::span<float> weight, std::span<const float> direction, float scale, float keep);

/// out[i] <- fma(s, b[i], a[i]) in fp32 (round to nearest even): PyTorch's
/// a.add(b, alpha=s). `out` may alias `a` or `b`; all have out's size.
void fused_add_scaled(std::span<const float> a, float s, std::span<const float> b, std::span<float> out);

/// v[i] <- fma(value * t[i], t[i], v[i]) in fp32, the product value * t[i]
/// rounded first: PyTorch 1.13's v.addcmul_(t, t, value) on the CPU (Adam's
/// second moment). `t` has v's size.
void fused_addcmul_square(std::span<float> v, float value, std::span<const float> t);

/// The largest finite |x| of a rows x cols matrix with row stride ld, 0 for
/// none (every element NaN or infinite): the amax every libnum scale rule
/// uses. Exact (compared as the bits of |x|).
float finite_amax(const float* x, std::size_t rows, std::size_t cols, std::size_t ld);

}  // namespace lab::detail
