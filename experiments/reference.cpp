#include "experiments/reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "experiments/printing.hpp"

namespace numlab::experiments {

reference_check check_printed(const published_value& published, std::string computed) {
  reference_check c;
  c.quantity = published.quantity;
  c.source = published.source;
  c.published = published.printed;
  c.computed = std::move(computed);
  c.matches = c.published == c.computed;
  if (c.matches) {
    c.verdict = published.if_matches.empty() ? "matches" : "matches: " + published.if_matches;
  } else {
    c.verdict = "differs: " + published.if_differs;
  }
  return c;
}

sample_summary summarize(std::span<const double> values) {
  if (values.empty()) throw std::invalid_argument("summarize: no values");
  sample_summary s;
  s.count = values.size();
  double total = 0;
  for (const double v : values) total += v;
  s.mean = total / static_cast<double>(s.count);
  double squares = 0;
  for (const double v : values) squares += (v - s.mean) * (v - s.mean);
  s.standard_deviation = s.count > 1 ? std::sqrt(squares / static_cast<double>(s.count - 1)) : 0.0;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  return s;
}

reference_check check_same_distribution(const published_value& published,
                                        const sample_summary& published_sample,
                                        const sample_summary& computed_sample) {
  const auto variance_of_mean = [](const sample_summary& s) {
    return s.standard_deviation * s.standard_deviation / static_cast<double>(s.count);
  };
  const double standard_error = std::sqrt(variance_of_mean(published_sample) + variance_of_mean(computed_sample));
  const double difference = computed_sample.mean - published_sample.mean;
  reference_check c;
  c.quantity = published.quantity;
  c.source = published.source;
  c.published = published.printed;
  c.computed = "mean " + fixed(computed_sample.mean, 4) + ", sd " + fixed(computed_sample.standard_deviation, 4) +
               " (" + std::to_string(computed_sample.count) + " runs)";
  c.matches = std::abs(difference) <= 3 * standard_error;
  const std::string gap = "means differ by " + fixed(difference, 4) + ", " +
                          fixed(std::abs(difference) / standard_error, 1) + " standard errors";
  c.verdict = c.matches ? "matches statistically (" + gap + ")" + (published.if_matches.empty() ? "" : "; " + published.if_matches)
                        : "differs: " + gap + "; " + published.if_differs;
  return c;
}

}  // namespace numlab::experiments
