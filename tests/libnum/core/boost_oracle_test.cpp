// A second oracle, independent of MPFR: Boost.Multiprecision's cpp_bin_float
// with 256 bits computes add, mul, div and sqrt, and the result is rounded to
// the format by hand (nearest-even and toward zero, subnormals, overflow).
// Sums and products of the formats' operands are exact at 256 bits; a
// quotient or root that is not a format value or a midpoint lies more than
// 2^-60 (relative) away from all of them, far beyond 256-bit rounding error,
// so the hand rounding decides as the exact value would.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <random>

#include <libnum/arithmetic.hpp>

#include "oracle_check.hpp"

namespace {

using big = boost::multiprecision::number<
    boost::multiprecision::cpp_bin_float<256, boost::multiprecision::digit_base_2>>;

// x rounded into f (finite result or ±inf); an exact zero gets the sign IEEE
// 754 gives it (`zero_negative`), a nonzero one keeps its sign.
double round_by_hand(const big& x, const num::format& f, bool nearest_even, bool zero_negative) {
  if (x == 0) return zero_negative ? -0.0 : 0.0;
  const bool negative = x < 0;
  const big magnitude = abs(x);
  int e = 0;
  frexp(magnitude, &e);  // magnitude = m * 2^e, m in [1/2, 1)
  const int lead = e - 1;
  const int quantum = std::max(lead, f.emin) - (f.precision - 1);
  const big scaled = ldexp(magnitude, -quantum);
  big kept = floor(scaled);
  const big rest = scaled - kept;
  if (nearest_even && (rest > 0.5 || (rest == 0.5 && fmod(kept, big(2)) != 0))) kept += 1;
  double value = ldexp(kept, quantum).convert_to<double>();
  if (value > oracle::max_magnitude(f)) value = nearest_even ? HUGE_VAL : oracle::max_magnitude(f);
  return negative ? -value : value;
}

big to_big(const num::format& f, std::uint32_t bits) { return big(oracle::decode(f, bits).value()); }

void check_sample(const num::format& f) {
  oracle::mismatch_log log(num::format_name(f) + " vs Boost cpp_bin_float<256>: add/mul/div/sqrt, ne and rz");
  std::mt19937 gen(314159);
  const auto n = static_cast<std::uint32_t>(oracle::pattern_count(f));
  std::uniform_int_distribution<std::uint32_t> pattern(0, n - 1);
  const auto finite = [&] {
    for (;;) {
      const std::uint32_t b = pattern(gen);
      if (oracle::decode(f, b).what == oracle::kind::finite) return b;
    }
  };
  for (int i = 0; i < 20000; ++i) {
    const std::uint32_t a = finite(), b = finite();
    const big x = to_big(f, a), y = to_big(f, b);
    for (bool nearest_even : {true, false}) {
      const num::round_spec spec{nearest_even ? num::rounding::nearest_even : num::rounding::toward_zero};
      const auto check = [&](const char* op, num::rounded got, const big& exact, bool zero_negative) {
        const double want = round_by_hand(exact, f, nearest_even, zero_negative);
        const oracle::decoded d = oracle::decode(f, got.bits);
        const double value = d.value();
        // Without infinities (E4M3) an overflow to infinity is NaN.
        const bool agrees = std::isinf(want) && !f.infinities
                                ? d.is_nan()
                                : !d.is_nan() && value == want && std::signbit(value) == std::signbit(want);
        log.check(agrees, [&] {
          return num::format_name(f) + " " + op + "(" + oracle::hex(a) + ", " + oracle::hex(b) + ") " +
                 (nearest_even ? "ne" : "rz") + ": got " + std::to_string(value) + ", want " + std::to_string(want);
        });
      };
      // IEEE 754 6.3: a zero sum is negative only when both addends are (in
      // these modes); a zero product or quotient has the sign of the XOR;
      // sqrt(-0) = -0.
      const bool a_negative = oracle::decode(f, a).negative, b_negative = oracle::decode(f, b).negative;
      check("add", num::add(f, a, b, spec), x + y, a_negative && b_negative);
      check("mul", num::mul(f, a, b, spec), x * y, a_negative != b_negative);
      if (y != 0) check("div", num::div(f, a, b, spec), x / y, a_negative != b_negative);
      if (x >= 0) check("sqrt", num::sqrt(f, a, spec), sqrt(x), a_negative);
    }
  }
}

TEST(BoostOracle, Fp16Sample) { check_sample(num::binary16); }
TEST(BoostOracle, Bf16Sample) { check_sample(num::bfloat16_format); }
TEST(BoostOracle, E4m3Sample) { check_sample(num::fp8_e4m3); }

}  // namespace
