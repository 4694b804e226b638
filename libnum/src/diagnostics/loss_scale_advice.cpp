// Loss-scale recommendation from binade histograms.
#include "libnum/loss_scale_advice.hpp"

#include <cmath>

#include "libnum/convert.hpp"

namespace num {
namespace {

// Values overflowing or underflowing at scale 2^k, summed over the tensors.
struct tally {
  std::uint64_t values = 0;
  std::uint64_t overflowing = 0;
  std::uint64_t underflowing = 0;
  bool exact = true;
};

tally count_at(std::span<const tensor_stats> grads, const format& target, int k) {
  tally t;
  const int lowest_target = stats_plan::lowest_binade_of(target);
  for (const tensor_stats& s : grads) {
    const auto bins = s.bins();
    for (std::size_t i = 0; i < bins.size(); ++i) {
      const std::uint64_t n = bins[i];
      if (n == 0) continue;
      t.values += n;
      if (i == 0) {  // magnitude lost below the recorded format's range
        t.underflowing += n;
        t.exact = false;
        continue;
      }
      if (i == bins.size() - 1) {  // magnitude lost above it
        t.overflowing += n;
        t.exact = false;
        continue;
      }
      const int scaled = s.lowest_binade() + static_cast<int>(i) - 1 + k;
      if (scaled > target.emax) t.overflowing += n;
      if (scaled < lowest_target - 1) t.underflowing += n;
    }
  }
  return t;
}

double fraction(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

// Whether the largest |x| of every tensor, scaled by 2^k, rounds (nearest-even) below overflow.
bool largest_fits(std::span<const tensor_stats> grads, const format& target, int k) {
  for (const tensor_stats& s : grads) {
    if (s.finite() == 0) continue;
    const rounded r = from_double(target, std::ldexp(static_cast<double>(s.max_abs), k), round_spec{});
    if (any(r.raised, flags::overflow)) return false;
  }
  return true;
}

}  // namespace

double overflow_fraction(std::span<const tensor_stats> grads, const format& target, int scale_log2) {
  const tally t = count_at(grads, target, scale_log2);
  return fraction(t.overflowing, t.values);
}

double underflow_fraction(std::span<const tensor_stats> grads, const format& target, int scale_log2) {
  const tally t = count_at(grads, target, scale_log2);
  return fraction(t.underflowing, t.values);
}

loss_scale_advice advise_loss_scale(std::span<const tensor_stats> grads, const loss_scale_query& query) {
  loss_scale_advice advice;
  int chosen = query.min_scale_log2;
  for (int k = query.max_scale_log2; k >= query.min_scale_log2; --k) {
    const tally t = count_at(grads, query.target, k);
    const double kept = static_cast<double>(t.values - t.overflowing);
    const bool fits = kept >= query.keep_fraction * static_cast<double>(t.values) &&
                      (query.keep_fraction < 1.0 || largest_fits(grads, query.target, k));
    if (fits) {
      chosen = k;
      advice.feasible = true;
      break;
    }
  }
  const tally t = count_at(grads, query.target, chosen);
  advice.scale_log2 = chosen;
  advice.scale = std::ldexp(1.0, chosen);
  advice.exact = t.exact;
  advice.values = t.values;
  advice.overflow_fraction = fraction(t.overflowing, t.values);
  advice.underflow_fraction = fraction(t.underflowing, t.values);
  return advice;
}

}  // namespace num
