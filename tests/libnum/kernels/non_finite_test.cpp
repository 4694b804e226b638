// num::any_non_finite: a NaN or an infinity at any position of arrays longer
// than every SIMD width, and none among the extreme finite values.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <libnum/array.hpp>
#include <libnum/codec.hpp>

#include "kernel_oracle.hpp"

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

// Each path's body (the portable loop, AVX2, AVX-512) on every length from 0
// to 1000, starting at one of 16 alignments: arrays of extreme finite
// values (the largest, next to it, subnormals, zeros) hold none, and a single
// NaN or infinity at every position is found, one positive and one negative
// each time, the kind (infinity, the NaNs nearest and farthest from it)
// changing along the positions. The automatic overload agrees with the path
// NUMLAB_SIMD or the CPU chooses.
class AnyNonFinitePaths : public ::testing::TestWithParam<num::simd_path> {};

TEST_P(AnyNonFinitePaths, FindsOneNanOrInfinityAtEveryPositionOfEveryLength) {
  NUMLAB_REQUIRE_PATH(GetParam());
  const num::simd_path path = GetParam();
  const std::uint32_t kinds[] = {0x7F800000u, 0x7F800001u, 0x7FC00000u, 0x7FFFFFFFu};
  const std::uint32_t finite[] = {0x7F7FFFFFu, 0x00000001u, 0x007FFFFFu, 0x00800000u, 0x7F7FFFFEu,
                                  0x3F800000u, 0x00000000u, 0x7F000000u, 0x7EFFFFFFu};
  constexpr std::size_t longest = 1000;
  std::vector<float> buffer(longest + 16);
  for (std::size_t i = 0; i < buffer.size(); ++i)
    buffer[i] = std::bit_cast<float>(finite[i % std::size(finite)] | (i % 2 == 0 ? 0u : 0x80000000u));
  const bool automatic_matches = num::resolve_simd_path(num::simd_path::automatic) == path;
  std::size_t wrong = 0;
  auto expect = [&](std::span<const float> v, bool want, const std::string& what) {
    if (num::any_non_finite(v, path) == want) return;
    if (++wrong <= 5) ADD_FAILURE() << num::simd_path_name(path) << ": " << what << " not reported as " << want;
  };
  for (std::size_t n = 0; n <= longest; ++n) {
    const std::span<float> v = std::span<float>(buffer).subspan(n % 16, n);
    expect(v, false, "finite length " + std::to_string(n));
    if (automatic_matches && num::any_non_finite(std::span<const float>(v)) && ++wrong <= 5)
      ADD_FAILURE() << "automatic: finite length " << n << " reported";
    for (std::size_t at = 0; at < n; ++at) {
      const float kept = v[at];
      for (const std::uint32_t sign : {0u, 0x80000000u}) {
        const std::uint32_t bad = kinds[(n + at + sign / 0x80000000u) % std::size(kinds)] | sign;
        v[at] = std::bit_cast<float>(bad);
        expect(v, true, "pattern " + std::to_string(bad) + " at " + std::to_string(at) + " of " + std::to_string(n));
      }
      v[at] = kept;
    }
  }
  EXPECT_EQ(wrong, 0u);
}

INSTANTIATE_TEST_SUITE_P(Kernels, AnyNonFinitePaths, ::testing::ValuesIn(kernel_test::all_paths),
                         [](const auto& info) { return std::string(num::simd_path_name(info.param)); });

}  // namespace

