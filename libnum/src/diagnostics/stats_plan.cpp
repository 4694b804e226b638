// Threshold tables of a statistics pass, derived from the target format.
//
// Rounding a magnitude is monotone, so for each grid value g of the target
// there is a smallest fp32 magnitude that rounds to g or above. It depends on
// the grid value just below g (g - q, where q is the spacing below g), on the
// midpoint g - q/2, and on how the mode treats the interval between them:
//   nearest-even  midpoint and up if g's significand (in units of q) is even, else above it
//   nearest-away  midpoint and up
//   toward zero   g and up
//   away          anything above g - q
//   to odd        anything above g - q if g's significand is odd, else g and up
#include <algorithm>
#include <cmath>
#include <limits>

#include "libnum/tensor_stats.hpp"
#include "stats_kernel.hpp"

namespace num {
namespace {

// How a deterministic mode treats a magnitude of one sign.
enum class magnitude_rounding { nearest_even, nearest_away, toward_zero, away_from_zero, to_odd };

magnitude_rounding magnitude_rounding_of(rounding mode, bool negative) {
  switch (mode) {
    case rounding::nearest_away: return magnitude_rounding::nearest_away;
    case rounding::toward_zero: return magnitude_rounding::toward_zero;
    case rounding::toward_positive:
      return negative ? magnitude_rounding::toward_zero : magnitude_rounding::away_from_zero;
    case rounding::toward_negative:
      return negative ? magnitude_rounding::away_from_zero : magnitude_rounding::toward_zero;
    case rounding::to_odd: return magnitude_rounding::to_odd;
    default: return magnitude_rounding::nearest_even;
  }
}

std::uint32_t float_bits(float x) {
  std::uint32_t b;
  __builtin_memcpy(&b, &x, sizeof b);
  return b;
}

double float_value(std::uint32_t bits) {
  float x;
  __builtin_memcpy(&x, &bits, sizeof x);
  return x;
}

// Bits of the smallest non-negative fp32 >= v (the infinity pattern past FLT_MAX).
std::uint32_t smallest_float_at_least(double v) {
  if (v > static_cast<double>(std::numeric_limits<float>::max())) return detail::fp32_inf_bits;
  std::uint32_t bits = float_bits(static_cast<float>(v));
  if (float_value(bits) < v) ++bits;
  return bits;
}

// Bits of the smallest non-negative fp32 > v.
std::uint32_t smallest_float_above(double v) {
  const std::uint32_t bits = smallest_float_at_least(v);
  return bits != detail::fp32_inf_bits && float_value(bits) == v ? bits + 1 : bits;
}

// Smallest magnitude rounding to >= g, where q is the grid spacing just below g.
std::uint32_t threshold(double g, double q, magnitude_rounding kind) {
  const bool odd = std::fmod(g / q, 2.0) != 0.0;
  const double previous = g - q;
  const double midpoint = g - q / 2;
  switch (kind) {
    case magnitude_rounding::nearest_even:
      return odd ? smallest_float_above(midpoint) : smallest_float_at_least(midpoint);
    case magnitude_rounding::nearest_away: return smallest_float_at_least(midpoint);
    case magnitude_rounding::toward_zero: return smallest_float_at_least(g);
    case magnitude_rounding::away_from_zero: return smallest_float_above(previous);
    case magnitude_rounding::to_odd:
      return odd ? smallest_float_above(previous) : smallest_float_at_least(g);
  }
  return 0;
}

// Grid spacing just below 2^k in format f.
double spacing_below_power(const format& f, int k) {
  if (k - 1 >= f.emin) return pow2(k - f.precision);
  return f.subnormals ? pow2(f.emin - f.fraction_bits()) : pow2(f.emin);
}

// What to add to bits(|x|) so that the exponent field carries exactly when
// |x|, with `dropped` fp32 fraction bits below the target's spacing, rounds up
// into the next binade. A carry of 2^23 always carries (from the binade just
// below the smallest subnormal, where every value that does not underflow
// rounds up).
std::uint32_t carry_for(int dropped, magnitude_rounding kind) {
  if (dropped <= 0) return 0;
  switch (kind) {
    case magnitude_rounding::nearest_even:
    case magnitude_rounding::nearest_away: return std::uint32_t{1} << std::min(dropped - 1, 23);
    case magnitude_rounding::away_from_zero:
      return dropped >= 24 ? std::uint32_t{1} << 23 : (std::uint32_t{1} << dropped) - 1;
    default: return 0;
  }
}

rounding_bounds bounds_for(const format& f, magnitude_rounding kind) {
  rounding_bounds b;
  const int lowest = stats_plan::lowest_binade_of(f);
  const auto at_power = [&](int k) { return threshold(pow2(k), spacing_below_power(f, k), kind); };
  b.nonzero = at_power(lowest);
  b.normal = at_power(f.emin);
  const double top_spacing = pow2(f.emax - f.fraction_bits());
  b.overflow = threshold(f.max() + top_spacing, top_spacing, kind);
  for (int k = lowest; k < f.emin; ++k) b.subnormal_binade[static_cast<std::size_t>(k - lowest)] = at_power(k);
  b.carry = carry_for(24 - f.precision, kind);
  for (int i = 0; i < 32; ++i) {
    const int e = f.emin - 24 + i;
    // fp32 fraction bits below the target's spacing in binade e.
    const int dropped = e >= f.emin ? 24 - f.precision : 23 - (e - lowest);
    b.carry_by_binade[static_cast<std::size_t>(i)] = e >= lowest - 1 ? carry_for(dropped, kind) : 0;
  }
  return b;
}

}  // namespace

stats_plan::stats_plan(const format& target, const round_spec& spec) : target_(target), spec_(spec) {
  if (spec.mode != rounding::stochastic) {
    positive_ = bounds_for(target, magnitude_rounding_of(spec.mode, false));
    negative_ = bounds_for(target, magnitude_rounding_of(spec.mode, true));
  }
}

namespace detail {

stats_layout::stats_layout(const stats_plan& plan) {
  const format& f = plan.target();
  subnormal_binades = static_cast<std::uint32_t>(f.emin - plan.lowest_binade());
  normal_base = 1 + subnormal_binades;
  emin_field = static_cast<std::uint32_t>(f.emin + 127);
  max_normal_offset = static_cast<std::uint32_t>(f.emax - f.emin);
  overflow_slot = static_cast<std::uint32_t>(plan.bin_count() - 1);
  zero_slot = overflow_slot + 1;
  nan_slot = overflow_slot + 2;
  inf_slot = overflow_slot + 3;
}

}  // namespace detail
}  // namespace num
