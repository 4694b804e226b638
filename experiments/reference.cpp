#include "experiments/reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/math/distributions/students_t.hpp>

#include "experiments/printing.hpp"

namespace numlab::experiments {

reference_check check_printed(const published_value& published, std::string computed) {
  reference_check c;
  c.quantity = published.quantity;
  c.source = published.source;
  c.published = published.printed;
  c.computed = std::move(computed);
  c.test = "numlab's value printed as the tutorial printed it equals the printed text";
  c.matches = c.published == c.computed;
  if (c.matches) {
    c.verdict = published.if_matches.empty() ? "matches" : "matches: " + published.if_matches;
  } else {
    c.verdict = "differs: " + published.if_differs;
  }
  return c;
}

reference_check check_claim(const claim& claimed, std::string measured, bool holds) {
  reference_check c;
  c.quantity = claimed.quantity;
  c.source = claimed.source;
  c.published = claimed.printed;
  c.computed = std::move(measured);
  c.test = claimed.test;
  c.matches = holds;
  c.verdict = holds ? "matches" : "differs: " + claimed.if_differs;
  return c;
}

reference_check not_decided(const claim& claimed, std::string measured, const std::string& why) {
  reference_check c = check_claim(claimed, std::move(measured), false);
  c.decided = false;
  c.verdict = "not decided: " + why;
  return c;
}

paired_difference compare_paired(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size() || a.size() < 2)
    throw std::invalid_argument("compare_paired: needs two samples of the same size, at least 2 (got " +
                                std::to_string(a.size()) + " and " + std::to_string(b.size()) + ")");
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  paired_difference p;
  p.differences = summarize(d);
  p.standard_error = p.differences.standard_deviation / std::sqrt(static_cast<double>(d.size()));
  // Student's t from Boost.Math rather than a hand-copied quantile table.
  const boost::math::students_t t(static_cast<double>(d.size() - 1));
  p.t_critical = boost::math::quantile(t, 0.975);
  return p;
}

std::string paired_difference::describe(double scale, int decimals, const std::string& unit) const {
  return "mean difference " + fixed(scale * differences.mean, decimals) + " " + unit + ", 95% interval [" +
         fixed(scale * low(), decimals) + ", " + fixed(scale * high(), decimals) + "] " + unit + ", " +
         std::to_string(differences.count) + " seeds";
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
  c.test = "Welch: means differ by at most 3 standard errors of the difference";
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
