// `numlab certify` end to end: a certificate line with zero mismatches, and
// one clear error (exit 2, nothing on stdout) for a bad option.
#include <gtest/gtest.h>

#include <string>

#include "run_process.hpp"

namespace numlab::testing {
namespace {

TEST(CertifyCommand, CertifiesFp16SqrtInTwoDirections) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "no AVX-512 F on this CPU";
  const process_result r = run_numlab({"certify", "--format", "fp16", "--op", "sqrt", "--mode", "ne,rd"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // sqrt has one row: all 65536 encodings.
  EXPECT_NE(r.out.find("| fp16 | sqrt | ne | 65536 | 0 | "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| fp16 | sqrt | rd | 65536 | 0 | "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("total: 131072 pairs, 0 mismatches"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("commit "), std::string::npos);
}

TEST(CertifyCommand, UnknownModeIsOneErrorAndExitCodeTwo) {
  const process_result r = run_numlab({"certify", "--mode", "ne,up"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "numlab: certify: unknown --mode 'up' (known: ne, na, rz, ru, rd, ro)\n");
}

TEST(CertifyCommand, SampleMustDivideTheRows) {
  const process_result r = run_numlab({"certify", "--sample", "100"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--sample 100 must be a power of two"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace numlab::testing
