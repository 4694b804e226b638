// The 16-bit stochastic shortcut (fp32 to fp16 or bf16, add-and-mask with a
// per-lane shift) at the places its formulation changes case, each met by
// many random words: fp16's exponent boundaries (2^-14, where the cut grows
// past 13 bits; 2^-24 and 2^-25, where the hidden bit is cut and the result
// is 0 or 2^-24; 2^-56 and 2^-57, below which the fraction leaves the lane;
// fp32 subnormals), fractions that make the add carry or just not, the
// largest finite values and the overflow thresholds under every overflow
// mode, NaNs and infinities sharing a vector with finite lanes, at r from
// 32 down to 1 under both draws; the partial vectors of unaligned starts and
// short tails. Every path against the core, bit for bit.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "kernel_oracle.hpp"

namespace {

using namespace kernel_test;

// Positive fp32 patterns at fp16's and bf16's case boundaries.
std::vector<std::uint32_t> boundary_patterns() {
  std::vector<std::uint32_t> p;
  // fp32 biased exponents: 70/71 (2^-57, 2^-56), 94/95, 101..104 (2^-25,
  // 2^-24), 112..114 (2^-14), 141..143 (fp16's top binades), 253/254.
  const std::uint32_t exponents[] = {70, 71, 72, 94, 95, 101, 102, 103, 104, 112, 113, 114, 141, 142, 143, 253, 254};
  // Fractions with the cut bits empty, full, at half, one either side, and
  // the carry into the exponent.
  const std::uint32_t fractions[] = {0, 1, 0x1FFF, 0x2000, 0x1000, 0xFFF, 0x7FFFFF, 0x7FE000, 0x7FDFFF,
                                     0x400000, 0x3FFFFF, 0xFFFF, 0x8000, 0x7FFF, 0x7F0000};
  for (std::uint32_t e : exponents) {
    for (std::uint32_t f : fractions) p.push_back(e << 23 | f);
  }
  const std::uint32_t others[] = {
      0, 1, 0x3FF, 0x7FFFFF,                         // zero, fp32 subnormals
      0x477FE000, 0x477FEFFF, 0x477FF000, 0x477FF001,  // fp16: 65504, below and at 65520
      0x477FFFFF, 0x47800000,                          // fp16: just below and at 2^16
      0x7F7F0000, 0x7F7F7FFF, 0x7F7F8000, 0x7F7FFFFF,  // bf16's largest finite and above
      0x7F800000, 0x7F800001, 0x7FBFFFFF, 0x7FC00000, 0x7FFFFFFF, 0x7FC12345,  // inf, NaNs
      0x32C00000, 0x33400000, 0x38401000, 0x38801000, 0x3F801000};  // a quarter to 3/4 of a quantum cut
  p.insert(p.end(), std::begin(others), std::end(others));
  return p;
}

std::vector<float> boundary_inputs() { return walked_inputs<float>(boundary_patterns()); }

// Positive fp64 patterns at the fp64 shortcut's case boundaries for fp16
// and bf16: the normal cut (42 / 45 bits) and its growth below 2^emin, the
// cut reaching the hidden bit (2^-24 / 2^-133 and one binade below), the
// fraction leaving the 64-bit lane (s - 53 = 63 / 64), fp64 subnormals.
std::vector<std::uint64_t> boundary_patterns64() {
  std::vector<std::uint64_t> p;
  // fp16: 934/935 (tiny shift 64/63), 997..1000 (2^-26 .. 2^-23),
  // 1008..1010 (2^-14), 1037..1039 (top binades); bf16: 825/826, 888..891
  // (2^-135 .. 2^-132), 896..898 (2^-126), 1150..1152; and 1023 (one).
  const std::uint64_t exponents[] = {825,  826,  888,  889,  890,  891,  896,  897,  898,  934,  935,
                                     997,  998,  999,  1000, 1008, 1009, 1010, 1023, 1037, 1038, 1039,
                                     1150, 1151, 1152};
  // Fractions (52 bits) with the cut bits empty, full, at half (bit 41 is
  // fp16's, bit 44 bf16's), bits only below the word's lowest (fp16's word
  // starts at bit 10, bf16's at 13), and the carry into the exponent.
  const std::uint64_t fractions[] = {0,
                                     1,
                                     0x3FF,
                                     0x1FFF,
                                     0x3FFFFFFFFFFull,
                                     0x20000000000ull,
                                     0x1FFFFFFFFFFull,
                                     0x20000000001ull,
                                     0x1FFFFFFFFFFFull,
                                     0x100000000000ull,
                                     0xFFFFFFFFFFFull,
                                     0xFFFFFFFFFFFFFull,
                                     0x8000000000000ull,
                                     0x7FFFFFFFFFFFFull,
                                     0xFFC0000000000ull,
                                     0xFFBFFFFFFFFFFull,
                                     0x123456789ABCDull};
  for (std::uint64_t e : exponents) {
    for (std::uint64_t f : fractions) p.push_back(e << 52 | f);
  }
  const std::uint64_t others[] = {
      0, 1, 0xFFFFFFFFFFFFFull,                                  // zero, fp64 subnormals
      0x40EFFC0000000000, 0x40EFFDFFFFFFFFFF, 0x40EFFE0000000000,  // fp16: 65504, below and at 65520
      0x40EFFE0000000001, 0x40EFFFFFFFFFFFFF, 0x40F0000000000000,  // above 65520, below and at 2^16
      0x47EFE00000000000, 0x47EFEFFFFFFFFFFF, 0x47EFF00000000000,  // bf16's largest finite, below and at the midpoint
      0x47EFFFFFFFFFFFFF, 0x47F0000000000000, 0x7FEFFFFFFFFFFFFF,  // 2^128 and fp64's largest
      0x7FF0000000000000, 0x7FF0000000000001, 0x7FF7FFFFFFFFFFFF,  // inf, signalling NaNs
      0x7FF8000000000000, 0x7FFFFFFFFFFFFFFF, 0x7FF8123456789ABC,  // quiet NaNs
      0x3E58000000000000, 0x3E68000000000000, 0x3F08020000000000,  // fp16: 3/4 and 1/2 of 2^-24 cut, subnormal
      0x3F10020000000000, 0x3FF0020000000000, 0x3FF0018000000001,  // fp16: normal, at one (half and above)
      0x3780000000000000, 0x37E0800000000000, 0x3FF0100000000000}; // bf16: 2^-135 (1/4 of 2^-133), subnormal, at one
  p.insert(p.end(), std::begin(others), std::end(others));
  return p;
}

std::vector<double> boundary_inputs64() { return walked_inputs<double>(boundary_patterns64()); }

num::array_options edge_options(const num::format& f, int r, num::random_draws d, num::overflow_mode ov,
                                num::simd_path path) {
  num::array_options o;
  o.target = f;
  o.spec.mode = num::rounding::stochastic;
  o.spec.random_bits = r;
  o.spec.overflow = ov;
  o.draws = d;
  o.seed = 0x5DEECE66Dull;
  o.stream = 9;
  o.first_index = 3;
  o.path = path;
  return o;
}

// Every target, cut r, draw width and overflow mode on one input set.
template <typename T>
void expect_core_bits_for_every_cut(const std::vector<T>& in, num::simd_path path) {
  for (const num::format& f : {num::binary16, num::bfloat16_format}) {
    for (int r : {32, 24, 17, 16, 13, 12, 11, 8, 1}) {
      for (num::random_draws d : {num::random_draws::full_word, num::random_draws::half_word}) {
        if (d == num::random_draws::half_word && r > 16) continue;
        for (num::overflow_mode ov : {num::overflow_mode::ieee, num::overflow_mode::saturate, num::overflow_mode::nan}) {
          expect_core_bits16(in, edge_options(f, r, d, ov, path));
        }
      }
    }
  }
}

// How many of `patterns` (positive fp32 patterns among `in`) got both fp16
// neighbours (the code toward zero and the next) when `in` is encoded under o.
std::size_t fp16_patterns_taking_both_neighbours(const std::vector<float>& in, const num::array_options& o,
                                                 std::initializer_list<std::uint32_t> patterns) {
  std::vector<std::uint16_t> codes(in.size());
  num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(codes), o);
  std::size_t both = 0;
  for (std::uint32_t pattern : patterns) {
    bool down = false, up = false;
    const std::uint16_t low = num::from_float(num::binary16, std::bit_cast<float>(pattern),
                                              {num::rounding::toward_zero, 32}, 0).bits;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (float_bits(in[i]) != pattern) continue;
      down = down || codes[i] == low;
      up = up || codes[i] == low + 1;
    }
    both += down && up ? 1 : 0;
  }
  return both;
}

