// The *_per_tininess calls (the ones `numlab certify` certifies pair by pair)
// against hand-derived values, and the single-rule calls num::add ...
// num::sqrt against them: each must return its *_per_tininess result with
// the flags of spec.tiny's rule, so that the certificate covers them too.
#include <gtest/gtest.h>

#include <cstdint>

#include <libnum/arithmetic.hpp>

#include "operation_oracle.hpp"

namespace {

using oracle::operation;

// 0x3BFE * 0x0401 = (1 - 2^-10) * 2^-14 (1 + 2^-10) = 2^-14 (1 - 2^-20): below
// 2^-14, so tiny before rounding, but 1 - 2^-20 rounds to 1 at 11 bits, so
// not tiny after rounding. The result is 2^-14 = 0x0400, inexact.
TEST(PerTininess, ProductTinyOnlyBeforeRoundingFlagsUnderflowOnlyUnderThatRule) {
  const num::rounded_per_tininess r = num::mul_per_tininess(num::binary16, 0x3BFE, 0x0401, num::round_spec{});
  EXPECT_EQ(r.bits, 0x0400u);
  EXPECT_EQ(r.after_rounding, num::flags::inexact);
  EXPECT_EQ(r.before_rounding, num::flags::inexact | num::flags::underflow);
  EXPECT_EQ(r.under(num::tininess::after_rounding).raised, num::flags::inexact);
  EXPECT_EQ(r.under(num::tininess::before_rounding).raised, num::flags::inexact | num::flags::underflow);
}

// 2^-14 / 3 = 2^-16 * 1.0101...: tiny under both rules and inexact; in
// bfloat16, 2^-126 / 3 likewise.
TEST(PerTininess, QuotientTinyUnderBothRules) {
  const auto both = num::flags::inexact | num::flags::underflow;
  const num::rounded_per_tininess h = num::div_per_tininess(num::binary16, 0x0400, 0x4200, num::round_spec{});
  EXPECT_EQ(h.bits, 0x0155u);  // 2^-24 * 341.33 rounds to 341 = 0x155
  EXPECT_EQ(h.after_rounding, both);
  EXPECT_EQ(h.before_rounding, both);
  const num::rounded_per_tininess b = num::div_per_tininess(num::bfloat16_format, 0x0080, 0x4040, num::round_spec{});
  EXPECT_EQ(b.bits, 0x002Bu);  // 2^-133 * 42.67 rounds to 43 = 0x2B
  EXPECT_EQ(b.after_rounding, both);
  EXPECT_EQ(b.before_rounding, both);
}

num::rounded_per_tininess per_tininess(operation op, const num::format& f, std::uint32_t a, std::uint32_t b,
                                       const num::round_spec& s, std::uint32_t word) {
  switch (op) {
    case operation::add: return num::add_per_tininess(f, a, b, s, word);
    case operation::sub: return num::sub_per_tininess(f, a, b, s, word);
    case operation::mul: return num::mul_per_tininess(f, a, b, s, word);
    case operation::div: return num::div_per_tininess(f, a, b, s, word);
    case operation::fma: return num::fma_per_tininess(f, a, b, a ^ b, s, word);
    case operation::sqrt: return num::sqrt_per_tininess(f, b, s, word);
  }
  return {};
}

num::rounded single_rule(operation op, const num::format& f, std::uint32_t a, std::uint32_t b,
                         const num::round_spec& s, std::uint32_t word) {
  switch (op) {
    case operation::add: return num::add(f, a, b, s, word);
    case operation::sub: return num::sub(f, a, b, s, word);
    case operation::mul: return num::mul(f, a, b, s, word);
    case operation::div: return num::div(f, a, b, s, word);
    case operation::fma: return num::fma(f, a, b, a ^ b, s, word);
    case operation::sqrt: return num::sqrt(f, b, s, word);
  }
  return {};
}

// Rows of first operands around 1 and 2^emin (where the rules differ) against
// every second operand, in every mode, for the two formats with their own
// compiled instances and two that take the general path.
TEST(PerTininess, SingleRuleCallsReturnTheirRulesFlags) {
  const num::format formats[] = {num::binary16, num::bfloat16_format, num::tf32, num::fp8_e4m3};
  constexpr operation ops[] = {operation::add, operation::sub, operation::mul,
                               operation::div, operation::fma, operation::sqrt};
  std::uint64_t differing = 0;
  for (const num::format& f : formats) {
    const std::uint32_t one = static_cast<std::uint32_t>(f.bias()) << f.fraction_bits();
    const std::uint32_t min_normal = std::uint32_t{1} << f.fraction_bits();
    const std::uint32_t rows[] = {one - 2, one + 1, min_normal + 1, min_normal - 1, f.sign_mask() | one};
    // About 13000 second operands per row: all of E4M3's, every fifth of the
    // 16-bit formats' (0x0401 among them), every 41st of tf32's.
    const std::uint32_t count = std::uint32_t{1} << f.total_bits();
    const std::uint32_t stride = (count / 13107) | 1;
    for (const num::rounding mode : num::all_roundings) {
      for (const operation op : ops) {
        for (const std::uint32_t a : rows) {
          for (std::uint32_t b = 0; b < count; b += stride) {
            num::round_spec s{};
            s.mode = mode;
            const std::uint32_t word = b * 0x9E3779B9u;
            const num::rounded_per_tininess both = per_tininess(op, f, a, b, s, word);
            s.tiny = num::tininess::after_rounding;
            const num::rounded after = single_rule(op, f, a, b, s, word);
            s.tiny = num::tininess::before_rounding;
            const num::rounded before = single_rule(op, f, a, b, s, word);
            ASSERT_EQ(after.bits, both.bits) << num::format_name(f) << " " << a << " " << b;
            ASSERT_EQ(before.bits, both.bits) << num::format_name(f) << " " << a << " " << b;
            ASSERT_EQ(after.raised, both.after_rounding) << num::format_name(f) << " " << a << " " << b;
            ASSERT_EQ(before.raised, both.before_rounding) << num::format_name(f) << " " << a << " " << b;
            differing += both.after_rounding != both.before_rounding ? 1 : 0;
          }
        }
      }
    }
  }
  // The rows were chosen so that the two rules do differ somewhere.
  EXPECT_GT(differing, 0u);
}

}  // namespace
