// fp64 inputs to fp16 and bf16 nearest-even (the f64_nearest_16bit
// shortcut: rounded to odd into fp32, then the fp32 loop) at the places its
// formulation changes case: fp32's normal range ending at 2^-126 and 2^128,
// the fp32 subnormal shift reaching 63 and 64 bits, fp64 subnormals and
// zeros; the targets' midpoints with and without bits below fp32's cut
// (where rounding through a nearest-even fp32 would tie wrongly), in the
// normal and subnormal ranges of both targets; the overflow thresholds; NaNs
// with payload only below fp32's fraction, and infinities, beside finite
// lanes. Every path against the core, bit for bit, under every overflow mode
// (the other modes run the lanes: the same comparison), at several lengths
// and an unaligned start.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "kernel_oracle.hpp"

namespace {

using namespace kernel_test;

// Bits cut off a normal or subnormal fp64 significand (52 fraction bits)
// when it is rounded to fp16 (s = max(1051 - E, 42)) or bf16 (s = max(942 -
// E, 45)) at biased exponent E.
std::uint64_t fp16_cut(std::uint64_t e) { return e < 1051 - 42 ? 1051 - e : 42; }
std::uint64_t bf16_cut(std::uint64_t e) { return e < 942 - 45 ? 942 - e : 45; }

// Positive fp64 patterns at the shortcut's boundaries.
std::vector<std::uint64_t> nearest_boundary_patterns() {
  std::vector<std::uint64_t> p;
  // 862/863: fp32 subnormal shift 64/63; 873..875: around 2^-149; 888..891:
  // bf16's smallest subnormals; 895..898: 2^-126; 997..1000: fp16's
  // smallest subnormals; 1008..1010: 2^-14; 1023; 1038/1039: fp16's top
  // binade and 2^16; 1149..1152: 2^127, 2^128.
  const std::uint64_t exponents[] = {862, 863, 873, 874, 875,  888,  889,  890,  891,  895,  896,  897,  898, 997,
                                     998, 999, 1000, 1008, 1009, 1010, 1023, 1038, 1039, 1149, 1150, 1151, 1152};
  // Fraction bits only below fp32's cut (bit 29), all of them, fp32's last
  // bit, the carry into the exponent.
  const std::uint64_t fractions[] = {0, 1, 0x1FFFFFFF, 0x20000000, 0x20000001, 0xFFFFFFFFFFFFF, 0x8000000000000};
  for (std::uint64_t e : exponents) {
    for (std::uint64_t f : fractions) p.push_back(e << 52 | f);
    // Each target's midpoint where the cut is inside the fraction: exactly,
    // one fp64 unit either side (below fp32's cut), and on an odd kept bit.
    for (std::uint64_t s : {fp16_cut(e), bf16_cut(e)}) {
      if (s > 52) continue;
      const std::uint64_t half = std::uint64_t{1} << (s - 1);
      for (std::uint64_t f : {half, half + 1, half - 1, half | half << 1, (half | half << 1) - 1}) {
        p.push_back(e << 52 | (f & 0xFFFFFFFFFFFFFull));
      }
    }
  }
  const std::uint64_t others[] = {
      0, 1, 0xFFFFFFFFFFFFFull,                                    // zero, fp64 subnormals
      0x3E60000000000000, 0x3E60000000000001, 0x3E5FFFFFFFFFFFFF,  // fp16: 2^-25 (a tie to 0), either side
      0x3E78000000000000, 0x3E78000000000001,                      // fp16: 3 * 2^-25 (a tie to 2^-23)
      0x3790000000000000, 0x3790000000000001, 0x378FFFFFFFFFFFFF,  // bf16: 2^-134 (a tie to 0), either side
      0x37A8000000000000, 0x37A7FFFFFFFFFFFF,                      // bf16: 3 * 2^-134 (a tie to 2^-132), below
      0x40EFFC0000000000, 0x40EFFDFFFFFFFFFF, 0x40EFFE0000000000,  // fp16: 65504, below and at 65520
      0x40EFFE0000000001, 0x40EFFFFFFFFFFFFF, 0x40F0000000000000,  // above 65520, below and at 2^16
      0x47EFE00000000000, 0x47EFEFFFFFFFFFFF, 0x47EFF00000000000,  // bf16's largest, below and at the midpoint
      0x47EFFFFFE0000000, 0x47EFFFFFE0000001, 0x47EFFFFFFFFFFFFF,  // fp32's largest, above it
      0x47F0000000000000, 0x7FEFFFFFFFFFFFFF,                      // 2^128, fp64's largest
      0x7FF0000000000000,                                          // infinity
      0x7FF0000000000001, 0x7FF000001FFFFFFF, 0x7FF0000020000000,  // NaNs: payload below fp32's, at its last bit
      0x7FF4000000000000, 0x7FF8000000000000, 0x7FFFFFFFFFFFFFFF, 0x7FF8123456789ABC};
  p.insert(p.end(), std::begin(others), std::end(others));
  return p;
}

num::array_options nearest_options(const num::format& f, num::overflow_mode ov, num::simd_path path) {
  num::array_options o;
  o.target = f;
  o.spec.mode = num::rounding::nearest_even;
  o.spec.overflow = ov;
  o.path = path;
  return o;
}

class F64Nearest16Edges : public ::testing::TestWithParam<num::simd_path> {};

TEST_P(F64Nearest16Edges, BoundariesMatchCoreInEveryOverflowMode) {
  NUMLAB_REQUIRE_PATH(GetParam());
  const std::vector<double> in = walked_inputs<double>(nearest_boundary_patterns());
  for (const num::format& f : {num::binary16, num::bfloat16_format}) {
    for (num::overflow_mode ov : {num::overflow_mode::ieee, num::overflow_mode::saturate, num::overflow_mode::nan}) {
      expect_core_bits16(in, nearest_options(f, ov, GetParam()));
    }
  }
}

// Short calls, partial groups of 8 and a stretch's end, from an unaligned
// start; the non-finite report against the core's results.
TEST_P(F64Nearest16Edges, LengthsAndNonFiniteReportMatchCore) {
  NUMLAB_REQUIRE_PATH(GetParam());
  const std::vector<double> all = walked_inputs<double>(nearest_boundary_patterns());
  for (const num::format& f : {num::binary16, num::bfloat16_format}) {
    num::array_options o = nearest_options(f, num::overflow_mode::ieee, GetParam());
    o.want_non_finite = true;
    for (std::size_t n : {1, 3, 7, 8, 9, 15, 17, 511, 512, 513, 1029}) {
      for (std::size_t start : {0, 1, 3}) {
        const std::vector<double> in(all.begin() + static_cast<std::ptrdiff_t>(start * 97),
                                     all.begin() + static_cast<std::ptrdiff_t>(start * 97 + n));
        std::vector<double> unaligned(in.size() + 1);
        std::copy(in.begin(), in.end(), unaligned.begin() + 1);
        std::vector<std::uint16_t> codes(n);
        const num::conversion_result r = num::encode_array(std::span<const double>(unaligned).subspan(1),
                                                           std::span<std::uint16_t>(codes), o);
        bool want_non_finite = false;
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const std::uint32_t want = core_round(in[i], o, i).bits;
          const num::value_class c = num::classify(f, want);
          want_non_finite = want_non_finite || c == num::value_class::infinite || num::is_nan(f, want);
          bad += codes[i] != want ? 1 : 0;
        }
        EXPECT_EQ(bad, 0u) << describe(o) << " n " << n << " start " << start;
        EXPECT_EQ(r.non_finite, want_non_finite) << describe(o) << " n " << n << " start " << start;
      }
    }
  }
}