class Stochastic16Edges : public ::testing::TestWithParam<num::simd_path> {};

TEST_P(Stochastic16Edges, BoundariesMatchCoreForEveryCutAndOverflowMode) {
  NUMLAB_REQUIRE_PATH(GetParam());
  expect_core_bits_for_every_cut(boundary_inputs(), GetParam());
}

// The comparison above is not between two constant answers: at r = 32,
// values that cut a quarter to 3/4 of a quantum in each fp16 case (below
// 2^-24, fp16 subnormal, normal, 1, 65520 toward infinity) take both
// neighbours among their draws.
TEST_P(Stochastic16Edges, InexactBoundaryValuesTakeBothNeighbours) {
  NUMLAB_REQUIRE_PATH(GetParam());
  const std::vector<float> in = boundary_inputs();
  const num::array_options o =
      edge_options(num::binary16, 32, num::random_draws::full_word, num::overflow_mode::ieee, GetParam());
  EXPECT_EQ(fp16_patterns_taking_both_neighbours(
                in, o, {0x32C00000u, 0x33400000u, 0x38401000u, 0x38801000u, 0x3F801000u, 0x477FF000u}),
            6u);
}

TEST_P(Stochastic16Edges, Fp64BoundariesMatchCoreForEveryCutAndOverflowMode) {
  NUMLAB_REQUIRE_PATH(GetParam());
  expect_core_bits_for_every_cut(boundary_inputs64(), GetParam());
}

