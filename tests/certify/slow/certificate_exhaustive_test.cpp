// All 2^32 operand pairs of one (format, operation, direction), and a 1/256
// sample of the first operands of every other one: libnum against the oracle.
#include <gtest/gtest.h>

#include "certify/certificate.hpp"

namespace {

using certify::direction;
using certify::format16;
using certify::operation;

TEST(CertificateExhaustive, EveryPairOfFp16AddNearestEven) {
  if (!certify::oracle_supported()) GTEST_SKIP() << "no AVX-512 F on this CPU";
  const certify::certificate c = certify::run({format16::fp16, operation::add, direction::nearest_even, 1, 2});
  EXPECT_EQ(c.pairs, std::uint64_t{1} << 32);
  EXPECT_EQ(c.mismatches, 0u);
}

TEST(CertificateExhaustive, SampleOfEveryOtherFormatOperationAndDirection) {
  if (!certify::oracle_supported()) GTEST_SKIP() << "no AVX-512 F on this CPU";
  for (const format16 f : certify::all_formats) {
    for (const operation op : certify::all_operations) {
      for (const direction d : certify::all_directions) {
        if (f == format16::fp16 && op == operation::add && d == direction::nearest_even) continue;
        const certify::certificate c = certify::run({f, op, d, 256, 2});
        EXPECT_EQ(c.pairs, op == operation::sqrt ? certify::row_length : certify::row_length * 256);
        EXPECT_EQ(c.mismatches, 0u) << certify::name(f) << " " << certify::name(op) << " " << certify::name(d);
      }
    }
  }
}

}  // namespace
