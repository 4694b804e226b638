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

/// Two samples of the same random process agree when their means differ by
/// at most three standard errors of the difference (Welch). `computed` is
/// printed as "mean m, sd s (n runs)".
reference_check check_same_distribution(const published_value& published,
                                        const sample_summary& published_sample,
                                        const sample_summary& computed_sample);

}  // namespace numlab::experiments
