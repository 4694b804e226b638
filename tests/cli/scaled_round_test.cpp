// `numlab round` and `numlab formats` with scaled formats, against
// hand-derived quantizations.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "run_process.hpp"

namespace numlab::testing {
namespace {

TEST(ScaledRound, Mxfp4ShowsBlockScaleElementCodeAndValue) {
  // amax 300: floor(log2 300) = 8, emax(E2M1) = 2 -> X = 2^6 = 64, E8M0 code
  // 127 + 6 = 0x85. 300 / 64 = 4.6875 -> nearest even 4 (0b0110) -> 256.
  // 0.1 / 64 and 1e-5 / 64 are below 0.25: zero, flushed by the block's scale.
  const process_result r = run_numlab({"round", "0.1", "1e-5", "300", "--format", "mxfp4", "--mode", "ne"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto big = row_starting_with(r.out, "300");
  ASSERT_EQ(big.size(), 9u) << r.out;
  EXPECT_EQ(big[3], "0x85");
  EXPECT_EQ(big[4], "64");
  EXPECT_EQ(big[5], "0x6");
  EXPECT_EQ(big[7], "256");
  const auto tenth = row_starting_with(r.out, "0.1");
  ASSERT_EQ(tenth.size(), 9u) << r.out;
  EXPECT_EQ(tenth[5], "0x0");
  EXPECT_NE(r.out.find("block underflow 2,"), std::string::npos) << r.out;
}

TEST(ScaledRound, Nvfp4StatisticsOfADumpedTensor) {
  temporary_file file;
  // Tensor amax 2688: tensor scale 1; one block of 16: S = 448, 2688 -> 6
  // (exact), 6 / 448 < 0.25 -> flushed by the block (alone it would get S = 1);
  // 0.001 alone would get S = 0.001/6 < 2^-10, an E4M3 zero: underflow either way.
  file.write("2688\n6\n0.001\n");
  const process_result r = run_numlab({"round", "--stats", file.path(), "--format", "nvfp4", "--mode", "ne"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(row_starting_with(r.out, "block").at(2), "1") << r.out;      // block underflow
  EXPECT_EQ(row_starting_with(r.out, "underflow").at(3), "1") << r.out;  // underflow to zero
  EXPECT_EQ(row_starting_with(r.out, "tensor").at(2), "1") << r.out;     // tensor scale
  EXPECT_EQ(row_starting_with(r.out, "8").at(1), "1") << r.out;          // one block scale in [2^8, 2^9)
}

TEST(ScaledRound, BadScaledFormatsGiveOneClearError) {
  const process_result no_rule = run_numlab({"round", "1", "--format", "e2m1/"});
  EXPECT_NE(no_rule.exit_code, 0);
  EXPECT_NE(no_rule.err.find("element format e2m1 needs a scale rule"), std::string::npos) << no_rule.err;
  EXPECT_TRUE(no_rule.out.empty()) << no_rule.out;
  const process_result zero_block = run_numlab({"round", "1", "--format", "e4m3/mx-floor/0"});
  EXPECT_NE(zero_block.exit_code, 0);
  EXPECT_NE(zero_block.err.find("block size 1x0 has a zero dimension"), std::string::npos) << zero_block.err;
  const process_result bad_overflow = run_numlab({"round", "1", "--format", "mxfp4", "--overflow", "ieee"});
  EXPECT_NE(bad_overflow.exit_code, 0);
  EXPECT_NE(bad_overflow.err.find("overflow must saturate"), std::string::npos) << bad_overflow.err;
}

TEST(ScaledRound, FormatsListsTheScaledFormats) {
  const process_result r = run_numlab({"formats"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"mxfp8", "mxfp6-e2m3", "mxfp4", "mxint8", "nvfp4", "fp8-tensor", "fp8-block"}) {
    EXPECT_EQ(row_starting_with(r.out, name).size() > 4, true) << name << "\n" << r.out;
  }
  EXPECT_EQ(row_starting_with(r.out, "mxfp4")[2], "6");
}

}  // namespace
}  // namespace numlab::testing
