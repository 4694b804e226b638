// Swamping detector for weight updates w <- w + delta.
//
// In a low-precision format an update much smaller than ulp(w) is lost
// (total swamping: the result equals w) or distorted (partial swamping: the
// effective update w' - w differs from delta by more than a relative
// tolerance). The detector either performs the update itself, rounding the
// exact sum w + delta once into the target format as a round_spec says
// (detect_swamping), or judges an update somebody else performed
// (measure_swamping).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "format.hpp"
#include "philox.hpp"
#include "rounding.hpp"

namespace num {

/// Range of the |delta| / ulp(w) histogram: one bin per binade 2^k for k in
/// [swamping_ratio_log2_min, swamping_ratio_log2_max], plus a bin below and
/// one above.
inline constexpr int swamping_ratio_log2_min = -32;
inline constexpr int swamping_ratio_log2_max = 31;
inline constexpr std::size_t swamping_ratio_bins =
    static_cast<std::size_t>(swamping_ratio_log2_max - swamping_ratio_log2_min + 3);

/// Swamping statistics of one update of one tensor (or several merged).
/// "Updates" are the elements with finite w, finite nonzero delta and a
/// finite result; the other elements count in `nonfinite` or `zero_deltas`.
struct swamping_stats {
  format target = binary16;
  round_spec spec{};
  double tolerance = 0;             ///< relative tolerance of partial swamping
  std::uint64_t count = 0;          ///< elements
  std::uint64_t zero_deltas = 0;    ///< finite w with delta == ±0
  std::uint64_t nonfinite = 0;      ///< w or delta NaN/inf, or a result that is not finite
  std::uint64_t updates = 0;        ///< finite w, finite nonzero delta, finite result
  std::uint64_t total_swamped = 0;  ///< updates whose result equals w
  /// Updates whose result differs from w but |(w' - w) - delta| > tolerance * |delta|
  /// (disjoint from total_swamped).
  std::uint64_t partially_swamped = 0;
  double intended_squares = 0;   ///< sum of delta^2 over updates
  double effective_squares = 0;  ///< sum of (w' - w)^2 over updates
  /// Over updates: [0] ratio below 2^min, [1 + k - min] ratio in [2^k, 2^(k+1)),
  /// [last] ratio >= 2^(max + 1), with ratio = |delta| / ulp(w) and ulp as num::ulp.
  std::array<std::uint64_t, swamping_ratio_bins> ratio_histogram{};

  /// ||w' - w|| / ||delta|| over updates (1 when there are none).
  double norm_ratio() const;
  /// total_swamped / updates and partially_swamped / updates (0 when none).
  double total_fraction() const;
  double partial_fraction() const;
  /// Updates with |delta| / ulp(w) in [2^k, 2^(k+1)), k in [min, max].
  std::uint64_t ratio_binade(int k) const;
};

/// How detect_swamping rounds w + delta.
struct swamping_options {
  format target = binary16;       ///< the format w is stored in and the sum rounded into
  round_spec spec{};              ///< mode, stochastic bits, overflow behaviour
  double tolerance = 0.1;         ///< relative error above which an update is partially swamped
  random_stream random{};         ///< element i uses random.word(first_index + i) (stochastic)
  std::uint64_t first_index = 0;  ///< position of the span's first element in its tensor
};

/// w' = round(w + delta) into options.target for fp32-held weights (values of
/// the target format, as a trainer keeps them): the sum is exact before its
/// single rounding. Writes w' (as fp32) into `updated` when it is not empty
/// (it may alias w). Throws std::invalid_argument if sizes differ.
swamping_stats detect_swamping(std::span<const float> w, std::span<const float> delta,
                               const swamping_options& options, std::span<float> updated = {});
/// The same on real 16-bit storage: `w` holds encodings of options.target
/// (at most 16 bits), `updated` receives encodings.
swamping_stats detect_swamping(std::span<const std::uint16_t> w, std::span<const float> delta,
                               const swamping_options& options, std::span<std::uint16_t> updated = {});

/// Judges an update already performed: `before` and `after` are the weights
/// around w <- w + delta, held as fp32 values of `target` (ulp(w) is taken in
/// `target`). Throws std::invalid_argument if sizes differ.
swamping_stats measure_swamping(std::span<const float> before, std::span<const float> delta,
                                std::span<const float> after, const format& target, double tolerance = 0.1);

/// Adds `part` into `total`; throws std::invalid_argument if target, spec or
/// tolerance differ. A total with count 0 adopts part.
void merge_into(swamping_stats& total, const swamping_stats& part);

}  // namespace num