// As InexactBoundaryValuesTakeBothNeighbours, for fp64 inputs: values that
// cut a quarter to 3/4 of a quantum (fp16: below 2^-24, subnormal, normal,
// one, 65520 toward infinity; bf16: below 2^-133, subnormal, one) take both
// neighbours among their draws.
TEST_P(Stochastic16Edges, Fp64InexactBoundaryValuesTakeBothNeighbours) {
  NUMLAB_REQUIRE_PATH(GetParam());
  const std::vector<double> in = boundary_inputs64();
  std::size_t both = 0, checked = 0;
  for (const num::format& f : {num::binary16, num::bfloat16_format}) {
    const num::array_options o = edge_options(f, 32, num::random_draws::full_word, num::overflow_mode::ieee, GetParam());
    std::vector<std::uint16_t> codes(in.size());
    num::encode_array(std::span<const double>(in), std::span<std::uint16_t>(codes), o);
    const std::vector<std::uint64_t> fp16_patterns = {0x3E58000000000000, 0x3E68000000000000, 0x3F08020000000000,
                                                      0x3F10020000000000, 0x3FF0020000000000, 0x40EFFE0000000001};
    const std::vector<std::uint64_t> bf16_patterns = {0x3780000000000000, 0x37E0800000000000, 0x3FF0100000000000};
    for (std::uint64_t pattern : f == num::binary16 ? fp16_patterns : bf16_patterns) {
      ++checked;
      bool down = false, up = false;
      const std::uint16_t low =
          num::from_double(f, std::bit_cast<double>(pattern), {num::rounding::toward_zero, 32}, 0).bits;
      for (std::size_t i = 0; i < in.size(); ++i) {
        if (std::bit_cast<std::uint64_t>(in[i]) != pattern) continue;
        down = down || codes[i] == low;
        up = up || codes[i] == low + 1;
      }
      both += down && up ? 1 : 0;
    }
  }
  EXPECT_EQ(both, checked);
}

// The partial vectors at a call's ends (an unaligned head: the first vector
// starts at the aligned position below the first element; a tail shorter
// than a vector) against the core: every start position modulo 8, twice,
// and lengths around one and two vectors of either path, fp32 and fp64,
// both draws.
template <class T>
void expect_partial_vectors_match_core(const std::vector<T>& all, num::simd_path path) {
  for (const num::format& f : {num::binary16, num::bfloat16_format}) {
    for (num::random_draws d : {num::random_draws::full_word, num::random_draws::half_word}) {
      num::array_options o = edge_options(f, d == num::random_draws::half_word ? 16 : 32, d, num::overflow_mode::ieee, path);
      for (std::uint64_t first = 0; first < 16; ++first) {
        for (std::size_t n : {1, 2, 7, 8, 9, 15, 16, 17, 23, 31, 33, 47, 100}) {
          o.first_index = first;
          const auto begin = all.begin() + static_cast<std::ptrdiff_t>(first * 31 + n);
          expect_core_bits16(std::vector<T>(begin, begin + static_cast<std::ptrdiff_t>(n)), o);
        }
      }
    }
  }
}

