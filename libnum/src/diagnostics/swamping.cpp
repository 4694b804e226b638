// Swamping detector: exact w + delta, one rounding, and the bookkeeping.
#include "libnum/swamping.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "libnum/codec.hpp"
#include "libnum/exact_value.hpp"

namespace num {
namespace {

// |x| = significand * 2^exponent for a finite float.
struct float_parts {
  bool negative;
  std::uint32_t significand;
  int exponent;
};

float_parts parts_of(float x) {
  const auto bits = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t field = (bits >> 23) & 0xFFu;
  const std::uint32_t fraction = bits & 0x7FFFFFu;
  if (field == 0) return {(bits >> 31) != 0, fraction, -149};
  return {(bits >> 31) != 0, fraction | 0x800000u, static_cast<int>(field) - 150};
}

// The exact sum of two finite floats. When the smaller is more than 100
// binades below the larger it only matters as a sticky bit below the
// larger's 124-bit significand (round_exact needs >= 64 bits with sticky).
exact_value exact_sum(float a, float b, rounding mode) {
  if (std::fabs(a) < std::fabs(b)) std::swap(a, b);
  const float_parts big = parts_of(a);
  const float_parts small = parts_of(b);
  exact_value x;
  x.negative = big.negative;
  if (small.significand == 0) {
    x.significand = big.significand;
    x.exponent = big.exponent;
    if (big.significand == 0) {
      // ±0 + ±0: -0 only if both are -0, or signs differ and rounding is downward.
      x.negative = big.negative == small.negative ? big.negative : mode == rounding::toward_negative;
    }
    return x;
  }
  const bool same_sign = big.negative == small.negative;
  const int gap = big.exponent - small.exponent;  // >= 0 since |a| >= |b|
  if (gap <= 100) {
    const uint128 aligned = uint128{big.significand} << gap;
    x.significand = same_sign ? aligned + small.significand : aligned - small.significand;
    x.exponent = small.exponent;
    if (x.significand == 0) x.negative = mode == rounding::toward_negative;  // exact cancellation
    return x;
  }
  const int shift = gap - 100;
  const std::uint64_t quotient = shift >= 32 ? 0 : small.significand >> shift;
  const bool remainder = shift >= 32 ? true : (small.significand & ((std::uint64_t{1} << shift) - 1)) != 0;
  x.significand = uint128{big.significand} << 100;
  x.exponent = big.exponent - 100;
  if (same_sign) {
    x.significand += quotient;
    x.sticky = remainder;
  } else {
    // big - (quotient + t), 0 < t < 1  ==  (big - quotient - 1) + (1 - t)
    x.significand -= quotient + (remainder ? 1 : 0);
    x.sticky = remainder;
  }
  return x;
}

// Exponent of ulp(w) in f, as num::ulp defines it (ulp(0) = smallest subnormal spacing).
int ulp_exponent(const format& f, float w) {
  if (w == 0) return f.subnormals ? f.emin - f.fraction_bits() : f.emin;
  return std::max(std::ilogb(w), f.emin) - f.fraction_bits();
}

// Accounts one element with before/delta/after values.
void observe(float before, float delta, float after, const format& f, double tolerance, swamping_stats& s) {
  ++s.count;
  if (!std::isfinite(before) || !std::isfinite(delta) || !std::isfinite(after)) {
    ++s.nonfinite;
    return;
  }
  if (delta == 0) {
    ++s.zero_deltas;
    return;
  }
  ++s.updates;
  const double effective = static_cast<double>(after) - static_cast<double>(before);
  const double intended = delta;
  s.intended_squares += intended * intended;
  s.effective_squares += effective * effective;
  if (after == before) {
    ++s.total_swamped;
  } else if (std::fabs(effective - intended) > tolerance * std::fabs(intended)) {
    ++s.partially_swamped;
  }
  const int k = std::ilogb(delta) - ulp_exponent(f, before);
  const int bin = std::clamp(k - swamping_ratio_log2_min + 1, 0, static_cast<int>(swamping_ratio_bins) - 1);
  ++s.ratio_histogram[static_cast<std::size_t>(bin)];
}

// round(w + delta) into the target as an encoding.
std::uint32_t rounded_sum(float w, float delta, const swamping_options& o, std::uint64_t index) {
  const std::uint32_t word = o.spec.mode == rounding::stochastic ? o.random.word(o.first_index + index) : 0;
  if (!std::isfinite(w) || !std::isfinite(delta)) {
    const float sum = w + delta;  // IEEE NaN/inf propagation
    if (std::isnan(sum)) return default_nan_bits(o.target);
    return infinity_bits(o.target, sum < 0);
  }
  return round_exact(exact_sum(w, delta, o.spec.mode), o.target, o.spec, word).bits;
}

swamping_stats empty_stats(const format& f, const round_spec& spec, double tolerance) {
  swamping_stats s;
  s.target = f;
  s.spec = spec;
  s.tolerance = tolerance;
  return s;
}

void check_sizes(std::size_t w, std::size_t delta, std::size_t out, const char* what) {
  if (w != delta || (out != 0 && out != w)) {
    throw std::invalid_argument(std::string(what) + ": spans of different sizes (" + std::to_string(w) + ", " +
                                std::to_string(delta) + ", " + std::to_string(out) + ")");
  }
}

}  // namespace

swamping_stats detect_swamping(std::span<const float> w, std::span<const float> delta,
                               const swamping_options& options, std::span<float> updated) {
  check_sizes(w.size(), delta.size(), updated.size(), "detect_swamping");
  swamping_stats s = empty_stats(options.target, options.spec, options.tolerance);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const float before = w[i];
    const float after = to_float(options.target, rounded_sum(before, delta[i], options, i));
    observe(before, delta[i], after, options.target, options.tolerance, s);
    if (!updated.empty()) updated[i] = after;
  }
  return s;
}

