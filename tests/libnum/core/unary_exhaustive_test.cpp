// Every fp16 and bf16 bit pattern through sqrt, roundToIntegral and the
// integer conversions, in every rounding mode, against the MPFR oracle.
#include <gtest/gtest.h>

#include <libnum/arithmetic.hpp>
#include <libnum/convert.hpp>

#include "oracle_check.hpp"

namespace {

using oracle::mismatch_log;

std::string operand_text(const num::format& f, const char* op, std::uint32_t bits) {
  return num::format_name(f) + " " + op + "(" + oracle::hex(bits) + ")";
}

void check_sqrt(const num::format& f) {
  mismatch_log log(num::format_name(f) + " sqrt, all patterns x 7 modes x tininess/overflow variants");
  for (std::uint32_t bits = 0; bits < oracle::pattern_count(f); ++bits) {
    for (const oracle::mode_choice& m : oracle::modes_for_case(bits)) {
      const oracle::expected want = oracle::arithmetic(f, oracle::operation::sqrt, {bits, 0, 0}, m);
      oracle::check_variants(
          log, f, m, want, [&](const num::round_spec& s, std::uint32_t w) { return num::sqrt(f, bits, s, w); },
          [&] { return operand_text(f, "sqrt", bits); }, bits);
    }
  }
}

void check_round_to_integral(const num::format& f) {
  mismatch_log log(num::format_name(f) + " round_to_integral, all patterns x 7 modes x exact/quiet");
  for (std::uint32_t bits = 0; bits < oracle::pattern_count(f); ++bits) {
    for (const oracle::mode_choice& m : oracle::modes_for_case(bits)) {
      const num::rounded want = oracle::round_to_integral(f, bits, m);
      const num::round_spec spec{m.mode, m.random_bits};
      const auto describe = [&] { return operand_text(f, "round_to_integral", bits) + " " + oracle::describe_spec(spec, m.word); };
      log.check(num::round_to_integral(f, bits, spec, m.word), want, describe);
      // roundToIntegral without "Exact" never raises inexact.
      const num::rounded quiet_want{want.bits, want.raised & num::flags::invalid};
      log.check(num::round_to_integral(f, bits, spec, m.word, false), quiet_want, describe);
    }
  }
}

void check_to_integer(const num::format& f, int width) {
  mismatch_log log(num::format_name(f) + " to_int" + std::to_string(width) + ", all patterns x 7 modes");
  for (std::uint32_t bits = 0; bits < oracle::pattern_count(f); ++bits) {
    for (const oracle::mode_choice& m : oracle::modes_for_case(bits)) {
      const oracle::integer want = oracle::to_integer(f, bits, m, width);
      const num::round_spec spec{m.mode, m.random_bits};
      const num::integer_result got = width == 32 ? num::to_int32(f, bits, spec, m.word)
                                                  : num::to_int64(f, bits, spec, m.word);
      log.check(got.value == want.value && got.raised == want.raised, [&] {
        return operand_text(f, "to_int", bits) + " " + oracle::describe_spec(spec, m.word) + ": got " +
               std::to_string(got.value) + " {" + num::flags_to_string(got.raised) + "}, want " +
               std::to_string(want.value) + " {" + num::flags_to_string(want.raised) + "}";
      });
    }
  }
}

TEST(UnaryExhaustive, Fp16Sqrt) { check_sqrt(num::binary16); }
TEST(UnaryExhaustive, Bf16Sqrt) { check_sqrt(num::bfloat16_format); }
TEST(UnaryExhaustive, Fp16RoundToIntegral) { check_round_to_integral(num::binary16); }
TEST(UnaryExhaustive, Bf16RoundToIntegral) { check_round_to_integral(num::bfloat16_format); }
TEST(UnaryExhaustive, Fp16ToInt32) { check_to_integer(num::binary16, 32); }
TEST(UnaryExhaustive, Bf16ToInt32) { check_to_integer(num::bfloat16_format, 32); }
TEST(UnaryExhaustive, Fp16ToInt64) { check_to_integer(num::binary16, 64); }
TEST(UnaryExhaustive, Bf16ToInt64) { check_to_integer(num::bfloat16_format, 64); }

}  // namespace
