// int64 (and so int32) values rounded once into fp16, bf16, E4M3 and TF32,
// in every rounding mode, against the MPFR oracle: every 37th integer up to 2^17
// in magnitude, powers of two and their neighbours, the int32/int64 limits,
// and random 64-bit integers of every length.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include <libnum/convert.hpp>

#include "oracle_check.hpp"

namespace {

std::vector<std::int64_t> integers() {
  std::vector<std::int64_t> v;
  for (std::int64_t i = -(1 << 17); i <= (1 << 17); i += 37) v.push_back(i);
  for (int e = 0; e < 63; ++e) {
    for (std::int64_t d = -3; d <= 3; ++d) {
      v.push_back((std::int64_t{1} << e) + d);
      v.push_back(-(std::int64_t{1} << e) + d);
    }
  }
  for (std::int64_t x : {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                         std::int64_t{std::numeric_limits<std::int32_t>::min()},
                         std::int64_t{std::numeric_limits<std::int32_t>::max()}}) {
    v.push_back(x);
  }
  std::mt19937_64 gen(11);
  for (int i = 0; i < 8000; ++i) v.push_back(static_cast<std::int64_t>(gen()) >> (gen() % 64));
  return v;
}

void check_integers(const num::format& f) {
  const std::vector<std::int64_t> values = integers();
  oracle::mismatch_log log(num::format_name(f) + " from_int64 (" + std::to_string(values.size()) + " integers x 7 modes)");
  std::uint64_t index = 0;
  for (std::int64_t v : values) {
    oracle::mp exact(64);
    mpfr_set_si(exact, static_cast<long>(v), MPFR_RNDN);  // long is 64 bits here: exact
    for (const oracle::mode_choice& m : oracle::modes_for_case(++index)) {
      const oracle::expected want = oracle::round_result(
          f, m.mode, m.random_bits, m.word, [&](mpfr_ptr r, mpfr_rnd_t rnd) { return mpfr_set(r, exact, rnd); });
      oracle::check_variants(
          log, f, m, want, [&](const num::round_spec& s, std::uint32_t w) { return num::from_int64(f, v, s, w); },
          [&] { return num::format_name(f) + " from_int64(" + std::to_string(v) + ")"; }, index);
    }
  }
}

static_assert(sizeof(long) == 8, "mpfr_set_si takes the int64 values exactly only where long has 64 bits");

TEST(IntegerConversion, ToFp16) { check_integers(num::binary16); }
TEST(IntegerConversion, ToBf16) { check_integers(num::bfloat16_format); }
TEST(IntegerConversion, ToE4m3) { check_integers(num::fp8_e4m3); }
TEST(IntegerConversion, ToTf32) { check_integers(num::tf32); }

}  // namespace
