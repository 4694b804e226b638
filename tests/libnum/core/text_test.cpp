// Formatting and parsing: shortest decimals that MPFR reads back to the same
// fp16 value (and no shorter decimal does), exact decimals, bit patterns, and
// decimal strings just off fp16 midpoints rounded as MPFR's mpfr_strtofr does.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include <libnum/text.hpp>

#include "oracle_check.hpp"

namespace {

const num::format& f16 = num::binary16;

// The value of f MPFR reads from `text`, nearest-even.
std::uint32_t mpfr_reads(const num::format& f, const std::string& text) {
  return oracle::from_text(f, text.c_str(), {}).under(f, {}).bits;
}

int significant_digits(const std::string& s) {
  int digits = 0;
  bool leading = true;
  for (char c : s) {
    if (c == 'e' || c == 'E') break;
    if (c < '0' || c > '9') continue;
    if (leading && c == '0') continue;
    leading = false;
    ++digits;
  }
  return digits;
}

// No decimal with one digit fewer reads back to `bits`: neither neighbour of
// the value at that many digits (if one did, the nearer of them would too).
bool shorter_reads_back(const num::format& f, double v, int digits, std::uint32_t bits) {
  if (digits <= 1) return false;
  char text[64];
  std::snprintf(text, sizeof text, "%.*e", digits - 2, v);  // digits - 1 significant digits
  std::string mantissa(text, std::strchr(text, 'e'));
  const int exponent = std::atoi(std::strchr(text, 'e') + 1) - (digits - 2);
  std::erase(mantissa, '.');
  const long long m = std::atoll(mantissa.c_str());
  for (long long candidate : {m - 1, m, m + 1}) {
    if (mpfr_reads(f, std::to_string(candidate) + "e" + std::to_string(exponent)) == bits) return true;
  }
  return false;
}

void check_shortest_decimals(const num::format& f) {
  oracle::mismatch_log log(num::format_name(f) + " to_shortest_decimal: MPFR reads it back, and nothing shorter");
  for (std::uint32_t bits = 0; bits < oracle::pattern_count(f); ++bits) {
    const std::string s = num::to_shortest_decimal(f, bits);
    const oracle::decoded d = oracle::decode(f, bits);
    if (d.is_nan()) {
      log.check(s == (d.negative ? "-nan" : "nan"), [&] { return oracle::hex(bits) + " -> " + s; });
      continue;
    }
    const bool reads_back = mpfr_reads(f, s) == bits;
    const bool shortest =
        d.what == oracle::kind::infinite || !shorter_reads_back(f, d.magnitude, significant_digits(s), bits);
    log.check(reads_back && shortest, [&] { return oracle::hex(bits) + " -> " + s; });
  }
}

TEST(Text, ShortestDecimalRoundTripsForAllFp16) { check_shortest_decimals(num::binary16); }
TEST(Text, ShortestDecimalRoundTripsForAllBf16) { check_shortest_decimals(num::bfloat16_format); }

TEST(Text, ShortestDecimalHandPicked) {
  EXPECT_EQ(num::to_shortest_decimal(f16, 0x3C00), "1");
  EXPECT_EQ(num::to_shortest_decimal(f16, 0x7BFF), "6.55e+04");  // 65500 is 4 from 65504, within half an ulp (16)
  EXPECT_EQ(num::to_shortest_decimal(f16, 0x3555), "0.3333");  // 0.333251953125; "0.333" is 1 ulp off
  EXPECT_EQ(num::to_shortest_decimal(f16, 0xFC00), "-inf");
  // 2^-6 = 0.015625 reads back from [2^-6 - 2^-18, 2^-6 + 2^-17]: 0.01563 lies
  // inside, although the nearest 4-digit decimal (0.01562, the tie to even) does not.
  EXPECT_EQ(num::to_shortest_decimal(f16, 0x2400), "0.01563");
}

TEST(Text, ExactDecimalIsTheValueForAllFp16) {
  oracle::mismatch_log log("fp16 to_exact_decimal equals the value (MPFR reads it exactly)");
  for (std::uint32_t bits = 0; bits < 0x7C00; ++bits) {
    const std::string s = num::to_exact_decimal(f16, bits);
    oracle::mp read(64), want(64, oracle::decode(f16, bits).magnitude);
    const int ternary = mpfr_strtofr(read, s.c_str(), nullptr, 10, MPFR_RNDN);
    log.check(ternary == 0 && mpfr_equal_p(read, want), [&] { return oracle::hex(bits) + " -> " + s; });
  }
  EXPECT_EQ(num::to_exact_decimal(f16, 0x0001), "0.000000059604644775390625");  // 2^-24
}

TEST(Text, BitPatternsAndHexFloats) {
  EXPECT_EQ(num::to_hex_bits(f16, 0x3C00), "0x3c00");
  EXPECT_EQ(num::to_hex_bits(num::fp8_e4m3, 0x7E), "0x7e");
  EXPECT_EQ(num::to_hex_bits(num::tf32, 0x1FC00), "0x1fc00");
  const num::rounded pattern = num::parse_value(f16, "0x3c00", {});
  EXPECT_EQ(pattern.bits, 0x3C00u);
  EXPECT_EQ(pattern.raised, num::flags::none);
  EXPECT_EQ(num::parse_value(f16, "0x7d01", {}).bits, 0x7D01u);  // a signalling NaN, kept as is
  EXPECT_EQ(num::parse_value(f16, "0x1.8p1", {}).bits, 0x4200u);  // hex float 3.0
  EXPECT_EQ(num::parse_value(f16, "-inf", {}).bits, 0xFC00u);
  // "nan" is the positive default NaN, "-nan" the negative one (the sign is
  // the text's, not that of whatever NaN the platform's 0/0 makes).
  EXPECT_EQ(num::parse_value(f16, "nan", {}).bits, 0x7E00u);
  EXPECT_EQ(num::parse_value(f16, "-nan", {}).bits, 0xFE00u);
  EXPECT_EQ(num::parse_value(num::binary32, "nan", {}).bits, 0x7FC00000u);
  const num::rounded tiny = num::parse_value(f16, "1e-8", {});
  EXPECT_EQ(tiny.bits, 0x0000u);
  EXPECT_EQ(tiny.raised, num::flags::underflow | num::flags::inexact);
  for (const char* bad : {"0x10000", "", "abc", "1.0.0", "--1", "+-1", "1e", "0x"}) {
    EXPECT_THROW(num::parse_value(f16, bad, {}), std::invalid_argument) << "'" << bad << "'";
  }
}

// Every seventh positive fp16 value v and its successor: the decimal of their
// midpoint, and decimals 10^-16 relative above and below it, in every mode.
TEST(Text, DecimalsJustOffMidpointsRoundLikeMpfr) {
  oracle::mismatch_log log("fp16 parse_value of decimals at and just off midpoints, 7 modes");
  std::uint64_t index = 0;
  for (std::uint32_t bits = 0; bits < 0x7BFF; bits += 7) {
    const double v = oracle::decode(f16, bits).magnitude;
    const double m = v + oracle::grid_step(f16, v) / 2;
    std::string at, below, above;
    if (m == std::floor(m)) {  // from 2048 on midpoints are integers
      at = std::to_string(static_cast<long long>(m));
      below = std::to_string(static_cast<long long>(m) - 1) + ".9999999999999999";
      above = at + ".0000000000000001";
    } else {
      char exact[96];
      oracle::mp midpoint(64, m);
      mpfr_snprintf(exact, sizeof exact, "%.30Rf", static_cast<mpfr_srcptr>(midpoint));  // <= 25 decimals
      at = exact;
      while (at.back() == '0') at.pop_back();
      below = at;
      below.back() = static_cast<char>(below.back() - 1);  // a fractional midpoint ends in 5
      below += "9999999999999999";
      above = at + "0000000000000001";
    }
    for (const std::string& text : {at, above, below, "-" + above}) {
      for (const oracle::mode_choice& m : oracle::modes_for_case(index++)) {
        const num::round_spec spec{m.mode, m.random_bits};
        const num::rounded want = oracle::from_text(f16, text.c_str(), m).under(f16, spec);
        log.check(num::parse_value(f16, text, spec, m.word), want,
                  [&] { return "parse '" + text + "' " + oracle::describe_spec(spec, m.word); });
      }
    }
  }
}

}  // namespace

