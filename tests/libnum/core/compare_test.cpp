// Comparison predicates against MPFR's, with IEEE 754's invalid rule (quiet
// predicates: only signalling NaNs; signalling predicates: any NaN), over all
// pairs of E5M2 and E4M3 and the special values of fp16/bf16; min/max and
// minimumNumber/maximumNumber with ±0 and NaN by hand.
#include <gtest/gtest.h>

#include <libnum/compare.hpp>

#include "oracle_check.hpp"

namespace {

using num::flags;
using oracle::relation;

void check_predicates(const num::format& f, const std::vector<std::uint32_t>& values) {
  oracle::mismatch_log log(num::format_name(f) + " eq/lt/le/unordered, quiet and signalling");
  struct named {
    const char* name;
    num::predicate (*fn)(const num::format&, std::uint32_t, std::uint32_t);
    relation rel;
    bool signaling;
  };
  const named predicates[] = {{"eq", num::eq, relation::eq, false},
                              {"lt_quiet", num::lt_quiet, relation::lt, false},
                              {"le_quiet", num::le_quiet, relation::le, false},
                              {"unordered", num::unordered, relation::unordered, false},
                              {"eq_signaling", num::eq_signaling, relation::eq, true},
                              {"lt", num::lt, relation::lt, true},
                              {"le", num::le, relation::le, true}};
  for (std::uint32_t a : values) {
    for (std::uint32_t b : values) {
      const oracle::decoded x = oracle::decode(f, a), y = oracle::decode(f, b);
      const bool any_nan = x.is_nan() || y.is_nan();
      const bool any_signaling = x.what == oracle::kind::signaling_nan || y.what == oracle::kind::signaling_nan;
      for (const named& p : predicates) {
        const num::predicate got = p.fn(f, a, b);
        const bool want = oracle::compare(f, a, b, p.rel);
        const flags want_flags = (p.signaling ? any_nan : any_signaling) ? flags::invalid : flags::none;
        log.check(got.value == want && got.raised == want_flags, [&] {
          return num::format_name(f) + " " + p.name + "(" + oracle::hex(a) + ", " + oracle::hex(b) + ")";
        });
      }
    }
  }
}

std::vector<std::uint32_t> all_patterns(const num::format& f) {
  std::vector<std::uint32_t> v(oracle::pattern_count(f));
  for (std::uint32_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

TEST(Compare, AllE5m2PairsAgainstMpfr) { check_predicates(num::fp8_e5m2, all_patterns(num::fp8_e5m2)); }
TEST(Compare, AllE4m3PairsAgainstMpfr) { check_predicates(num::fp8_e4m3, all_patterns(num::fp8_e4m3)); }
TEST(Compare, Fp16AndBf16SpecialsAgainstMpfr) {
  check_predicates(num::binary16, oracle::special_values(num::binary16));
  check_predicates(num::bfloat16_format, oracle::special_values(num::bfloat16_format));
}

constexpr std::uint32_t plus_zero = 0x0000, minus_zero = 0x8000, one = 0x3C00, minus_two = 0xC000;
constexpr std::uint32_t quiet = 0x7E00, signaling = 0x7D00, signaling_quieted = 0x7F00;

void expect_result(num::rounded got, std::uint32_t bits, flags raised) {
  EXPECT_EQ(got.bits, bits) << oracle::hex(got.bits);
  EXPECT_EQ(got.raised, raised);
}

TEST(Compare, MinimumAndMaximumOrderZerosAndPropagateNaN) {
  const num::format& f = num::binary16;
  expect_result(num::minimum(f, plus_zero, minus_zero), minus_zero, flags::none);
  expect_result(num::minimum(f, minus_zero, plus_zero), minus_zero, flags::none);
  expect_result(num::maximum(f, minus_zero, plus_zero), plus_zero, flags::none);
  expect_result(num::maximum(f, plus_zero, minus_zero), plus_zero, flags::none);
  expect_result(num::minimum(f, one, minus_two), minus_two, flags::none);
  expect_result(num::maximum(f, one, minus_two), one, flags::none);
  expect_result(num::minimum(f, one, quiet), quiet, flags::none);
  expect_result(num::maximum(f, quiet, one), quiet, flags::none);
  expect_result(num::minimum(f, signaling, one), signaling_quieted, flags::invalid);
}

TEST(Compare, MinimumNumberIgnoresQuietNaN) {
  const num::format& f = num::binary16;
  expect_result(num::minimum_number(f, one, quiet), one, flags::none);
  expect_result(num::minimum_number(f, quiet, one), one, flags::none);
  expect_result(num::maximum_number(f, quiet, minus_two), minus_two, flags::none);
  expect_result(num::minimum_number(f, plus_zero, minus_zero), minus_zero, flags::none);
  expect_result(num::maximum_number(f, minus_zero, plus_zero), plus_zero, flags::none);
  // IEEE 754-2019 9.6: a signalling NaN operand signals invalid, the number is still returned.
  expect_result(num::minimum_number(f, signaling, one), one, flags::invalid);
  expect_result(num::maximum_number(f, one, signaling), one, flags::invalid);
  // Both NaN: a quiet NaN.
  expect_result(num::minimum_number(f, quiet, quiet), quiet, flags::none);
}

}  // namespace
