// num::any_non_finite: a NaN or an infinity at any position of arrays longer
// than every SIMD width, and none among the extreme finite values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <libnum/array.hpp>

namespace {

TEST(AnyNonFinite, FindsANanOrInfinityAtEveryPosition) {
  using limits = std::numeric_limits<float>;
  for (const float bad : {limits::quiet_NaN(), -limits::quiet_NaN(), limits::signaling_NaN(), limits::infinity(),
                          -limits::infinity()})
    for (std::size_t at = 0; at < 70; ++at) {
      std::vector<float> v(70, 1.0f);
      v[at] = bad;
      EXPECT_TRUE(num::any_non_finite(v)) << bad << " at " << at;
      EXPECT_FALSE(num::any_non_finite(std::span<const float>(v).first(at))) << "before " << at;
    }
}

TEST(AnyNonFinite, ExtremeFiniteValuesAreFinite) {
  using limits = std::numeric_limits<float>;
  const std::vector<float> v = {limits::max(), -limits::max(), limits::min(), limits::denorm_min(), -0.0f, 0.0f,
                                std::nextafter(limits::max(), 0.0f)};
  EXPECT_FALSE(num::any_non_finite(v));
  EXPECT_FALSE(num::any_non_finite({}));
}

}  // namespace
