// Deciding whether a computed value matches what a tutorial printed. The
// published value is written verbatim in the experiment's source; the verdict
// comes from comparing it with numlab's value printed the same way.
#pragma once

#include <span>
#include <string>

#include "experiment.hpp"

namespace numlab::experiments {

/// Where and what was published, and what to say about it.
struct published_value {
  std::string quantity;  ///< what it is, e.g. "0.0004 + 0.25 - 0.25 in fp16"
  std::string source;    ///< the tutorial
  std::string printed;   ///< the text it printed, verbatim
  std::string if_differs;   ///< why the values differ (used only when they do)
  std::string if_matches{};  ///< an optional remark when they match
};

/// Matches iff `computed` (numlab's value printed as the tutorial printed
/// its own) equals the published text.
reference_check check_printed(const published_value& published, std::string computed);

/// A claim the tutorial made in words, and the test that decides it on
/// numlab's measurements.
struct claim {
  std::string quantity;    ///< what numlab measured, e.g. "test accuracy, fp16 weights vs fp32"
  std::string source;      ///< the tutorial
  std::string printed;     ///< the tutorial's sentence, verbatim
  std::string test;        ///< the test, e.g. "95% interval of the paired difference below 0"
  std::string if_differs;  ///< what the measurement shows instead
};

/// The claim's row: `measured` in numlab's column, "matches" iff `holds`.
reference_check check_claim(const claim& c, std::string measured, bool holds);

/// The claim's row when there is nothing to test (a run diverged, one
/// seed): shown as not decided, with `why`.
reference_check not_decided(const claim& c, std::string measured, const std::string& why);

/// Summary of a sample of results of a random process.
struct sample_summary {
  double mean = 0;
  double standard_deviation = 0;  ///< with Bessel's correction
  double min = 0;
  double max = 0;
  std::size_t count = 0;
};
/// Mean, sample standard deviation, min and max of `values` (at least one).
sample_summary summarize(std::span<const double> values);

/// Two configurations trained at the same seeds, compared seed by seed:
/// the differences a_i - b_i and Student's t 95% interval of their mean.
struct paired_difference {
  sample_summary differences;
  double standard_error = 0;  ///< sd of the differences / sqrt(n)
  double t_critical = 0;      ///< Student's t 0.975 quantile at n - 1 degrees of freedom

  [[nodiscard]] double low() const { return differences.mean - t_critical * standard_error; }
  [[nodiscard]] double high() const { return differences.mean + t_critical * standard_error; }
  /// "mean difference d UNIT, 95% interval [lo, hi] UNIT, n seeds", values
  /// times `scale` with `decimals` digits.
  [[nodiscard]] std::string describe(double scale, int decimals, const std::string& unit) const;
};

/// The paired comparison of `a` and `b` (same seeds, same order; at least
/// two of each); throws std::invalid_argument otherwise.
paired_difference compare_paired(std::span<const double> a, std::span<const double> b);

/// Two samples of the same random process agree when their means differ by
/// at most three standard errors of the difference (Welch). `computed` is
/// printed as "mean m, sd s (n runs)".
reference_check check_same_distribution(const published_value& published,
                                        const sample_summary& published_sample,
                                        const sample_summary& computed_sample);

}  // namespace numlab::experiments
