// Straightforward per-element oracle for tensor statistics, built on the
// scalar core: each value is rounded with num::from_float and the result
// classified with num::classify.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "libnum/codec.hpp"
#include "libnum/convert.hpp"
#include "libnum/tensor_stats.hpp"

namespace diag_test {

/// What the statistics of `xs` must be; sum and sum_squares in long double.
struct reference_result {
  num::tensor_stats stats;
  long double sum = 0;
  long double sum_squares = 0;
};

inline reference_result reference_stats(std::span<const float> xs, const num::format& f, const num::round_spec& spec,
                                        const num::random_stream& random = {}, std::uint64_t first_index = 0) {
  reference_result r;
  num::tensor_stats& s = r.stats;
  s.target = f;
  s.spec = spec;
  const int lowest = s.lowest_binade();
  bool any_finite = false;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i];
    ++s.count;
    if (std::isnan(x)) { ++s.nans; continue; }
    if (std::isinf(x)) { ++s.infs; continue; }
    const float a = std::fabs(x);
    if (!any_finite) { s.min_abs = a; s.max_abs = a; any_finite = true; }
    s.min_abs = std::fmin(s.min_abs, a);
    s.max_abs = std::fmax(s.max_abs, a);
    if (a != 0 && (s.min_nonzero_abs == 0 || a < s.min_nonzero_abs)) s.min_nonzero_abs = a;
    r.sum += x;
    r.sum_squares += static_cast<long double>(x) * x;
    if (x == 0) { ++s.zeros; continue; }
    const num::rounded rounded = num::from_float(f, x, spec, random.word(first_index + i));
    if (num::any(rounded.raised, num::flags::overflow)) {
      ++s.overflows;
      ++s.histogram[s.bin_count() - 1];
      continue;
    }
    const num::value_class c = num::classify(f, rounded.bits);
    if (c == num::value_class::zero) {
      ++s.underflows;
      ++s.histogram[0];
      continue;
    }
    if (c == num::value_class::subnormal) ++s.subnormals;
    const int binade = std::ilogb(num::to_double(f, rounded.bits));
    ++s.histogram[static_cast<std::size_t>(1 + binade - lowest)];
  }
  return r;
}

/// Counts, histogram and extremes must match exactly.
inline void expect_same_counts(const num::tensor_stats& actual, const num::tensor_stats& expected) {
  EXPECT_EQ(actual.count, expected.count);
  EXPECT_EQ(actual.zeros, expected.zeros);
  EXPECT_EQ(actual.subnormals, expected.subnormals);
  EXPECT_EQ(actual.underflows, expected.underflows);
  EXPECT_EQ(actual.overflows, expected.overflows);
  EXPECT_EQ(actual.nans, expected.nans);
  EXPECT_EQ(actual.infs, expected.infs);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(actual.min_abs), std::bit_cast<std::uint32_t>(expected.min_abs));
  EXPECT_EQ(std::bit_cast<std::uint32_t>(actual.max_abs), std::bit_cast<std::uint32_t>(expected.max_abs));
  EXPECT_EQ(std::bit_cast<std::uint32_t>(actual.min_nonzero_abs),
            std::bit_cast<std::uint32_t>(expected.min_nonzero_abs));
  for (std::size_t i = 0; i < actual.histogram.size(); ++i) {
    EXPECT_EQ(actual.histogram[i], expected.histogram[i]) << "bin " << i;
  }
}

/// fp32 test data: random bit patterns (NaNs, infinities, subnormals
/// included), log-uniform magnitudes over the whole fp32 range, and values
/// within a few ulps of each of the plan's thresholds.
inline std::vector<float> mixed_data(const num::stats_plan& plan, std::size_t random_count, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<float> xs;
  std::uniform_int_distribution<std::uint32_t> any_bits;
  std::uniform_real_distribution<double> log_magnitude(-150.0, 128.0);
  for (std::size_t i = 0; i < random_count; ++i) {
    if (i % 2 == 0) {
      xs.push_back(std::bit_cast<float>(any_bits(gen)));
    } else {
      const double v = std::exp2(log_magnitude(gen));
      xs.push_back(static_cast<float>((gen() & 1) != 0 ? -v : v));
    }
  }
  // Neighbourhoods of every class and binade boundary of the target.
  const num::format& f = plan.target();
  std::vector<std::uint32_t> centres;
  for (int k = plan.lowest_binade(); k <= f.emax + 1 && k <= 127; ++k) {
    centres.push_back(std::bit_cast<std::uint32_t>(static_cast<float>(std::ldexp(1.0, k))));
  }
  centres.push_back(std::bit_cast<std::uint32_t>(static_cast<float>(f.max())));
  for (bool negative : {false, true}) {
    const num::rounding_bounds& b = plan.bounds(negative);
    centres.insert(centres.end(), {b.nonzero, b.normal, b.overflow});
  }
  for (const std::uint32_t c : centres) {
    for (std::uint32_t d = 0; d < 5; ++d) {
      const std::uint32_t bits = c + d - 2;
      if ((bits & 0x7FFFFFFFu) > 0x7F800000u || c + d < 2) continue;
      xs.push_back(std::bit_cast<float>(bits));
      xs.push_back(-std::bit_cast<float>(bits));
    }
  }
  std::shuffle(xs.begin(), xs.end(), gen);
  return xs;
}

/// Formats the statistics tests sweep: every built-in one and a format
/// without subnormals.
inline std::vector<num::format> test_formats() {
  return {num::binary16, num::bfloat16_format, num::fp8_e5m2, num::fp8_e4m3, num::tf32, num::binary32,
          num::make_format(5, -6, 7, false, true)};
}

}  // namespace diag_test
