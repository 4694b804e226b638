// Every fp16 and bf16 bit pattern converted into the other 16-bit format,
// E4M3, E5M2, TF32, fp32 and double, in every rounding mode, against the MPFR
// oracle.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include <libnum/codec.hpp>
#include <libnum/convert.hpp>

#include "oracle_check.hpp"

namespace {

void check_conversion(const num::format& from, const num::format& to) {
  oracle::mismatch_log log(num::format_name(from) + " -> " + num::format_name(to) +
                           ", all patterns x 7 modes x tininess/overflow variants");
  for (std::uint32_t bits = 0; bits < oracle::pattern_count(from); ++bits) {
    for (const oracle::mode_choice& m : oracle::modes_for_case(bits)) {
      const oracle::expected want = oracle::convert(from, bits, to, m);
      oracle::check_variants(
          log, to, m, want,
          [&](const num::round_spec& s, std::uint32_t w) { return num::convert(from, bits, to, s, w); },
          [&] { return num::format_name(from) + " " + oracle::hex(bits) + " -> " + num::format_name(to); }, bits);
    }
  }
}

// to_double and to_float are exact: MPFR reads the value back from the
// pattern's fields; NaNs keep sign and payload, quiet.
void check_widening(const num::format& from) {
  const oracle::layout l(from);
  oracle::mismatch_log log(num::format_name(from) + " to_double/to_float, all patterns");
  for (std::uint32_t bits = 0; bits < oracle::pattern_count(from); ++bits) {
    const oracle::decoded d = oracle::decode(from, bits);
    const double got = num::to_double(from, bits);
    const float got_float = num::to_float(from, bits);
    const auto describe = [&] { return num::format_name(from) + " " + oracle::hex(bits); };
    if (d.is_nan()) {
      const std::uint32_t payload = from.infinities ? l.fraction(bits) : 0;  // E4M3's NaN has no payload
      const std::uint64_t want = (std::uint64_t{(bits & l.sign_mask) != 0} << 63) | (std::uint64_t{0xFFF} << 51) |
                                 (std::uint64_t{payload} << (52 - l.fraction_bits));
      const std::uint32_t want_float = ((bits & l.sign_mask) != 0 ? 0x80000000u : 0u) | 0x7FC00000u |
                                       (payload << (23 - l.fraction_bits));
      log.check(std::bit_cast<std::uint64_t>(got) == want && std::bit_cast<std::uint32_t>(got_float) == want_float,
                describe);
      continue;
    }
    oracle::mp exact(64), back(64);
    oracle::set_operand(exact, d);
    mpfr_set_d(back, got, MPFR_RNDN);
    const bool same_value = mpfr_equal_p(exact, back) != 0 && mpfr_signbit(exact) == mpfr_signbit(back);
    log.check(same_value && std::bit_cast<std::uint64_t>(static_cast<double>(got_float)) ==
                                std::bit_cast<std::uint64_t>(got),
              describe);
  }
}

TEST(ConversionExhaustive, Fp16ToBf16) { check_conversion(num::binary16, num::bfloat16_format); }
TEST(ConversionExhaustive, Bf16ToFp16) { check_conversion(num::bfloat16_format, num::binary16); }
TEST(ConversionExhaustive, Fp16ToE4m3) { check_conversion(num::binary16, num::fp8_e4m3); }
TEST(ConversionExhaustive, Bf16ToE4m3) { check_conversion(num::bfloat16_format, num::fp8_e4m3); }
TEST(ConversionExhaustive, Fp16ToE5m2) { check_conversion(num::binary16, num::fp8_e5m2); }
TEST(ConversionExhaustive, Bf16ToE5m2) { check_conversion(num::bfloat16_format, num::fp8_e5m2); }
TEST(ConversionExhaustive, Fp16ToTf32) { check_conversion(num::binary16, num::tf32); }
TEST(ConversionExhaustive, Bf16ToTf32) { check_conversion(num::bfloat16_format, num::tf32); }
TEST(ConversionExhaustive, Fp16ToFp32) { check_conversion(num::binary16, num::binary32); }
TEST(ConversionExhaustive, Bf16ToFp32) { check_conversion(num::bfloat16_format, num::binary32); }
TEST(ConversionExhaustive, Fp16ToDouble) { check_widening(num::binary16); }
TEST(ConversionExhaustive, Bf16ToDouble) { check_widening(num::bfloat16_format); }
TEST(ConversionExhaustive, E4m3AndE5m2ToDouble) {
  check_widening(num::fp8_e4m3);
  check_widening(num::fp8_e5m2);
}

}  // namespace