swamping_stats detect_swamping(std::span<const std::uint16_t> w, std::span<const float> delta,
                               const swamping_options& options, std::span<std::uint16_t> updated) {
  check_sizes(w.size(), delta.size(), updated.size(), "detect_swamping");
  if (options.target.total_bits() > 16) {
    throw std::invalid_argument("detect_swamping: 16-bit storage of " + format_name(options.target) + ", a " +
                                std::to_string(options.target.total_bits()) + "-bit format");
  }
  swamping_stats s = empty_stats(options.target, options.spec, options.tolerance);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const float before = to_float(options.target, w[i]);
    const std::uint32_t bits = rounded_sum(before, delta[i], options, i);
    observe(before, delta[i], to_float(options.target, bits), options.target, options.tolerance, s);
    if (!updated.empty()) updated[i] = static_cast<std::uint16_t>(bits);
  }
  return s;
}

swamping_stats measure_swamping(std::span<const float> before, std::span<const float> delta,
                                std::span<const float> after, const format& target, double tolerance) {
  if (after.size() != before.size()) {
    throw std::invalid_argument("measure_swamping: " + std::to_string(before.size()) + " weights before but " +
                                std::to_string(after.size()) + " after");
  }
  check_sizes(before.size(), delta.size(), after.size(), "measure_swamping");
  swamping_stats s = empty_stats(target, round_spec{}, tolerance);
  for (std::size_t i = 0; i < before.size(); ++i) observe(before[i], delta[i], after[i], target, tolerance, s);
  return s;
}

double swamping_stats::norm_ratio() const {
  return intended_squares == 0 ? 1.0 : std::sqrt(effective_squares / intended_squares);
}

double swamping_stats::total_fraction() const {
  return updates == 0 ? 0.0 : static_cast<double>(total_swamped) / static_cast<double>(updates);
}

double swamping_stats::partial_fraction() const {
  return updates == 0 ? 0.0 : static_cast<double>(partially_swamped) / static_cast<double>(updates);
}

std::uint64_t swamping_stats::ratio_binade(int k) const {
  if (k < swamping_ratio_log2_min || k > swamping_ratio_log2_max) return 0;
  return ratio_histogram[static_cast<std::size_t>(k - swamping_ratio_log2_min + 1)];
}

void merge_into(swamping_stats& total, const swamping_stats& part) {
  if (total.count == 0) {
    total = part;
    return;
  }
  if (part.count == 0) return;
  if (total.target != part.target || total.spec != part.spec || total.tolerance != part.tolerance) {
    throw std::invalid_argument("merging swamping statistics of different targets, roundings or tolerances");
  }
  total.count += part.count;
  total.zero_deltas += part.zero_deltas;
  total.nonfinite += part.nonfinite;
  total.updates += part.updates;
  total.total_swamped += part.total_swamped;
  total.partially_swamped += part.partially_swamped;
  total.intended_squares += part.intended_squares;
  total.effective_squares += part.effective_squares;
  for (std::size_t i = 0; i < total.ratio_histogram.size(); ++i) total.ratio_histogram[i] += part.ratio_histogram[i];
}

}  // namespace num