// array_options::want_non_finite: the rounding pass itself reports whether a
// result is NaN or ±inf, on every path and shortcut (vcvtps2ph, bf16
// nearest, the 16-bit stochastic body, the general lanes), in the full
// vectors and in the tails. The oracle reads the results back one by one.
namespace {

struct watch_case {
  const char* name;
  num::format target;
  num::round_spec spec;
  bool want_counts = false;
};

std::vector<watch_case> cases() {
  using num::rounding;
  const num::round_spec sr{rounding::stochastic, 32};
  const num::round_spec sr5{rounding::stochastic, 5};
  num::round_spec saturate{};
  saturate.overflow = num::overflow_mode::saturate;
  return {{"fp16 ne", num::binary16, {}},
          {"fp16 toward zero", num::binary16, {rounding::toward_zero}},
          {"fp16 toward +inf", num::binary16, {rounding::toward_positive}},
          {"bf16 ne", num::bfloat16_format, {}},
          {"fp16 sr", num::binary16, sr},
          {"bf16 sr r=5", num::bfloat16_format, sr5},
          {"fp16 ne counting", num::binary16, {}, true},
          {"fp16 saturating", num::binary16, saturate},
          {"e5m2 ne", num::parse_format("e5m2"), {}},
          {"tf32 to odd", num::parse_format("tf32"), {rounding::to_odd}}};
}

bool any_non_finite_value(std::span<const float> v) {
  for (const float x : v)
    if (!std::isfinite(x)) return true;
  return false;
}

// Rounds `in` on `path` three ways (fp32 values, fp64 values, 16-bit codes
// where the format fits) and checks each report against the results.
void check(const watch_case& c, num::simd_path path, const std::vector<float>& in, std::uint64_t first_index,
           const std::string& where) {
  num::array_options o;
  o.target = c.target;
  o.spec = c.spec;
  o.seed = 7;
  o.stream = 3;
  o.first_index = first_index;
  o.want_counts = c.want_counts;
  o.want_non_finite = true;
  o.path = path;
  std::vector<float> out(in.size());
  const bool reported = num::round_array(in, out, o).non_finite;
  const bool expected = any_non_finite_value(out);
  EXPECT_EQ(reported, expected) << c.name << ", fp32 values, " << where;

  const std::vector<double> wide(in.begin(), in.end());
  EXPECT_EQ(num::round_array(wide, out, o).non_finite, any_non_finite_value(out)) << c.name << ", fp64, " << where;

  if (c.target.total_bits() <= 16) {
    std::vector<std::uint16_t> codes(in.size());
    const bool coded = num::encode_array(in, codes, o).non_finite;
    bool bad = false;
    for (const auto code : codes) bad = bad || !std::isfinite(num::to_float(c.target, code));
    EXPECT_EQ(coded, bad) << c.name << ", codes, " << where;
  }
  o.want_non_finite = false;
  EXPECT_FALSE(num::round_array(in, out, o).non_finite) << c.name << ", not asked, " << where;
}

class WantNonFinite : public ::testing::TestWithParam<num::simd_path> {};

TEST_P(WantNonFinite, ReportsANanOrInfiniteResultAtEveryPosition) {
  NUMLAB_REQUIRE_PATH(GetParam());
  using limits = std::numeric_limits<float>;
  // NaN, infinities, and finite inputs that overflow in some of the cases
  // (to infinity or, saturating or toward zero, to the largest finite).
  const float bad_values[] = {limits::quiet_NaN(), -limits::infinity(), limits::infinity(), 1e6f, -3e38f};
  for (const watch_case& c : cases())
    for (const std::size_t n : {std::size_t{1}, std::size_t{15}, std::size_t{67}, std::size_t{130}})
      for (std::size_t at = 0; at < n; at += (n > 20 ? 3 : 1))
        for (const float bad : bad_values) {
          std::vector<float> in(n);
          for (std::size_t i = 0; i < n; ++i) in[i] = 0.75f + static_cast<float>(i) * 0.5f;
          in[at] = bad;
          check(c, GetParam(), in, at % 5, std::to_string(bad) + " at " + std::to_string(at) + " of " +
                                               std::to_string(n));
        }
}

TEST_P(WantNonFinite, ReportsNothingForFiniteResults) {
  NUMLAB_REQUIRE_PATH(GetParam());
  for (const watch_case& c : cases()) {
    // The format's extremes and values around them, 200 elements.
    std::vector<float> in;
    for (int i = 0; i < 200; ++i) {
      const double big = c.target.max() * (i % 2 == 0 ? 1.0 : -1.0);
      in.push_back(static_cast<float>(i % 3 == 0 ? big : c.target.min_subnormal() * i));
    }
    check(c, GetParam(), in, 1, "finite extremes");
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, WantNonFinite, ::testing::ValuesIn(kernel_test::all_paths),
                         [](const auto& info) { return std::string(num::simd_path_name(info.param)); });

}  // namespace