// Values that a double rounding (nearest-even fp32, then nearest-even
// 16-bit) gets wrong, with their codes derived by hand; the boundary set
// above holds each of them. Each is checked to round differently through
// fp32, so a path that rounded through fp32 would fail here.
struct hand_case {
  std::uint64_t input;
  std::uint16_t code, through_fp32;
};
const hand_case fp16_cases[] = {
    {0x3FF0020000000001, 0x3C01, 0x3C00},  // 1 + 2^-11 + 2^-52: above the midpoint, up to 1 + 2^-10
    {0x3FF005FFFFFFFFFF, 0x3C01, 0x3C02},  // 1 + 3 * 2^-11 - 2^-52: below the midpoint, down
    {0x3E60000000000001, 0x0001, 0x0000},  // 2^-25 + 2^-77: above half the smallest subnormal
    {0x3E77FFFFFFFFFFFF, 0x0001, 0x0002},  // 3 * 2^-25 - 2^-77: below the subnormals' midpoint
    {0x40EFFDFFFFFFFFFF, 0x7BFF, 0x7C00},  // 65520 - 2^-37: 65504, not infinity
};
const hand_case bf16_cases[] = {
    {0x3FF0100000000001, 0x3F81, 0x3F80},  // 1 + 2^-8 + 2^-52: up to 1 + 2^-7
    {0x3FF02FFFFFFFFFFF, 0x3F81, 0x3F82},  // 1 + 3 * 2^-8 - 2^-52: down
    {0x3790000000000001, 0x0001, 0x0000},  // 2^-134 + 2^-186: the smallest subnormal, 2^-133
    {0x37A7FFFFFFFFFFFF, 0x0001, 0x0002},  // 3 * 2^-134 - 2^-186: 2^-133, not 2^-132
    {0x47EFEFFFFFFFFFFF, 0x7F7F, 0x7F80},  // just below the midpoint above the largest: finite
};

TEST_P(F64Nearest16Edges, DoubleRoundingCasesGiveHandDerivedCodes) {
  NUMLAB_REQUIRE_PATH(GetParam());
  const num::round_spec ne{num::rounding::nearest_even, 32};
  for (const num::format& f : {num::binary16, num::bfloat16_format}) {
    std::vector<double> in;
    std::vector<std::uint16_t> want;
    const auto cases = f == num::binary16 ? std::span<const hand_case>(fp16_cases) : std::span<const hand_case>(bf16_cases);
    for (const hand_case& c : cases) {
      const double x = std::bit_cast<double>(c.input);
      ASSERT_EQ(num::from_float(f, static_cast<float>(x), ne, 0).bits, c.through_fp32) << std::hex << c.input;
      // Both signs, a vector's worth of each so the vector body sees them.
      for (int k = 0; k < 16; ++k) {
        in.push_back(k % 2 == 0 ? x : -x);
        want.push_back(static_cast<std::uint16_t>(k % 2 == 0 ? c.code : c.code | 0x8000));
      }
    }
    std::vector<std::uint16_t> codes(in.size());
    num::encode_array(std::span<const double>(in), std::span<std::uint16_t>(codes),
                      nearest_options(f, num::overflow_mode::ieee, GetParam()));
    EXPECT_EQ(codes, want) << num::format_name(f);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, F64Nearest16Edges, ::testing::ValuesIn(all_paths),
                         [](const auto& info) { return std::string(num::simd_path_name(info.param)); });

}  // namespace
