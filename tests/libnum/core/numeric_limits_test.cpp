// std::numeric_limits of the value types, against values derived by hand from
// the formats (and, for the decimal digit counts, the same rules that give
// float's 6 / 9 / -37 / 38).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <libnum/small_float.hpp>

namespace {

template <class T>
double value(T x) {
  return static_cast<double>(x);
}

TEST(NumericLimits, Float16) {
  using L = std::numeric_limits<num::float16>;
  static_assert(L::is_specialized && L::is_signed && !L::is_integer && !L::is_exact);
  static_assert(L::has_infinity && L::has_quiet_NaN && L::has_signaling_NaN && L::is_iec559);
  static_assert(L::has_denorm == std::denorm_present && L::radix == 2);
  static_assert(L::digits == 11 && L::digits10 == 3 && L::max_digits10 == 5);
  static_assert(L::min_exponent == -13 && L::max_exponent == 16);
  static_assert(L::min_exponent10 == -4 && L::max_exponent10 == 4);
  EXPECT_EQ(L::max().bits(), 0x7BFFu);
  EXPECT_EQ(value(L::max()), 65504.0);
  EXPECT_EQ(value(L::lowest()), -65504.0);
  EXPECT_EQ(value(L::min()), std::ldexp(1.0, -14));
  EXPECT_EQ(value(L::denorm_min()), std::ldexp(1.0, -24));
  EXPECT_EQ(value(L::epsilon()), std::ldexp(1.0, -10));
  EXPECT_EQ(value(L::round_error()), 0.5);
  EXPECT_EQ(L::infinity().bits(), 0x7C00u);
  EXPECT_EQ(L::quiet_NaN().bits(), 0x7E00u);
  EXPECT_EQ(num::classify(num::binary16, L::signaling_NaN().bits()), num::value_class::signaling_nan);
}

TEST(NumericLimits, Bfloat16) {
  using L = std::numeric_limits<num::bfloat16>;
  static_assert(L::digits == 8 && L::digits10 == 2 && L::max_digits10 == 4);
  static_assert(L::min_exponent == -125 && L::max_exponent == 128);
  static_assert(L::min_exponent10 == -37 && L::max_exponent10 == 38);
  static_assert(L::has_infinity && L::is_iec559);
  EXPECT_EQ(L::max().bits(), 0x7F7Fu);
  EXPECT_EQ(value(L::max()), (2 - std::ldexp(1.0, -7)) * std::ldexp(1.0, 127));
  EXPECT_EQ(value(L::min()), std::ldexp(1.0, -126));
  EXPECT_EQ(value(L::denorm_min()), std::ldexp(1.0, -133));
  EXPECT_EQ(value(L::epsilon()), std::ldexp(1.0, -7));
  EXPECT_EQ(L::infinity().bits(), 0x7F80u);
  EXPECT_EQ(L::quiet_NaN().bits(), 0x7FC0u);
}

TEST(NumericLimits, Float8E4m3) {
  using L = std::numeric_limits<num::float8_e4m3>;
  static_assert(!L::has_infinity && L::has_quiet_NaN && !L::has_signaling_NaN && !L::is_iec559);
  static_assert(L::digits == 4 && L::min_exponent == -5 && L::max_exponent == 9);
  static_assert(L::max_exponent10 == 2);  // 10^2 <= 448 < 10^3
  EXPECT_EQ(L::max().bits(), 0x7Eu);
  EXPECT_EQ(value(L::max()), 448.0);
  EXPECT_EQ(value(L::lowest()), -448.0);
  EXPECT_EQ(value(L::min()), std::ldexp(1.0, -6));
  EXPECT_EQ(value(L::denorm_min()), std::ldexp(1.0, -9));
  EXPECT_EQ(value(L::epsilon()), 0.125);
  EXPECT_EQ(L::quiet_NaN().bits(), 0x7Fu);
  EXPECT_TRUE(isnan(L::infinity()));  // no infinities: the NaN stands in
}

// The digit rules checked on float, whose values the standard library fixes.
TEST(NumericLimits, DigitRulesReproduceFloat) {
  using L = std::numeric_limits<num::small_float<num::binary32>>;
  using F = std::numeric_limits<float>;
  static_assert(L::digits == F::digits && L::digits10 == F::digits10 && L::max_digits10 == F::max_digits10);
  static_assert(L::min_exponent == F::min_exponent && L::max_exponent == F::max_exponent);
  static_assert(L::min_exponent10 == F::min_exponent10 && L::max_exponent10 == F::max_exponent10);
  EXPECT_EQ(value(L::max()), static_cast<double>(F::max()));
  EXPECT_EQ(value(L::min()), static_cast<double>(F::min()));
  EXPECT_EQ(value(L::denorm_min()), static_cast<double>(F::denorm_min()));
  EXPECT_EQ(value(L::epsilon()), static_cast<double>(F::epsilon()));
}

}  // namespace
