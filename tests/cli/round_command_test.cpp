// `numlab round` against hand-derived roundings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "run_process.hpp"

namespace numlab::testing {
namespace {

TEST(RoundCommand, TutorialValueInFp16) {
  // 0.0004 * 2^22 = 1677.72, so nearest-even gives 1678 * 2^-22 (exponent -12,
  // fraction 1678 - 1024 = 654 = 0x28e): bits 0 00011 1010001110 = 0x0e8e.
  const process_result r = run_numlab({"round", "0.0004", "--format", "fp16", "--mode", "ne"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto row = row_starting_with(r.out, "0.0004");
  ASSERT_EQ(row.size(), 8u) << r.out;
  EXPECT_EQ(row[1], "ne");
  EXPECT_EQ(row[3], "0.000400066375732421875");
  EXPECT_EQ(row[4], "0x0e8e");
  EXPECT_EQ(row[7], "inexact");
  // (1678 * 2^-22 - 0.0004) = 6.6375732421875e-08; relative 1.6594e-04.
  EXPECT_NEAR(std::stod(row[5]), 6.6375732421875e-08, 1e-11);
  EXPECT_NEAR(std::stod(row[6]), 1.65939331e-04, 1e-7);
}

TEST(RoundCommand, ReadmeDemo) {
  const process_result r =
      run_numlab({"round", "0.0004", "0.25", "0.1", "1e-8", "--format", "fp16", "--mode", "ne"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 0.25 = 2^-2 exactly: exponent field 13, bits 0x3400.
  const auto quarter = row_starting_with(r.out, "0.25");
  ASSERT_EQ(quarter.size(), 8u) << r.out;
  EXPECT_EQ(quarter[4], "0x3400");
  EXPECT_EQ(quarter[7], "none");
  // 0.1 * 2^14 = 1638.4 -> 1638 * 2^-14 = 0.0999755859375; exponent -4, fraction 614: 0x2e66.
  const auto tenth = row_starting_with(r.out, "0.1");
  ASSERT_EQ(tenth.size(), 8u) << r.out;
  EXPECT_EQ(tenth[3], "0.0999755859375");
  EXPECT_EQ(tenth[4], "0x2e66");
  // 1e-8 is below half the smallest subnormal 2^-24 = 5.96e-8: zero, underflow.
  const auto tiny = row_starting_with(r.out, "1e-8");
  ASSERT_EQ(tiny.size(), 8u) << r.out;
  EXPECT_EQ(tiny[4], "0x0000");
  EXPECT_EQ(tiny[6], "-1");
  EXPECT_EQ(tiny[7], "underflow|inexact");
}

TEST(RoundCommand, EveryModeForOneValue) {
  // -3.3 in e4m3 lies between -3.5 (0xc6) and -3.25 (0xc5), spacing 0.25; nearer -3.25.
  const process_result r = run_numlab({"round", "-3.3", "--format", "e4m3", "--mode", "all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::pair<std::string, std::string>> expected{
      {"ne", "0xc5"}, {"na", "0xc5"}, {"rz", "0xc5"}, {"ru", "0xc5"}, {"rd", "0xc6"}, {"ro", "0xc5"}};
  for (const auto& [mode, bits] : expected) {
    auto row = row_starting_with(r.out, mode);
    if (row.empty()) row = row_starting_with(r.out, "-3.3");  // the first mode shares the value's line
    const auto at = std::find(row.begin(), row.end(), mode);
    ASSERT_NE(at, row.end()) << mode << '\n' << r.out;
    EXPECT_EQ(*(at + 3), bits) << mode;
  }
  EXPECT_FALSE(row_starting_with(r.out, "sr").empty()) << r.out;
}

TEST(RoundCommand, CustomFormatAndBf16) {
  // e3m2 (p 3, emin -2): 0.3 / 0.0625 = 4.8 -> 5 * 0.0625 = 0.3125.
  const process_result custom = run_numlab({"round", "0.3", "--format", "e3m2", "--mode", "ne"});
  ASSERT_EQ(custom.exit_code, 0) << custom.err;
  EXPECT_EQ(row_starting_with(custom.out, "0.3").at(3), "0.3125");
  // bf16 toward zero: 0.1 * 2^10 = 102.4 -> 102 * 2^-10 = 0.099609375 = 0x3dcc.
  const process_result bf16 = run_numlab({"round", "0.1", "--format", "bf16", "--mode", "rz"});
  ASSERT_EQ(bf16.exit_code, 0) << bf16.err;
  const auto row = row_starting_with(bf16.out, "0.1");
  EXPECT_EQ(row.at(3), "0.099609375");
  EXPECT_EQ(row.at(4), "0x3dcc");
}

TEST(RoundCommand, OverflowAndTininessOptions) {
  const process_result saturated =
      run_numlab({"round", "1e6", "--format", "fp16", "--mode", "ne", "--overflow", "saturate"});
  ASSERT_EQ(saturated.exit_code, 0) << saturated.err;
  EXPECT_EQ(row_starting_with(saturated.out, "1e6").at(4), "0x7bff");
  EXPECT_EQ(row_starting_with(saturated.out, "1e6").at(7), "overflow|inexact");
  // 2^-14 - 2^-26 rounds to 2^-14 (0x0400), tiny only before rounding.
  for (const auto& [tininess, flags] : {std::pair{"after", "inexact"}, std::pair{"before", "underflow|inexact"}}) {
    const process_result r =
        run_numlab({"round", "0x1.ffep-15", "--format", "fp16", "--mode", "ne", "--tininess", tininess});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto row = row_starting_with(r.out, "0x1.ffep-15");
    EXPECT_EQ(row.at(4), "0x0400") << tininess;
    EXPECT_EQ(row.at(7), flags) << tininess;
  }
}

TEST(RoundCommand, NanConventionOption) {
  // A NaN converted into fp16 keeps its sign and top payload bits by default
  // (decimal "nan" is the default NaN: quiet bit 0x0200 only); Arm's DN gives
  // the default NaN 0x7e00, CUDA the canonical NaN 0x7fff (every bit but the
  // sign); in fp32 0x7fc00000 and 0x7fffffff.
  const std::vector<std::tuple<const char*, const char*, const char*>> cases = {
      {"first-operand", "fp16", "0x7e00"}, {"x86", "fp16", "0x7e00"},     {"arm-dn", "fp16", "0x7e00"},
      {"cuda", "fp16", "0x7fff"},          {"cuda", "fp32", "0x7fffffff"}, {"arm-dn", "fp32", "0x7fc00000"},
      {"cuda", "e4m3", "0x7f"},            {"cuda", "bf16", "0x7fff"}};
  for (const auto& [nans, format, bits] : cases) {
    const process_result r = run_numlab({"round", "nan", "1", "--format", format, "--mode", "ne", "--nans", nans});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(row_starting_with(r.out, "nan").at(4), bits) << nans << ' ' << format;
    EXPECT_EQ(row_starting_with(r.out, "1").at(7), "none") << "a number is unchanged by the convention";
  }
  const process_result bad = run_numlab({"round", "nan", "--nans", "riscv"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(bad.out.empty()) << bad.out;
  EXPECT_NE(bad.err.find("round --nans: unknown NaN convention 'riscv'"), std::string::npos) << bad.err;
}

TEST(RoundCommand, StochasticSamplesMatchTheDefinition) {
  // 0.1 = 0.0999755859375 + 0.4 ulp (ulp 2^-14). With r = 2 random bits the
  // definition rounds up with probability floor(0.4 * 4) / 4 = 0.25.
  const long long n = 20000;
  const process_result r = run_numlab({"round", "0.1", "--format", "fp16", "--mode", "sr", "--bits", "2",
                                       "--samples", std::to_string(n), "--seed", "7"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto above = row_starting_with(r.out, "above");
  const auto below = row_starting_with(r.out, "below");
  ASSERT_EQ(above.size(), 5u) << r.out;
  ASSERT_EQ(below.size(), 5u) << r.out;
  EXPECT_EQ(above[2], "0x2e67");
  EXPECT_EQ(above[3], "0.25");
  EXPECT_EQ(below[3], "0.75");
  // Five standard deviations of a binomial frequency: 5 * sqrt(p(1-p)/n) = 0.0153.
  EXPECT_NEAR(std::stod(above[4]), 0.25, 5 * std::sqrt(0.25 * 0.75 / n));
  EXPECT_NEAR(std::stod(above[4]) + std::stod(below[4]), 1.0, 1e-3);
}

TEST(RoundCommand, BadInputExitsWithTwo) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"round", "abc", "--format", "fp16"},
           {"round", "1", "--format", "fp17"},
           {"round", "1", "--mode", "sideways"},
           {"round", "1", "--mode", "ne", "--samples", "10"},
           {"round", "1", "--bits", "33"},
           {"round", "1", "--overflow", "wrap"}}) {
    const process_result r = run_numlab(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << ' ' << args[2] << '\n' << r.out;
    EXPECT_FALSE(r.err.empty());
  }
  const process_result r = run_numlab({"round", "abc"});
  EXPECT_NE(r.err.find("abc"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace
}  // namespace numlab::testing
