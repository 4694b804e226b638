// `numlab round --stats FILE [--raw]` against hand-derived statistics, and
// its errors for bad files.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "run_process.hpp"

namespace numlab::testing {
namespace {

// The count printed on the report line named `name` ("  underflows  1  16.7%").
long long count_of(const std::string& report, const std::string& name) {
  for (const std::string& line : lines_of(report)) {
    std::istringstream in(line);
    std::string first;
    long long n = -1;
    if (in >> first && first == name && in >> n) return n;
  }
  return -1;
}

std::string raw_fp32(const std::vector<float>& values) {
  std::string bytes;
  for (const float x : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<char>((bits >> (8 * b)) & 0xFF));
  }
  return bytes;
}

TEST(RoundStats, HandDerivedFp16AndBf16) {
  temporary_file file;
  // 1e-8 < 2^-25 underflows in fp16; 70000 and 65520 (the tie above 65504,
  // even side 2^16) overflow; 65519 rounds to 65504. bf16 keeps them all.
  file.write("1e-8\n70000\n65519\n  65520\n\n1\n0\n");
  const process_result fp16 = run_numlab({"round", "--stats", file.path(), "--format", "fp16", "--mode", "ne"});
  ASSERT_EQ(fp16.exit_code, 0) << fp16.err;
  EXPECT_EQ(count_of(fp16.out, "count"), 6);
  EXPECT_EQ(count_of(fp16.out, "zeros"), 1);
  EXPECT_EQ(count_of(fp16.out, "underflows"), 1);
  EXPECT_EQ(count_of(fp16.out, "overflows"), 2);
  EXPECT_EQ(count_of(fp16.out, "2^15"), 1);
  const process_result bf16 = run_numlab({"round", "--stats", file.path(), "--format", "bf16", "--mode", "ne"});
  ASSERT_EQ(bf16.exit_code, 0) << bf16.err;
  EXPECT_EQ(count_of(bf16.out, "underflows"), 0);
  EXPECT_EQ(count_of(bf16.out, "overflows"), 0);
}

TEST(RoundStats, RawLittleEndianFp32) {
  temporary_file file;
  file.write(raw_fp32({1e-8f, 70000.0f, 0x1p-20f}));
  const process_result r =
      run_numlab({"round", "--stats", file.path(), "--raw", "--format", "fp16", "--mode", "rz"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_of(r.out, "count"), 3);
  EXPECT_EQ(count_of(r.out, "underflows"), 1);
  EXPECT_EQ(count_of(r.out, "overflows"), 1);   // toward zero still raises overflow (result max)
  EXPECT_EQ(count_of(r.out, "subnormals"), 1);  // 2^-20 is an fp16 subnormal
}

TEST(RoundStats, BadFilesAreReportedWithFileAndLine) {
  const process_result missing = run_numlab({"round", "--stats", "/nonexistent/tensor.txt"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/tensor.txt"), std::string::npos) << missing.err;
  EXPECT_TRUE(missing.out.empty());

  temporary_file text;
  text.write("1.0\n2.5\nabc\n4\n");
  const process_result bad_line = run_numlab({"round", "--stats", text.path(), "--mode", "ne"});
  EXPECT_EQ(bad_line.exit_code, 2);
  EXPECT_NE(bad_line.err.find(text.path() + ":3"), std::string::npos) << bad_line.err;
  EXPECT_NE(bad_line.err.find("'abc'"), std::string::npos) << bad_line.err;
  EXPECT_TRUE(bad_line.out.empty());

  temporary_file raw;
  raw.write("123456");
  const process_result bad_size = run_numlab({"round", "--stats", raw.path(), "--raw"});
  EXPECT_EQ(bad_size.exit_code, 2);
  EXPECT_NE(bad_size.err.find("6 bytes"), std::string::npos) << bad_size.err;

  EXPECT_EQ(run_numlab({"round", "--raw", "1.0"}).exit_code, 2);
  EXPECT_EQ(run_numlab({"round"}).exit_code, 2);
}

}  // namespace
}  // namespace numlab::testing
