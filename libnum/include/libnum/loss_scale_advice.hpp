// Loss-scale recommendation from gradient histograms.
//
// Multiplying the loss by 2^k multiplies every gradient by 2^k: a value in
// binade b moves to binade b + k. From the magnitude histograms of
// tensor_stats this gives, for a target format and nearest rounding, the
// fraction of gradients that would overflow (b + k > emax) or underflow to
// zero (b + k < lowest_binade - 1, i.e. below half the smallest subnormal)
// at each scale, at binade resolution. Take the statistics against binary32
// (nothing rounds, every finite value keeps its binade): then the only
// approximations are the boundary binades, where values within half an ulp
// below 2^(emax+1) count as not overflowing (with keep_fraction == 1 the
// largest |x| is also checked exactly) and exact ties at half the smallest
// subnormal count as not underflowing. Histograms taken against a narrower
// format have lost the magnitudes of their underflow and overflow bins; those
// count as underflowing and overflowing at every scale (bounds, `exact` false).
#pragma once

#include <cstdint>
#include <span>

#include "format.hpp"
#include "tensor_stats.hpp"

namespace num {

/// What to recommend a scale for.
struct loss_scale_query {
  format target = binary16;   ///< format the scaled gradients are computed in
  double keep_fraction = 1.0;  ///< at least this fraction of finite nonzero gradients must not overflow
  int min_scale_log2 = 0;      ///< search range of k for the scale 2^k
  int max_scale_log2 = 24;
};

/// A recommended scale and what it does to the gradients.
struct loss_scale_advice {
  int scale_log2 = 0;               ///< recommended scale 2^scale_log2
  double scale = 1;                 ///< 2^scale_log2
  bool feasible = false;            ///< false: even min_scale_log2 overflows too much (scale_log2 is then the minimum)
  bool exact = true;                ///< false if histograms had underflow/overflow bins (fractions are bounds)
  std::uint64_t values = 0;         ///< finite nonzero gradients considered
  double overflow_fraction = 0;     ///< of `values`, overflowing at the recommended scale
  double underflow_fraction = 0;    ///< of `values`, underflowing to zero at the recommended scale
};

/// Fraction of the finite nonzero values in `grads` that overflow `target`
/// when scaled by 2^scale_log2 (binade resolution, see the file comment).
double overflow_fraction(std::span<const tensor_stats> grads, const format& target, int scale_log2);
/// Fraction that underflows to zero in `target` when scaled by 2^scale_log2.
double underflow_fraction(std::span<const tensor_stats> grads, const format& target, int scale_log2);
/// The largest k in [min_scale_log2, max_scale_log2] whose overflow fraction
/// leaves at least keep_fraction of the values below overflow (and, for keep_fraction == 1, whose largest
/// scaled |x| rounds below overflow), with the fractions at that scale.
loss_scale_advice advise_loss_scale(std::span<const tensor_stats> grads, const loss_scale_query& query);

}  // namespace num