namespace {

num::round_spec in_mode(num::rounding mode, int random_bits = 32) {
  num::round_spec spec;
  spec.mode = mode;
  spec.random_bits = random_bits;
  return spec;
}

// 0.1 lies between fp16 0x2e66 (0.0999755859375) and 0x2e67
// (0.10003662109375), nearer the first; between bf16 0x3dcc (0.099609375)
// and 0x3dcd (0.10009765625), nearer the second; between binary32
// 0x3dcccccc and 0x3dcccccd, nearer the second.
TEST(Text, DirectedRoundingParsesOfOneTenth) {
  using num::rounding;
  struct expectation {
    const num::format* f;
    rounding mode;
    std::uint32_t positive, negative;
  };
  const expectation cases[] = {
      {&num::binary16, rounding::nearest_even, 0x2E66, 0xAE66},
      {&num::binary16, rounding::toward_negative, 0x2E66, 0xAE67},
      {&num::binary16, rounding::toward_positive, 0x2E67, 0xAE66},
      {&num::binary16, rounding::toward_zero, 0x2E66, 0xAE66},
      {&num::binary16, rounding::to_odd, 0x2E67, 0xAE67},
      {&num::bfloat16_format, rounding::nearest_even, 0x3DCD, 0xBDCD},
      {&num::bfloat16_format, rounding::toward_negative, 0x3DCC, 0xBDCD},
      {&num::bfloat16_format, rounding::toward_positive, 0x3DCD, 0xBDCC},
      {&num::binary32, rounding::nearest_even, 0x3DCCCCCD, 0xBDCCCCCD},
      {&num::binary32, rounding::toward_negative, 0x3DCCCCCC, 0xBDCCCCCD},
      {&num::binary32, rounding::toward_zero, 0x3DCCCCCC, 0xBDCCCCCC},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(num::parse_value(*c.f, "0.1", in_mode(c.mode)).bits, c.positive)
        << num::format_name(*c.f) << " " << static_cast<int>(c.mode);
    EXPECT_EQ(num::parse_value(*c.f, "-0.1", in_mode(c.mode)).bits, c.negative)
        << num::format_name(*c.f) << " " << static_cast<int>(c.mode);
  }
}

TEST(Text, DirectedRoundingParsesBeyondTheDoubleRange) {
  using num::rounding;
  EXPECT_EQ(num::parse_value(f16, "1e-400", in_mode(rounding::toward_positive)).bits, 0x0001u);
  EXPECT_EQ(num::parse_value(f16, "1e-400", in_mode(rounding::toward_negative)).bits, 0x0000u);
  EXPECT_EQ(num::parse_value(f16, "-1e-400", in_mode(rounding::toward_negative)).bits, 0x8001u);
  EXPECT_EQ(num::parse_value(f16, "1e400", in_mode(rounding::toward_zero)).bits, 0x7BFFu);
  EXPECT_EQ(num::parse_value(f16, "1e400", in_mode(rounding::toward_positive)).bits, 0x7C00u);
  EXPECT_EQ(num::parse_value(f16, "-1e400", in_mode(rounding::toward_positive)).bits, 0xFBFFu);
}

TEST(Text, StochasticParseSeesBitsBelowADouble) {
  // 1 + 7 * 2^-55 (exactly this decimal) needs 56 bits. Into binary32 the
  // discarded fraction is 7 * 2^-32 ulp, so with r = 32 it rounds up exactly
  // when R >= 2^32 - 7: word 0xfffffff9 goes up, 0xfffffff8 does not.
  const std::string x = "1.0000000000000001942890293094023945741355419158935546875";
  const auto sr = in_mode(num::rounding::stochastic, 32);
  EXPECT_EQ(num::parse_value(num::binary32, x, sr, 0xFFFFFFF9u).bits, 0x3F800001u);
  EXPECT_EQ(num::parse_value(num::binary32, x, sr, 0xFFFFFFF8u).bits, 0x3F800000u);
  EXPECT_EQ(num::parse_value(num::binary32, "-" + x, sr, 0xFFFFFFF9u).bits, 0xBF800001u);
  // A directed mode needs only the sticky part of it.
  EXPECT_EQ(num::parse_value(num::binary32, x, in_mode(num::rounding::toward_positive)).bits, 0x3F800001u);
  EXPECT_EQ(num::parse_value(num::binary32, x, in_mode(num::rounding::toward_zero)).bits, 0x3F800000u);
}

}  // namespace
