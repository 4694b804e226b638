// `numlab formats` against the formats' hand-derived extremes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run_process.hpp"

namespace numlab::testing {
namespace {

// The lines of the block that starts with "<name>:" (blocks end at a blank line).
std::vector<std::string> block_of(const std::string& text, const std::string& name) {
  std::vector<std::string> block;
  bool inside = false;
  for (const std::string& line : lines_of(text)) {
    if (line.rfind(name + ":", 0) == 0) inside = true;
    else if (line.empty()) inside = false;
    if (inside) block.push_back(line);
  }
  return block;
}

// The line of `block` whose label (first words) is `label`.
std::string line_of(const std::vector<std::string>& block, const std::string& label) {
  for (const std::string& line : block) {
    if (line.rfind("  " + label + "  ", 0) == 0) return line;
  }
  return {};
}


TEST(FormatsCommand, BuiltInExtremes) {
  const process_result r = run_numlab({"formats"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // fp16: max (2 - 2^-10) * 2^15 = 65504, min normal 2^-14, min subnormal 2^-24, epsilon 2^-10.
  const auto fp16 = block_of(r.out, "fp16");
  ASSERT_FALSE(fp16.empty()) << r.out;
  EXPECT_TRUE(contains(line_of(fp16, "max"), " 65504 ")) << line_of(fp16, "max");
  EXPECT_TRUE(contains(line_of(fp16, "max"), "(2 - 2^-10) * 2^15"));
  EXPECT_TRUE(contains(line_of(fp16, "min normal"), "6.103515625e-05"));
  EXPECT_TRUE(contains(line_of(fp16, "min normal"), "2^-14"));
  EXPECT_TRUE(contains(line_of(fp16, "min subnormal"), "2^-24"));
  EXPECT_TRUE(contains(line_of(fp16, "epsilon"), "0.0009765625"));
  EXPECT_TRUE(contains(line_of(fp16, "bits"), "16 = 1 sign + 5 exponent + 10 fraction"));
  // e4m3: the all-ones significand at emax is NaN, so max = 1.75 * 2^8 = 448.
  const auto e4m3 = block_of(r.out, "e4m3");
  ASSERT_FALSE(e4m3.empty()) << r.out;
  EXPECT_TRUE(contains(line_of(e4m3, "max"), " 448 ")) << line_of(e4m3, "max");
  EXPECT_TRUE(contains(line_of(e4m3, "min subnormal"), "2^-9"));
  EXPECT_TRUE(contains(line_of(e4m3, "infinities"), "no"));
  // e5m2: (2 - 2^-2) * 2^15 = 57344; bf16 and tf32 keep fp32's min normal 2^-126.
  EXPECT_TRUE(contains(line_of(block_of(r.out, "e5m2"), "max"), " 57344 "));
  EXPECT_TRUE(contains(line_of(block_of(r.out, "bf16"), "min normal"), "2^-126"));
  EXPECT_TRUE(contains(line_of(block_of(r.out, "tf32"), "bits"), "19 = 1 sign + 8 exponent + 10 fraction"));
  EXPECT_TRUE(contains(line_of(block_of(r.out, "fp32"), "min subnormal"), "2^-149"));
}

TEST(FormatsCommand, OneCustomFormat) {
  // e4m3's parameters without subnormals: max (2 - 2^-2) * 2^8 = 448, nothing below 2^-6 but 0.
  const process_result r = run_numlab({"formats", "--format", "p=4,emin=-6,emax=8,subnormals=0,inf=0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(contains(line_of(lines, "max"), " 448 ")) << r.out;
  EXPECT_TRUE(contains(line_of(lines, "min subnormal"), "none")) << r.out;
  EXPECT_TRUE(contains(line_of(lines, "subnormals"), "no")) << r.out;
  const process_result e3m2 = run_numlab({"formats", "--format", "e3m2"});
  ASSERT_EQ(e3m2.exit_code, 0) << e3m2.err;
  EXPECT_TRUE(contains(line_of(lines_of(e3m2.out), "max"), " 14 ")) << e3m2.out;  // 1.75 * 2^3
}

TEST(FormatsCommand, BadFormatExitsWithTwo) {
  const process_result r = run_numlab({"formats", "--format", "p=5,emin=-6,emax=7,inf=0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("emin"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace numlab::testing