TEST_P(Stochastic16Edges, PartialVectorsAtEveryStartAndLengthMatchCore) {
  NUMLAB_REQUIRE_PATH(GetParam());
  expect_partial_vectors_match_core(boundary_inputs(), GetParam());
  expect_partial_vectors_match_core(boundary_inputs64(), GetParam());
}

// fp16's way for vectors whose lanes are all zero or at least 2^-14 (the
// cut is 13 bits in every lane): vectors made only of such values, at 2^-14
// itself, in the top binade, at 65504 and the values that round up to
// overflow, with infinities, NaNs and zeros among them; then the same
// with some vectors holding one lane below 2^-14 (just below it, a
// subnormal result, a result of 0 or 2^-24, an fp32 subnormal) at every
// lane position, which sends that vector and the rest of its block the
// general way. r = 32, 14, 13, 12, 1 under both draws and every overflow
// mode, every path, against the core.
std::vector<std::uint32_t> fp16_normal_range_patterns() {
  std::vector<std::uint32_t> p;
  const std::uint32_t fractions[] = {0, 1, 0xFFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x7FE000, 0x7FEFFF, 0x7FF000,
                                     0x7FF001, 0x7FFFFF};
  for (std::uint32_t e : {113u, 114u, 127u, 141u, 142u, 143u, 254u}) {
    for (std::uint32_t f : fractions) p.push_back(e << 23 | f);
  }
  // Zero, 2^16 (beyond fp16's range), infinity, NaNs.
  const std::uint32_t others[] = {0, 0x47800000, 0x7F800000, 0x7F800001, 0x7FC00000, 0x7FFFFFFF, 0x7FC12345};
  p.insert(p.end(), std::begin(others), std::end(others));
  return p;
}

TEST_P(Stochastic16Edges, Fp16NormalRangeVectorsMatchCore) {
  NUMLAB_REQUIRE_PATH(GetParam());
  const std::vector<float> normal = walked_inputs<float>(fp16_normal_range_patterns());
  // In every third group of 16 values one below 2^-14, its lane moving by
  // one each time (16 is a multiple of both paths' vector width), so that
  // the kernels' blocks of vectors start in the normal range and meet a
  // vector outside it part way.
  const std::uint32_t small[] = {0x387FFFFF, 0x38000001, 0x33000001, 0x3380F000, 0x00000001, 0x007FFFFF};
  std::vector<float> mixed = normal;
  for (std::size_t group = 0; group * 16 + 15 < mixed.size(); group += 3) {
    const std::uint32_t sign = group % 2 == 0 ? 0 : 0x80000000u;
    mixed[group * 16 + group / 3 % 16] = std::bit_cast<float>(small[group / 3 % std::size(small)] | sign);
  }
  for (int r : {32, 14, 13, 12, 1}) {
    for (num::random_draws d : {num::random_draws::full_word, num::random_draws::half_word}) {
      if (d == num::random_draws::half_word && r > 16) continue;
      for (num::overflow_mode ov : {num::overflow_mode::ieee, num::overflow_mode::saturate, num::overflow_mode::nan}) {
        num::array_options o = edge_options(num::binary16, r, d, ov, GetParam());
        o.first_index = 0;  // whole vectors from the first element
        expect_core_bits16(normal, o);
        expect_core_bits16(mixed, o);
      }
    }
  }
}

// The comparison above is not between two constant answers: in the
// normal-range vectors, 2^-14 and 1 each plus half a quantum, and
// 65520 (half way to 2^16, which overflows) take both neighbours at r = 32.
TEST_P(Stochastic16Edges, Fp16NormalRangeValuesTakeBothNeighbours) {
  NUMLAB_REQUIRE_PATH(GetParam());
  const std::vector<float> in = walked_inputs<float>(fp16_normal_range_patterns());
  num::array_options o =
      edge_options(num::binary16, 32, num::random_draws::full_word, num::overflow_mode::ieee, GetParam());
  o.first_index = 0;
  EXPECT_EQ(fp16_patterns_taking_both_neighbours(in, o, {0x38801000u, 0x3F801000u, 0x477FF000u}), 3u);
}

INSTANTIATE_TEST_SUITE_P(Kernels, Stochastic16Edges, ::testing::ValuesIn(all_paths),
                         [](const auto& info) { return std::string(num::simd_path_name(info.param)); });

}  // namespace
