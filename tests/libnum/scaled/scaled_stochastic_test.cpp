// Stochastic element rounding: unbiased for r = 32, and with r bits the
// round-up probability is floor(f·2^r) / 2^r (DESIGN.md's definition), as
// for the per-element formats. Counts are checked within 6 standard deviations.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "scaled_run.hpp"

namespace {

// Fraction of n copies of x (one block scale fixed at 1) rounded up to `up`.
double up_fraction(num::element_type t, float x, float up, int r, std::size_t n) {
  num::scaled_options o;
  o.format = {t, num::scale_rule::fp32_given, num::whole_tensor_block};
  o.given_scale = 1.0f;
  o.spec.mode = num::rounding::stochastic;
  o.spec.random_bits = r;
  o.seed = 2024;
  const auto q = scaled_test::run(std::vector<float>(n, x), o);
  std::size_t ups = 0;
  for (float d : q.decoded) ups += d == up;
  return static_cast<double>(ups) / static_cast<double>(n);
}

void expect_probability(double got, double p, std::size_t n) {
  const double sigma = std::sqrt(p * (1 - p) / static_cast<double>(n));
  EXPECT_NEAR(got, p, 6 * sigma + 1e-12);
}

TEST(ScaledStochastic, UnbiasedPerElementWithThirtyTwoBits) {
  constexpr std::size_t n = 1 << 16;
  // E2M1 between 2 and 3: 2.25 rounds up with probability 1/4.
  expect_probability(up_fraction(num::element_type::e2m1, 2.25f, 3.0f, 32, n), 0.25, n);
  // E3M2 between 0.25 and 0.3125 (spacing 2^-4): 0.3 is 0.8 of the way.
  const double f = (0.3f - 0.25) / 0.0625;
  expect_probability(up_fraction(num::element_type::e3m2, 0.3f, 0.3125f, 32, n), f, n);
  // INT8 k/64: 0.01 = 0.64/64, so up with probability ~0.64.
  expect_probability(up_fraction(num::element_type::int8, 0.01f, 1.0f / 64, 32, n), 0.01f * 64.0, n);
}

TEST(ScaledStochastic, FewRandomBitsBiasTowardZeroAsDefined) {
  constexpr std::size_t n = 1 << 16;
  // 2.3 in E2M1: f = 0.2999999523; r = 2 -> floor(1.19999) / 4 = 1/4, not 0.3.
  expect_probability(up_fraction(num::element_type::e2m1, 2.3f, 3.0f, 2, n), 0.25, n);
  // r = 1: floor(0.6) / 2 = 0: never up.
  EXPECT_EQ(up_fraction(num::element_type::e2m1, 2.3f, 3.0f, 1, n), 0.0);
  // E5M2 between 1 and 1.25: 1.2 is f = 0.8; r = 3 -> floor(6.4) / 8 = 0.75.
  expect_probability(up_fraction(num::element_type::e5m2, 1.2f, 1.25f, 3, n), 0.75, n);
}

}  // namespace
