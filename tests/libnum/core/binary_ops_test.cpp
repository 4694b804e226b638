// add, sub, mul, div and fma against the MPFR oracle in every rounding mode,
// tininess and overflow behaviour: all special values crossed with each
// other, every pair of the 8-bit formats, and a dense random sample (with
// operands chosen to cancel) for fp16, bf16 and a custom format without
// subnormals.
#include <gtest/gtest.h>

#include <random>

#include <libnum/arithmetic.hpp>

#include "oracle_check.hpp"

namespace {

using oracle::operation;

// p = 5, emin = -6, emax = 7, no subnormals: 9 bits.
constexpr num::format custom{5, -6, 7, false, true};

num::rounded libnum_apply(const num::format& f, operation op, const oracle::operands3& x, const num::round_spec& s,
                          std::uint32_t word) {
  switch (op) {
    case operation::add: return num::add(f, x[0], x[1], s, word);
    case operation::sub: return num::sub(f, x[0], x[1], s, word);
    case operation::mul: return num::mul(f, x[0], x[1], s, word);
    case operation::div: return num::div(f, x[0], x[1], s, word);
    case operation::fma: return num::fma(f, x[0], x[1], x[2], s, word);
    case operation::sqrt: return num::sqrt(f, x[0], s, word);
  }
  return {};
}

// One case in all 7 modes; `index` picks the stochastic word and the rotating variant.
void check_case(oracle::mismatch_log& log, const num::format& f, operation op, const oracle::operands3& x,
                std::uint64_t index) {
  for (const oracle::mode_choice& m : oracle::modes_for_case(index)) {
    const oracle::expected want = oracle::arithmetic(f, op, x, m);
    oracle::check_variants(
        log, f, m, want,
        [&](const num::round_spec& s, std::uint32_t w) { return libnum_apply(f, op, x, s, w); },
        [&] {
          std::string text = num::format_name(f) + " " + oracle::operation_name(op) + "(" + oracle::hex(x[0]);
          for (int i = 1; i < oracle::arity(op); ++i) text += ", " + oracle::hex(x[i]);
          return text + ")";
        },
        index);
  }
}

constexpr operation binary_ops[] = {operation::add, operation::sub, operation::mul, operation::div};

void check_specials_crossed(const num::format& f) {
  const std::vector<std::uint32_t> specials = oracle::special_values(f);
  oracle::mismatch_log log(num::format_name(f) + " specials crossed (binary ops and fma)");
  std::uint64_t index = 0;
  for (std::uint32_t a : specials) {
    for (std::uint32_t b : specials) {
      for (operation op : binary_ops) check_case(log, f, op, {a, b, 0}, index++);
      for (std::uint32_t c : specials) check_case(log, f, operation::fma, {a, b, c}, index++);
    }
  }
}

void check_all_pairs(const num::format& f, operation op) {
  oracle::mismatch_log log(num::format_name(f) + " all pairs x " + oracle::operation_name(op));
  const auto n = static_cast<std::uint32_t>(oracle::pattern_count(f));
  std::uint64_t index = 0;
  for (std::uint32_t a = 0; a < n; ++a) {
    for (std::uint32_t b = 0; b < n; ++b) check_case(log, f, op, {a, b, 0}, index++);
  }
}

// Random operands: half uniform over all patterns, half close to the first
// operand (same or opposite sign, a few ulps away) so that sums cancel and
// quotients sit near 1; fma's addend is often near -a*b.
void check_random_sample(const num::format& f, int pairs, int triples) {
  oracle::mismatch_log log(num::format_name(f) + " random sample (" + std::to_string(pairs) + " pairs, " +
                           std::to_string(triples) + " fma triples)");
  const auto n = static_cast<std::uint32_t>(oracle::pattern_count(f));
  const std::uint32_t sign = oracle::layout(f).sign_mask;
  std::mt19937 gen(20261122);
  std::uniform_int_distribution<std::uint32_t> pattern(0, n - 1), nudge(0, 15);
  const auto near = [&](std::uint32_t a) {
    const std::uint32_t moved = (a + nudge(gen) - 8) & (n - 1);
    return (gen() & 1) != 0 ? moved ^ sign : moved;
  };
  std::uint64_t index = 0;
  for (int i = 0; i < pairs; ++i) {
    const std::uint32_t a = pattern(gen);
    const std::uint32_t b = (i & 1) != 0 ? near(a) : pattern(gen);
    for (operation op : binary_ops) check_case(log, f, op, {a, b, 0}, index++);
  }
  for (int i = 0; i < triples; ++i) {
    const std::uint32_t a = pattern(gen), b = pattern(gen);
    std::uint32_t c = pattern(gen);
    if ((i & 1) != 0) {
      const num::rounded product = oracle::arithmetic(f, operation::mul, {a, b, 0}, {}).under(f, {});
      if (!oracle::decode(f, product.bits).is_nan()) c = near(product.bits ^ sign);
    }
    check_case(log, f, operation::fma, {a, b, c}, index++);
  }
}

TEST(BinaryOps, Fp16SpecialsCrossed) { check_specials_crossed(num::binary16); }
TEST(BinaryOps, Bf16SpecialsCrossed) { check_specials_crossed(num::bfloat16_format); }
TEST(BinaryOps, E4m3SpecialsCrossed) { check_specials_crossed(num::fp8_e4m3); }
TEST(BinaryOps, E5m2SpecialsCrossed) { check_specials_crossed(num::fp8_e5m2); }
TEST(BinaryOps, CustomSpecialsCrossed) { check_specials_crossed(custom); }

class AllPairs : public ::testing::TestWithParam<std::tuple<num::format, operation>> {};
TEST_P(AllPairs, AgreeWithMpfr) { check_all_pairs(std::get<0>(GetParam()), std::get<1>(GetParam())); }
INSTANTIATE_TEST_SUITE_P(EightBitFormats, AllPairs,
                         ::testing::Combine(::testing::Values(num::fp8_e4m3, num::fp8_e5m2),
                                            ::testing::ValuesIn(binary_ops)),
                         [](const auto& info) {
                           return num::format_name(std::get<0>(info.param)) + "_" +
                                  oracle::operation_name(std::get<1>(info.param));
                         });

TEST(BinaryOps, Fp16RandomSample) { check_random_sample(num::binary16, 10000, 10000); }
TEST(BinaryOps, Bf16RandomSample) { check_random_sample(num::bfloat16_format, 10000, 10000); }
TEST(BinaryOps, CustomRandomSample) { check_random_sample(custom, 10000, 10000); }
TEST(BinaryOps, E4m3RandomFma) { check_random_sample(num::fp8_e4m3, 0, 20000); }
TEST(BinaryOps, E5m2RandomFma) { check_random_sample(num::fp8_e5m2, 0, 20000); }

}  // namespace
