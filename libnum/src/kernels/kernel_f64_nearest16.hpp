// Internal: fp64 inputs to fp16 or bf16 nearest-even
// (hardware_shortcut::f64_nearest_16bit), shared by the AVX2 and AVX-512
// paths (included inside their target regions, after kernel_lanes.hpp).
//
// Two steps: the inputs are rounded to odd into fp32 (truncated, the last
// bit set where that was inexact), a stretch at a time into a buffer that
// stays in L1, and the path's fp32 nearest-even loop converts the buffer.
// Rounding to odd keeps 24 significant bits, at least two more than fp16 or
// bf16 keep at any exponent (their subnormals included: fp32 keeps 16 more
// bits than bf16 below 2^-126), so the second rounding gives what one
// rounding of the fp64 value gives (Boldo and Melquiond, "Emulation of FMA
// and correctly rounded sums: proved algorithms using rounding to odd", IEEE
// Trans. Computers 57(4), 2008). Finite values of 2^128 and above truncate
// to fp32's largest, which both targets overflow from as they would from the
// value; infinities stay infinite and NaNs keep the top payload bits, quieted
// (all a 16-bit target keeps).
#pragma once

#include <cstddef>

namespace num::kernels {
namespace {

/// Elements per stretch: 2 KiB of fp32, so the buffer stays in L1.
constexpr std::size_t f64_nearest_stretch = 512;

/// The chunk c of an f64_nearest_16bit plan: to_odd(in, odd, k) writes the
/// k (at most f64_nearest_stretch) fp32 values of in rounded to odd into
/// odd (it may write odd up to the next multiple of 8; a zero may come out
/// as 2^-149 of its sign, which both targets round to that zero), and
/// fp32_nearest(f32_plan, chunk) is the path's fp32 loop for the same target
/// (returning whether a result is NaN or infinite, when the plan asks).
template <class ToOdd, class Fp32Nearest>
NUMLAB_INLINE bool f64_nearest_16bit_stretches(const kernel_plan& plan, const chunk& c, ToOdd to_odd,
                                               Fp32Nearest fp32_nearest) {
  alignas(64) float odd[f64_nearest_stretch];
  const auto* in = static_cast<const double*>(c.in);
  auto* out = static_cast<unsigned char*>(c.out);
  const std::size_t out_size = plan.op == operation::round_f64 ? 4 : 2;
  kernel_plan f32_plan = plan;
  f32_plan.op = plan.op == operation::round_f64 ? operation::round_f32 : operation::encode_f32;
  bool non_finite = false;
  for (std::size_t begin = 0; begin < c.n; begin += f64_nearest_stretch) {
    const std::size_t k = c.n - begin < f64_nearest_stretch ? c.n - begin : f64_nearest_stretch;
    to_odd(in + begin, odd, k);
    non_finite = fp32_nearest(f32_plan, chunk{odd, out + begin * out_size, k, 0}) || non_finite;
  }
  return non_finite;
}

}  // namespace
}  // namespace num::kernels
