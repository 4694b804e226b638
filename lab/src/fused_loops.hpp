// Element loops of the trainer that need a fused multiply-add per element,
// or that baseline x86-64 cannot vectorise (private to lab). The build
// targets baseline x86-64, where std::fma is a call into libm for every
// element; each loop here also has a clone compiled for AVX2 + FMA (an
// inlined, vectorised vfmadd), taken where num::host_cpu() reports both.
// Either computes the same correctly rounded fusedMultiplyAdd (IEEE 754-2019
// §5.4.1) in fp32 and adds its double sums in the same order, so the results
// are bit-identical whichever runs.
#pragma once

#include <cstddef>
#include <cstdint>
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

/// The number of partial sums an update_pass adds its doubles in.
inline constexpr std::size_t update_sum_lanes = 8;

/// What one optimizer write to a weight tensor did, element by element
/// (precision_hook::update's tally). With asked[i] = double(scale) *
/// double(direction[i]) (exact) and after[i] the value written:
///   nonzero_delta  elements with asked != 0
///   unchanged      elements with after == before
///   swamped        both: a delta that left the stored value as it was
///   non_finite     some after[i] is a NaN or an infinity
///   requested      sum of |asked[i]|
///   applied        sum of (double(after[i]) - double(before[i])) * sign(asked[i])
/// The counts are exact. The two sums are in double, in update_sum_lanes
/// partial sums: element i goes to lane i mod 8, each lane adds its
/// elements in index order from +0, and the lanes are added as
/// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)). (Summed in plain
/// element order, as before session 12, the sums could differ in their last
/// bits: about n * 2^-53 relative at most, n the tensor's size.)
struct update_pass {
  std::uint64_t nonzero_delta = 0, unchanged = 0, swamped = 0;
  double requested = 0.0, applied = 0.0;
  bool non_finite = false;
};

/// weight[i] <- after[i], tallied against before[i] (see update_pass): the
/// write of a weight a policy has rounded into its storage format. `before`
/// may be `weight` itself; all spans have weight's size.
update_pass write_rounded_update(std::span<const float> before, std::span<const float> after,
                                 std::span<const float> direction, float scale, std::span<float> weight);

/// weight[i] <- fma(scale, direction[i], before[i]) in fp32 (round to
/// nearest even, apply_step_fp32's write), tallied against before[i] (see
/// update_pass): an fp32 master's write in one pass. `before` may be
/// `weight` itself; all spans have weight's size.
update_pass write_fused_update(std::span<const float> before, std::span<const float> direction, float scale,
                               std::span<float> weight);

}  // namespace lab::detail
