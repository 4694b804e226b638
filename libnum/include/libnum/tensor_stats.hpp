// Tensor statistics: what rounding a tensor into a target format would make of it.
//
// For fp32 data (or fp16/bf16 storage) and a target format with a round_spec,
// one pass counts zeros, NaNs, infinities, values that underflow to zero, that
// land on a subnormal, that overflow (to ±inf, ±max or NaN, whichever the
// overflow mode makes of them: the count is the same), tracks min/max |x|, the
// mean and RMS of the input values, and a histogram of the rounded magnitudes
// with one bin per binade of the target (subnormal binades included) plus an
// underflow-to-zero bin and an overflow bin.
//
// Classification is exact: a value lands in the bin of the value the scalar
// core (num::from_float) would round it to, in every rounding mode; for
// stochastic rounding the random word of element i is
// options.random.word(options.first_index + i).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "format.hpp"
#include "philox.hpp"
#include "rounding.hpp"

namespace num {

/// Magnitudes (fp32 bit patterns of |x|, which order like the values) at which
/// rounding |x| into the target changes class, for one sign and a
/// deterministic rounding mode. Rounding is monotone, so "|x| rounds to at
/// least g" is "bits(|x|) >= threshold(g)".
struct rounding_bounds {
  std::uint32_t nonzero = 0;   ///< smallest |x| rounding to a nonzero value (below: underflow to zero)
  std::uint32_t normal = 0;    ///< smallest |x| rounding to >= 2^emin (below: subnormal or zero)
  std::uint32_t overflow = 0;  ///< smallest |x| whose rounding overflows; 0x7F800000 if no finite one does
  /// Added to bits(|x|) for |x| in the normal range, the fp32 exponent field of
  /// the sum is the binade of the rounded value (the round-up carry).
  std::uint32_t carry = 0;
  /// The same carry for |x| of each binade e = emin - 24 + i (i clamped to
  /// [0, 31]): rounding at the subnormal spacing below 2^emin, at the normal
  /// one from emin up. Valid for |x| >= 2^-126 that neither underflow nor
  /// overflow; the rounded binade is then at least lowest_binade.
  std::array<std::uint32_t, 32> carry_by_binade{};
  /// [j]: smallest |x| rounding to >= 2^(lowest_binade + j), for the
  /// subnormal binades j in [0, precision - 1).
  std::array<std::uint32_t, 23> subnormal_binade{};
  friend bool operator==(const rounding_bounds&, const rounding_bounds&) = default;
};

/// Everything a statistics pass needs about a target format and rounding,
/// derived once (threshold tables), then reused for any number of tensors.
class stats_plan {
 public:
  explicit stats_plan(const format& target, const round_spec& spec = {});

  const format& target() const { return target_; }
  const round_spec& spec() const { return spec_; }
  /// Exponent of the lowest histogram binade: the smallest subnormal's
  /// (emin - p + 1), or emin without subnormals.
  int lowest_binade() const { return lowest_binade_of(target_); }
  static int lowest_binade_of(const format& f) {
    return f.subnormals ? f.emin - f.fraction_bits() : f.emin;
  }
  /// Number of binade bins (lowest_binade() .. emax).
  int binade_count() const { return target_.emax - lowest_binade() + 1; }
  /// Histogram size: underflow bin + binade bins + overflow bin.
  std::size_t bin_count() const { return static_cast<std::size_t>(binade_count()) + 2; }
  /// Thresholds for positive or negative inputs (identical unless the mode is
  /// directed). Unused, and all zero, for stochastic rounding.
  const rounding_bounds& bounds(bool negative) const { return negative ? negative_ : positive_; }

 private:
  format target_;
  round_spec spec_;
  rounding_bounds positive_;
  rounding_bounds negative_;
};

/// Largest histogram size over all supported formats (binary32: 1 + 277 + 1).
inline constexpr std::size_t max_histogram_bins = 280;

/// Statistics of one tensor (or of several merged) as seen by a target format.
struct tensor_stats {
  format target = binary32;
  round_spec spec{};
  std::uint64_t count = 0;       ///< elements
  std::uint64_t zeros = 0;       ///< inputs equal to ±0
  std::uint64_t subnormals = 0;  ///< nonzero finite inputs rounding to a nonzero subnormal
  std::uint64_t underflows = 0;  ///< nonzero finite inputs rounding to zero
  std::uint64_t overflows = 0;   ///< finite inputs whose rounding overflows (flag overflow)
  std::uint64_t nans = 0;        ///< NaN inputs
  std::uint64_t infs = 0;        ///< ±inf inputs
  float min_abs = 0;             ///< smallest finite |x| (0 when there are no finite inputs)
  float max_abs = 0;             ///< largest finite |x|
  float min_nonzero_abs = 0;     ///< smallest nonzero finite |x| (0 when none)
  double sum = 0;                ///< sum of the finite inputs (fp64 accumulation)
  double sum_squares = 0;        ///< sum of their squares (each square exact in fp64)
  /// [0]: underflow to zero; [1 + k - lowest_binade]: rounded |x| in
  /// [2^k, 2^(k+1)); [bin_count - 1]: overflow. Entries past bin_count are 0.
  std::array<std::uint64_t, max_histogram_bins> histogram{};

  /// Inputs that are neither NaN nor infinite.
  std::uint64_t finite() const { return count - nans - infs; }
  /// Mean and root mean square of the finite inputs (0 when there are none).
  double mean() const;
  double rms() const;
  int lowest_binade() const { return stats_plan::lowest_binade_of(target); }
  std::size_t bin_count() const;
  /// The used part of the histogram.
  std::span<const std::uint64_t> bins() const { return {histogram.data(), bin_count()}; }
  /// Count of rounded magnitudes in [2^k, 2^(k+1)), k in [lowest_binade, emax].
  std::uint64_t binade(int k) const;
};

/// Which implementation computes the statistics; all give identical results.
enum class stats_kernel : std::uint8_t { automatic, portable, avx2, avx512 };
/// Whether this CPU can run the given kernel (automatic and portable: always).
bool stats_kernel_available(stats_kernel kernel);

/// Where stochastic rounding takes its random words, and which kernel to use.
struct stats_options {
  random_stream random{};        ///< element i uses random.word(first_index + i)
  std::uint64_t first_index = 0;  ///< position of the span's first element in its tensor
  stats_kernel kernel = stats_kernel::automatic;
};

/// Statistics of fp32 values rounded into plan.target() as plan.spec() says.
tensor_stats compute_stats(std::span<const float> values, const stats_plan& plan,
                           const stats_options& options = {});
/// Statistics of 16-bit encodings of `storage` (binary16 or bfloat16, or any
/// format of at most 16 bits) rounded into plan.target(): with target ==
/// storage nothing rounds, so underflows and overflows are 0. Throws
/// std::invalid_argument for a storage format wider than 16 bits.
tensor_stats compute_stats(std::span<const std::uint16_t> encodings, const format& storage,
                           const stats_plan& plan, const stats_options& options = {});
/// Convenience: builds the plan for one call.
tensor_stats compute_stats(std::span<const float> values, const format& target,
                           const round_spec& spec = {}, const stats_options& options = {});

/// Adds `part` into `total` (statistics of the concatenated inputs): counts,
/// histogram, min and max exactly; sums by fp64 addition. Throws
/// std::invalid_argument if target or spec differ. A default-constructed total
/// with count 0 adopts part's target and spec.
void merge_into(tensor_stats& total, const tensor_stats& part);
tensor_stats merge(tensor_stats a, const tensor_stats& b);

}  // namespace num
