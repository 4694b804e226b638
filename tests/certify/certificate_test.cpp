// libnum against the oracle on a sample of every (format, operation,
// direction), and the comparison catching a deliberately wrong oracle.
#include <gtest/gtest.h>
#include <xmmintrin.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "certify/certificate.hpp"

namespace {

using certify::direction;
using certify::format16;
using certify::operation;

// "a b: oracle bits/flags, libnum bits/flags" of the first mismatch, if any.
std::string describe_first(const certify::certificate& c) {
  if (c.first_mismatches.empty()) return "";
  const certify::mismatch& m = c.first_mismatches.front();
  char text[128];
  std::snprintf(text, sizeof text, ": first at %04x %04x: oracle %04x/%02x, libnum %04x/%02x", m.a, m.b,
                m.oracle_bits, m.oracle_flags, m.libnum_bits, m.libnum_flags);
  return text;
}

class CertificateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!certify::oracle_supported()) GTEST_SKIP() << "no AVX-512 F on this CPU";
  }
};

// Four scattered first operands (all second operands) per binary operation,
// four (a, c) rows for fma, every operand for sqrt: zero mismatches in
// results and flags.
TEST_F(CertificateTest, SampleOfEveryFormatOperationAndDirectionAgrees) {
  for (const format16 f : certify::all_formats) {
    for (const operation op : certify::all_operations) {
      for (const direction d : certify::all_directions) {
        const certify::job j{f, op, d, 16384, 2};
        const certify::certificate c = certify::run(j);
        const std::uint64_t rows = op == operation::sqrt ? 1 : 4;
        EXPECT_EQ(c.pairs, rows * certify::row_length);
        EXPECT_EQ(c.mismatches, 0u) << certify::name(f) << " " << certify::name(op) << " " << certify::name(d)
                                    << describe_first(c);
      }
    }
  }
}

TEST_F(CertificateTest, HashDoesNotDependOnThreads) {
  const certify::job one{format16::bf16, operation::div, direction::toward_positive, 16384, 1};
  certify::job three = one;
  three.threads = 3;
  EXPECT_EQ(certify::run(one).hash, certify::run(three).hash);
}

struct rows {
  std::vector<std::uint16_t> oracle_bits = std::vector<std::uint16_t>(certify::row_length);
  std::vector<std::uint8_t> oracle_flags = std::vector<std::uint8_t>(certify::row_length);
  std::vector<std::uint16_t> libnum_bits = std::vector<std::uint16_t>(certify::row_length);
  std::vector<std::uint8_t> libnum_flags = std::vector<std::uint8_t>(certify::row_length);
  std::vector<certify::mismatch> found;
  std::uint64_t compare(std::uint16_t a) {
    return certify::compare_row({a, 0}, oracle_bits, oracle_flags, libnum_bits, libnum_flags, 8, found);
  }
};

// The oracle rounding up where libnum rounds down must not go unnoticed.
TEST_F(CertificateTest, FlippedDirectionIsCaught) {
  const certify::job j{format16::fp16, operation::add, direction::toward_negative, 1, 2};
  const std::uint16_t a = 0x3C00;  // 1 + b is inexact for most b
  rows r;
  certify::libnum_row(j, {a, 0}, r.libnum_bits, r.libnum_flags);
  certify::oracle_row(j.format, j.op, direction::toward_positive, {a, 0}, r.oracle_bits, r.oracle_flags);
  EXPECT_GT(r.compare(a), 1000u);
  ASSERT_FALSE(r.found.empty());
  EXPECT_EQ(r.found.front().a, a);
  certify::oracle_row(j.format, j.op, j.mode, {a, 0}, r.oracle_bits, r.oracle_flags);
  r.found.clear();
  EXPECT_EQ(r.compare(a), 0u);
}

// An oracle with the tininess rules swapped differs exactly on the results
// that are tiny before rounding but not after (2^-14 (1 - 2^-20) among them).
TEST_F(CertificateTest, SwappedTininessRuleIsCaught) {
  const certify::job j{format16::fp16, operation::mul, direction::nearest_even, 1, 2};
  const std::uint16_t a = 0x3BFE;
  rows r;
  certify::libnum_row(j, {a, 0}, r.libnum_bits, r.libnum_flags);
  certify::oracle_row(j.format, j.op, j.mode, {a, 0}, r.oracle_bits, r.oracle_flags);
  for (std::uint8_t& f : r.oracle_flags) {
    const bool after = (f & certify::flag::underflow) != 0, before = (f & certify::flag::underflow_before) != 0;
    f = static_cast<std::uint8_t>((f & ~(certify::flag::underflow | certify::flag::underflow_before)) |
                                  (after ? certify::flag::underflow_before : 0) |
                                  (before ? certify::flag::underflow : 0));
  }
  EXPECT_GT(r.compare(a), 0u);
  bool found_hand_derived_case = false;
  for (const certify::mismatch& m : r.found) found_hand_derived_case |= m.b == 0x0401;
  EXPECT_TRUE(found_hand_derived_case);
}

TEST(CertificateJob, StrideMustDivideTheRowCount) {
  EXPECT_THROW(certify::run({format16::fp16, operation::add, direction::nearest_even, 3, 1}), std::invalid_argument);
}

// With flush-to-zero and denormals-are-zero on, binary32 results below 2^-126
// would be wrong: the oracle refuses to run rather than certify with them.
TEST(CertificateJob, RefusesToRunWithFlushToZero) {
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040);
  EXPECT_FALSE(certify::oracle_supported());
  EXPECT_THROW(certify::run({format16::fp16, operation::add, direction::nearest_even, 16384, 1}), std::runtime_error);
  _mm_setcsr(saved);
}

TEST(CertificateJob, SampleRowsAreDistinct) {
  std::vector<bool> seen(certify::row_length);
  for (std::uint32_t k = 0; k < certify::row_length; ++k) {
    EXPECT_FALSE(seen[certify::sample_row(k)]);
    seen[certify::sample_row(k)] = true;
  }
}

}  // namespace
