// `numlab testfloat` against hand-derived results. Each expected line is
// "operands result flags" with TestFloat's flag bits: 01 inexact, 02 underflow,
// 04 overflow, 08 divide-by-zero, 10 invalid.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "reference_codec.hpp"
#include "run_process.hpp"

namespace numlab::testing {
namespace {

// The output line numlab writes for one input line of `function` under `options`.
std::string evaluate(const std::string& function, const std::string& operands,
                     const std::vector<std::string>& options = {}) {
  std::vector<std::string> args{"testfloat", function};
  args.insert(args.end(), options.begin(), options.end());
  const process_result r = run_numlab(args, operands + "\n");
  EXPECT_EQ(r.exit_code, 0) << function << ' ' << operands << ": " << r.err;
  const auto lines = lines_of(r.out);
  EXPECT_EQ(lines.size(), 1u) << r.out;
  return lines.empty() ? "" : lines.front();
}

struct hand_case {
  const char* function;
  const char* operands;
  std::vector<std::string> options;
  const char* expected;
  const char* why;
};

class HandDerived : public ::testing::TestWithParam<hand_case> {};

TEST_P(HandDerived, MatchesExpectedLine) {
  const hand_case& c = GetParam();
  EXPECT_EQ(evaluate(c.function, c.operands, c.options), c.expected) << c.why;
}

const std::vector<std::string> none{};

std::string case_name(const ::testing::TestParamInfo<hand_case>& info) {
  return std::string(info.param.function) + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(
    F16, HandDerived,
    ::testing::Values(
        hand_case{"f16_add", "3C00 3C00", none, "3C00 3C00 4000 00", "1 + 1 = 2 exactly"},
        hand_case{"f16_add", "7BFF 7BFF", none, "7BFF 7BFF 7C00 05", "65504 + 65504 overflows to inf"},
        hand_case{"f16_add", "7BFF 7BFF", {"-rminMag"}, "7BFF 7BFF 7BFF 05", "toward zero overflow gives max"},
        hand_case{"f16_sub", "3C00 3C00", {"-rmin"}, "3C00 3C00 8000 00", "x - x is -0 rounding down"},
        hand_case{"f16_mul", "0001 3800", none, "0001 3800 0000 03", "2^-24 * 0.5 ties to 0: underflow"},
        hand_case{"f16_mul", "0001 3800", {"-rnear_maxMag"}, "0001 3800 0001 03", "the tie goes away from 0"},
        hand_case{"f16_div", "3C00 0000", none, "3C00 0000 7C00 08", "1 / 0 = inf, divide-by-zero"},
        hand_case{"f16_div", "3C00 4200", none, "3C00 4200 3555 01", "1/3 = 1.0101010101|01.. x 2^-2"},
        hand_case{"f16_div", "3C00 4200", {"-rmax"}, "3C00 4200 3556 01", "1/3 rounded up"},
        hand_case{"f16_sqrt", "4400", none, "4400 4000 00", "sqrt 4 = 2"},
        hand_case{"f16_sqrt", "8000", none, "8000 8000 00", "sqrt -0 = -0"},
        hand_case{"f16_mulAdd", "3C00 3C00 BC00", none, "3C00 3C00 BC00 0000 00", "1 * 1 - 1 = +0"},
        hand_case{"f16_mulAdd", "7BFF 4000 FBFF", none, "7BFF 4000 FBFF 7BFF 00",
                  "65504 * 2 - 65504 = 65504: one rounding, no intermediate overflow"},
        hand_case{"f16_eq", "3C00 3C00", none, "3C00 3C00 1 00", "1 == 1"},
        hand_case{"f16_eq", "7E00 7E00", none, "7E00 7E00 0 00", "quiet NaN: unequal, quiet"},
        hand_case{"f16_eq", "7D00 3C00", none, "7D00 3C00 0 10", "signalling NaN raises invalid"},
        hand_case{"f16_eq_signaling", "7E00 3C00", none, "7E00 3C00 0 10", "any NaN raises invalid"},
        hand_case{"f16_lt", "7E00 3C00", none, "7E00 3C00 0 10", "lt signals on a quiet NaN"},
        hand_case{"f16_lt_quiet", "7E00 3C00", none, "7E00 3C00 0 00", "lt_quiet does not"},
        hand_case{"f16_le_quiet", "7D00 3C00", none, "7D00 3C00 0 10", "but does on a signalling NaN"},
        hand_case{"f16_le", "8000 0000", none, "8000 0000 1 00", "-0 <= +0"},
        hand_case{"f16_lt", "8000 0000", none, "8000 0000 0 00", "-0 < +0 is false"},
        hand_case{"f16_lt", "3C00 4000", {"-rmin"}, "3C00 4000 1 00", "1 < 2; rounding is irrelevant"},
        hand_case{"f16_roundToInt", "3E00", none, "3E00 4000 00", "1.5 ties to 2; -notexact by default"},
        hand_case{"f16_roundToInt", "3E00", {"-exact"}, "3E00 4000 01", "-exact raises inexact"},
        hand_case{"f16_roundToInt", "3E00", {"-rodd"}, "3E00 3C00 00", "TestFloat's -rodd is minMag here"},
        hand_case{"f16_roundToInt", "BA00", {"-rmin"}, "BA00 BC00 00", "-0.75 down to -1"},
        hand_case{"f16_to_i32", "3E00", {"-rnear_even"}, "3E00 00000002 00", "1.5 -> 2, no inexact"},
        hand_case{"f16_to_i32", "3E00", {"-rnear_even", "-exact"}, "3E00 00000002 01", "-exact: inexact"},
        hand_case{"f16_to_i32", "BE00", {"-rminMag"}, "BE00 FFFFFFFF 00", "-1.5 toward zero = -1"},
        hand_case{"f16_to_i32", "3E00", {"-rodd"}, "3E00 00000001 00", "-rodd acts as minMag"},
        hand_case{"f16_to_i32_r_minMag", "3E00", {"-rmax"}, "3E00 00000001 00", "minMag whatever -r says"},
        hand_case{"f16_to_i64", "7BFF", none, "7BFF 000000000000FFE0 00", "65504 = 0xFFE0"},
        hand_case{"i32_to_f16", "00000801", none, "00000801 6800 01", "2049 ties to 2048 (even)"},
        hand_case{"i32_to_f16", "FFFFFFFF", none, "FFFFFFFF BC00 00", "-1"},
        hand_case{"i32_to_f16", "00010000", none, "00010000 7C00 05", "65536 > 65520 overflows"},
        hand_case{"i64_to_f16", "8000000000000000", none, "8000000000000000 FC00 05", "-2^63 overflows"},
        hand_case{"f32_to_f16", "33000001", {"-rnear_even"}, "33000001 0001 03",
                  "just above 2^-25 rounds up to the smallest subnormal"},
        hand_case{"f32_to_f16", "33000000", none, "33000000 0000 03", "2^-25 ties to 0"},
        hand_case{"f32_to_f16", "477FF000", none, "477FF000 7C00 05", "65520 ties away from odd 65504"},
        hand_case{"f32_to_f16", "477FF000", {"-rminMag"}, "477FF000 7BFF 01",
                  "toward zero 65520 gives max even with an unbounded exponent: no overflow"},
        hand_case{"f32_to_f16", "387FF000", {"-tininessafter"}, "387FF000 0400 01",
                  "2^-14 - 2^-26 rounds to 2^-14; with unbounded exponent too, so not tiny"},
        hand_case{"f32_to_f16", "387FF000", {"-tininessbefore"}, "387FF000 0400 03",
                  "the same value is tiny before rounding"},
        hand_case{"f64_to_f16", "3FF0000000000001", none, "3FF0000000000001 3C00 01", "1 + 2^-52"},
        hand_case{"f64_to_f16", "3FF0000000000001", {"-rmax"}, "3FF0000000000001 3C01 01", "rounded up"},
        hand_case{"f16_to_f32", "0001", none, "0001 33800000 00", "2^-24 exactly"},
        hand_case{"f16_to_f64", "0400", none, "0400 3F10000000000000 00", "2^-14 exactly"}),
    case_name);

INSTANTIATE_TEST_SUITE_P(
    BF16, HandDerived,
    ::testing::Values(
        hand_case{"bf16_add", "3F80 3F80", none, "3F80 3F80 4000 00", "1 + 1 = 2"},
        hand_case{"bf16_add", "7F7F 7F7F", none, "7F7F 7F7F 7F80 05", "max + max overflows"},
        hand_case{"bf16_add", "3F80 3B80", none, "3F80 3B80 3F80 01", "1 + 2^-8 ties to 1"},
        hand_case{"bf16_add", "3F80 3B80", {"-rmax"}, "3F80 3B80 3F81 01", "rounded up: 1 + 2^-7"},
        hand_case{"bf16_div", "3F80 0000", none, "3F80 0000 7F80 08", "1 / 0"},
        hand_case{"bf16_sqrt", "4080", none, "4080 4000 00", "sqrt 4 = 2"},
        hand_case{"bf16_mul", "0001 3F00", none, "0001 3F00 0000 03", "2^-133 * 0.5 ties to 0"},
        hand_case{"bf16_mulAdd", "3F80 3F80 3F80", none, "3F80 3F80 3F80 4000 00", "1 * 1 + 1"},
        hand_case{"bf16_lt", "3F80 4000", none, "3F80 4000 1 00", "1 < 2"},
        hand_case{"bf16_eq_signaling", "7FC0 7FC0", none, "7FC0 7FC0 0 10", "quiet NaN, signalling eq"},
        hand_case{"bf16_roundToInt", "3FC0", none, "3FC0 4000 00", "1.5 -> 2"},
        hand_case{"bf16_roundToInt", "3FC0", {"-exact"}, "3FC0 4000 01", "-exact"},
        hand_case{"bf16_to_i32", "3FC0", none, "3FC0 00000002 00", "1.5 -> 2"},
        hand_case{"bf16_to_i64", "BFC0", {"-rmin", "-exact"}, "BFC0 FFFFFFFFFFFFFFFE 01", "-1.5 down to -2"},
        hand_case{"i32_to_bf16", "00000101", none, "00000101 4380 01", "257 ties to 256"},
        hand_case{"i64_to_bf16", "0000000000000103", none, "0000000000000103 4382 01", "259 ties to 260"},
        hand_case{"f32_to_bf16", "3F808000", none, "3F808000 3F80 01", "1 + 2^-8 ties to 1"},
        hand_case{"f32_to_bf16", "3F808001", none, "3F808001 3F81 01", "just above the tie"},
        hand_case{"f32_to_bf16", "7F7FFFFF", none, "7F7FFFFF 7F80 05", "fp32 max overflows bf16"},
        hand_case{"f32_to_bf16", "7F7FFFFF", {"-rminMag"}, "7F7FFFFF 7F7F 01",
                  "toward zero fp32 max truncates to bf16 max: inexact, no overflow"},
        hand_case{"bf16_to_f32", "0001", none, "0001 00010000 00", "bf16 is fp32's top half"},
        hand_case{"bf16_to_f64", "3F80", none, "3F80 3FF0000000000000 00", "1"}),
    case_name);

using oracle::is_f16_nan;

TEST(TestfloatCommand, InvalidOperationsGiveAQuietNanAndInvalid) {
  // TestFloat accepts any NaN here (without -checkNaNs), so the test does too.
  for (const auto& [function, operands] : std::vector<std::pair<std::string, std::string>>{
           {"f16_sqrt", "BC00"}, {"f16_div", "0000 0000"}, {"f16_mul", "7C00 0000"}, {"f16_add", "7C00 FC00"}}) {
    const std::string line = evaluate(function, operands);
    const std::string result = line.substr(operands.size() + 1, 4);
    EXPECT_TRUE(is_f16_nan(std::stoul(result, nullptr, 16))) << function << ": " << line;
    EXPECT_TRUE((std::stoul(result, nullptr, 16) & 0x0200) != 0) << "quiet: " << line;
    EXPECT_EQ(line.substr(line.size() - 2), "10") << line;
  }
}

TEST(TestfloatCommand, SignallingNanWidensQuietWithInvalid) {
  const std::string line = evaluate("f16_to_f32", "7D00");
  const std::uint32_t bits = static_cast<std::uint32_t>(std::stoul(line.substr(5, 8), nullptr, 16));
  EXPECT_EQ(bits & 0x7FC00000u, 0x7FC00000u) << "a quiet fp32 NaN: " << line;
  EXPECT_EQ(line.substr(line.size() - 2), "10");
}

TEST(TestfloatCommand, OutOfRangeToIntegerIsInvalidWithAnExtremeValue) {
  // TestFloat accepts either extreme integer when only invalid is raised.
  const std::string line = evaluate("f16_to_i32", "7C00");
  const std::string value = line.substr(5, 8);
  EXPECT_TRUE(value == "7FFFFFFF" || value == "80000000") << line;
  EXPECT_EQ(line.substr(line.size() - 2), "10");
}

// --nans (docs/NUMERICS.md "NaNs"), derived by hand from the fields: fp16
// sign 0x8000, exponent 0x7C00, quiet bit 0x0200; the default NaN sets only the
// quiet bit, the canonical NaN every bit but the sign; x86's invalid result is
// the negative default NaN ("QNaN floating-point indefinite").
const std::vector<std::string> x86{"--nans", "x86"}, arm{"--nans", "arm-dn"}, cuda{"--nans", "cuda"},
    first{"--nans", "first-operand"};

INSTANTIATE_TEST_SUITE_P(
    NanConventions, HandDerived,
    ::testing::Values(
        hand_case{"f16_add", "7C00 FC00", first, "7C00 FC00 7E00 10", "inf - inf: +qNaN, invalid"},
        hand_case{"f16_add", "7C00 FC00", x86, "7C00 FC00 FE00 10", "x86 creates the negative default NaN"},
        hand_case{"f16_add", "7C00 FC00", arm, "7C00 FC00 7E00 10", "Arm's default NaN"},
        hand_case{"f16_add", "7C00 FC00", cuda, "7C00 FC00 7FFF 10", "the canonical NaN"},
        hand_case{"f16_mul", "FD01 3C00", none, "FD01 3C00 FF01 10", "sNaN -payload 0x101, quieted: 0xFF01"},
        hand_case{"f16_mul", "FD01 3C00", x86, "FD01 3C00 FF01 10", "x86 propagates the first operand too"},
        hand_case{"f16_mul", "FD01 3C00", arm, "FD01 3C00 7E00 10", "Arm DN drops sign and payload"},
        hand_case{"f16_mul", "FD01 3C00", cuda, "FD01 3C00 7FFF 10", "CUDA too, into the canonical NaN"},
        hand_case{"f16_add", "3C00 FE05", none, "3C00 FE05 FE05 00", "the first NaN operand is the second"},
        hand_case{"f16_add", "3C00 FE05", cuda, "3C00 FE05 7FFF 00", "quiet NaN operand: no flag"},
        hand_case{"f16_sqrt", "BC00", x86, "BC00 FE00 10", "sqrt(-1) is invalid"},
        hand_case{"f16_sqrt", "BC00", cuda, "BC00 7FFF 10", "sqrt(-1) on a GPU"},
        hand_case{"f16_mulAdd", "0000 7C00 3C00", arm, "0000 7C00 3C00 7E00 10", "0 * inf + 1 is invalid"},
        hand_case{"f32_to_f16", "FFC00001", none, "FFC00001 FE00 00", "sign and top payload bits kept"},
        hand_case{"f32_to_f16", "FFC00001", arm, "FFC00001 7E00 00", "converted NaN: the default NaN"},
        hand_case{"f32_to_f16", "FFC00001", cuda, "FFC00001 7FFF 00", "converted NaN: the canonical NaN"},
        hand_case{"f16_to_f32", "FE01", none, "FE01 FFC02000 00", "payload 0x201 << 13 below fp32's exponent"},
        hand_case{"f16_to_f32", "FE01", arm, "FE01 7FC00000 00", "fp32's default NaN"},
        hand_case{"f16_to_f32", "7D00", cuda, "7D00 7FFFFFFF 10", "sNaN widened: canonical, invalid"},
        hand_case{"f16_to_f64", "FE01", none, "FE01 FFF8040000000000 00", "payload 0x201 << 42"},
        hand_case{"f16_to_f64", "FE01", arm, "FE01 7FF8000000000000 00", "fp64's default NaN"},
        hand_case{"f16_to_f64", "FE01", cuda, "FE01 7FFFFFFFFFFFFFFF 00", "fp64's canonical NaN"},
        hand_case{"bf16_add", "7F80 FF80", x86, "7F80 FF80 FFC0 10", "bf16: sign 0x8000, quiet bit 0x0040"},
        hand_case{"bf16_add", "7F80 FF80", arm, "7F80 FF80 7FC0 10", "bf16's default NaN"},
        hand_case{"bf16_add", "7F80 FF80", cuda, "7F80 FF80 7FFF 10", "bf16's canonical NaN"},
        hand_case{"bf16_add", "3F80 3F80", cuda, "3F80 3F80 4000 00", "no NaN: the convention changes nothing"}),
    case_name);

TEST(TestfloatCommand, UnknownNanConventionNamesTheOptionAndValue) {
  const process_result r = run_numlab({"testfloat", "f16_add", "--nans", "riscv"}, "7C00 FC00\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("testfloat --nans: unknown NaN convention 'riscv'"), std::string::npos) << r.err;
}

TEST(TestfloatCommand, ProcessesManyLinesIgnoringTrailingFieldsAndCase) {
  // testfloat_gen with a function name appends its expected result and flags.
  const process_result r = run_numlab({"testfloat", "f16_mul"}, "3c00 4000 4000 00\r\n3800 3800\t3400 00\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "3C00 4000 4000 00\n3800 3800 3400 00\n");
}

TEST(TestfloatCommand, MalformedLineStopsWithItsNumberAndNoOutputForIt) {
  const process_result r = run_numlab({"testfloat", "f16_add"}, "3C00 3C00\n3C00 3C0G\n3C00 3C00\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "3C00 3C00 4000 00\n") << "only the line before the bad one";
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("3C0G"), std::string::npos) << r.err;
}

TEST(TestfloatCommand, MissingOperandIsMalformed) {
  const process_result r = run_numlab({"testfloat", "f16_mulAdd"}, "3C00 3C00 3C00\n\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines_of(r.out).size(), 1u);
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
}

TEST(TestfloatCommand, OperandWiderThanItsTypeIsMalformed) {
  const process_result r = run_numlab({"testfloat", "f16_sqrt"}, "13C00\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("line 1"), std::string::npos) << r.err;
}

TEST(TestfloatCommand, UnknownFunctionAndOptionExitWithTwo) {
  const process_result unknown = run_numlab({"testfloat", "f16_frobnicate"}, "3C00\n");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(unknown.out.empty());
  EXPECT_NE(unknown.err.find("f16_frobnicate"), std::string::npos) << unknown.err;
  const process_result option = run_numlab({"testfloat", "f16_add", "-rsideways"}, "3C00 3C00\n");
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_TRUE(option.out.empty());
  EXPECT_NE(option.err.find("-rsideways"), std::string::npos) << option.err;
}

}  // namespace
}  // namespace numlab::testing
