// float and double rounded once into fp16 / bf16, against the MPFR oracle, in
// every rounding mode: a dense sample of all float patterns plus the boundary
// regions (max, min normal, subnormals, midpoints), and doubles just off fp16
// midpoints, where rounding through float first would be wrong. The
// exhaustive float sweep is in slow/.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <libnum/convert.hpp>

#include "oracle_check.hpp"

namespace {

void check_doubles(const num::format& f, const std::vector<double>& inputs, const std::string& what) {
  oracle::mismatch_log log(num::format_name(f) + " from " + what + " (" + std::to_string(inputs.size()) +
                           " inputs x 7 modes x tininess/overflow variants)");
  std::uint64_t index = 0;
  for (double x : inputs) {
    ++index;
    for (const oracle::mode_choice& m : oracle::modes_for_case(index)) {
      const oracle::expected want = oracle::from_value(f, x, m);
      oracle::check_variants(
          log, f, m, want,
          [&](const num::round_spec& s, std::uint32_t w) {
            return what == "float" ? num::from_float(f, static_cast<float>(x), s, w)
                                               : num::from_double(f, x, s, w);
          },
          [&] { return num::format_name(f) + " from " + what + " " + oracle::hex(std::bit_cast<std::uint64_t>(x)); }, index);
    }
  }
}

// Float patterns: every 2^16-th one (with a moving offset), and +-64 patterns
// around each boundary of f, both signs.
std::vector<double> float_sample(const num::format& f) {
  std::vector<double> xs;
  for (std::uint64_t i = 0; i < (std::uint64_t{1} << 16); ++i) {
    const auto bits = static_cast<std::uint32_t>((i << 16) | ((i * 40503u) & 0xFFFF));
    const float x = std::bit_cast<float>(bits);
    if (!std::isnan(x)) xs.push_back(x);
  }
  const double max = oracle::max_magnitude(f);
  const double min_normal = std::ldexp(1.0, f.emin), min_sub = std::ldexp(1.0, f.emin - f.precision + 1);
  std::vector<double> centres = {max, max + std::ldexp(1.0, f.emax - f.precision),  // overflow midpoint
                                 std::ldexp(1.0, f.emax + 1), min_normal, min_normal - min_sub / 2,
                                 min_sub, min_sub / 2, min_sub * 1.5, 1.0, 1.0 + std::ldexp(1.0, -f.precision)};
  std::mt19937 gen(7);
  for (int i = 0; i < 64; ++i) {  // midpoints between random neighbours of f
    const double v = std::ldexp(1.0 + std::ldexp(static_cast<double>(gen() % (1u << (f.precision - 1))), 1 - f.precision),
                                static_cast<int>(gen() % static_cast<unsigned>(f.emax - f.emin + 1)) + f.emin);
    centres.push_back(v + oracle::grid_step(f, v) / 2);
  }
  for (double c : centres) {
    const auto centre = std::bit_cast<std::uint32_t>(static_cast<float>(c));
    for (std::uint32_t k = centre - 64; k != centre + 65; ++k) {
      const float x = std::bit_cast<float>(k);
      if (std::isnan(x)) continue;
      xs.push_back(x);
      xs.push_back(-x);
    }
  }
  return xs;
}

TEST(FloatConversion, Fp32ToFp16DenseSampleAndBoundaries) {
  check_doubles(num::binary16, float_sample(num::binary16), "float");
}
TEST(FloatConversion, Fp32ToBf16DenseSampleAndBoundaries) {
  check_doubles(num::bfloat16_format, float_sample(num::bfloat16_format), "float");
}

// Every fourth fp16 midpoint m, with doubles m, m +- 1 ulp(double) and m +-
// m*2^-40: the last are float-rounded to m itself, so converting through
// float would see a tie where there is none.
TEST(FloatConversion, Fp64ToFp16NearMidpoints) {
  std::vector<double> xs;
  for (std::uint32_t bits = 0; bits < 0x7C00; bits += 4) {
    const double v = oracle::decode(num::binary16, bits).magnitude;
    const double m = v + oracle::grid_step(num::binary16, v) / 2;
    for (double x : {m, std::nextafter(m, 0.0), std::nextafter(m, 1e300), m * (1 + std::ldexp(1.0, -40)),
                     m * (1 - std::ldexp(1.0, -40))}) {
      xs.push_back(x);
      xs.push_back(-x);
    }
  }
  check_doubles(num::binary16, xs, "double");
}

TEST(FloatConversion, Fp64ToFp16WideRandomAndSpecials) {
  std::vector<double> xs = {0.0, -0.0, HUGE_VAL, -HUGE_VAL, 1e-300, -1e-300, 4.9e-324, 1e300, 65519.99, 65520.0,
                            std::numeric_limits<double>::quiet_NaN(), std::bit_cast<double>(0x7FF4000000000001ull),
                            std::bit_cast<double>(0xFFF8000000000123ull)};
  std::mt19937_64 gen(99);
  for (int i = 0; i < 20000; ++i) {
    xs.push_back(std::ldexp(std::uniform_real_distribution<double>(-2, 2)(gen), static_cast<int>(gen() % 80) - 50));
  }
  oracle::mismatch_log nan_log("fp16 from double NaNs (sign, top payload bits, quiet)");
  for (double x : xs) {
    if (!std::isnan(x)) continue;
    const auto b = std::bit_cast<std::uint64_t>(x);
    const bool signaling = (b & (std::uint64_t{1} << 51)) == 0;
    const std::uint32_t want = ((b >> 63) != 0 ? 0x8000u : 0u) | 0x7E00u | static_cast<std::uint32_t>((b >> 42) & 0x3FF);
    const num::rounded got = num::from_double(num::binary16, x, {});
    nan_log.check(got, {want, signaling ? num::flags::invalid : num::flags::none},
                  [&] { return "fp16 from double " + oracle::hex(b); });
  }
  std::erase_if(xs, [](double x) { return std::isnan(x); });
  check_doubles(num::binary16, xs, "double");
}

// The double-rounding trap by hand: 1 + 2^-11 + 2^-40 is just above the
// midpoint of 1 and 1 + 2^-10. Through float it would become the midpoint and
// round to even (1.0); rounded once it is 1 + 2^-10.
TEST(FloatConversion, Fp64ToFp16RoundsOnceHandDerived) {
  const double x = 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(num::from_double(num::binary16, x, {}).bits, 0x3C01u);
  EXPECT_EQ(num::from_float(num::binary16, static_cast<float>(x), {}).bits, 0x3C00u);
}

}  // namespace
