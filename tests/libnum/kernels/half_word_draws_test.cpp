// The opt-in half-word random draws (num::random_draws::half_word): the
// stream itself against known answers computed independently in Python
// integers (tests/libnum/kernels/philox_reference.py), every path bit for bit
// against the core fed the same draws, r > 16 refused, and the statistics
// that make the draws usable for stochastic rounding: unbiased means, uniform
// low bits, and independent halves of one Philox word.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernel_oracle.hpp"

namespace {

using namespace kernel_test;

constexpr std::uint64_t reference_seed = 0x0123456789ABCDEFull;
constexpr std::uint64_t reference_stream = 0x0000000500000003ull;

TEST(HalfWordDraws, StreamMatchesIndependentReference) {
  // philox_reference.py: positions 0..7, 1001 and 2^33 + 1.
  const std::uint64_t positions[] = {0, 1, 2, 3, 4, 5, 6, 7, 1001, (std::uint64_t{1} << 33) + 1};
  const std::uint32_t expected[] = {0xf6140000, 0x7a0e0000, 0xcb030000, 0x984c0000, 0x30f00000,
                                    0xd9a80000, 0x4f7f0000, 0xfb2c0000, 0x51570000, 0xff9e0000};
  const num::random_stream s(reference_seed, reference_stream);
  for (std::size_t k = 0; k < std::size(positions); ++k) {
    EXPECT_EQ(num::draw_word(s, num::random_draws::half_word, positions[k]), expected[k]) << "position " << positions[k];
  }
  // full_word is the stream's own word.
  EXPECT_EQ(num::draw_word(s, num::random_draws::full_word, 5), s.word(5));
  EXPECT_EQ(num::parse_random_draws("half-word"), num::random_draws::half_word);
  EXPECT_EQ(num::parse_random_draws("full-word"), num::random_draws::full_word);
  EXPECT_THROW(num::parse_random_draws("half"), std::invalid_argument);
}

num::array_options half_word_options(const num::format& f, int r, num::simd_path path) {
  num::array_options o;
  o.target = f;
  o.spec.mode = num::rounding::stochastic;
  o.spec.random_bits = r;
  o.draws = num::random_draws::half_word;
  o.seed = 0xFEDCBA9876543210ull;
  o.stream = 41;
  o.first_index = 5;  // odd and not a multiple of 8: the unaligned head and the high half first
  o.path = path;
  return o;
}

template <class T>
void expect_core_bits(const std::vector<T>& in, const num::array_options& o) {
  std::vector<std::uint32_t> codes(in.size());
  std::vector<float> values(in.size());
  num::encode_array(std::span<const T>(in), std::span<std::uint32_t>(codes), o);
  num::round_array(std::span<const T>(in), std::span<float>(values), o);
  std::vector<std::uint16_t> narrow(in.size());
  const bool sixteen = o.target.total_bits() <= 16;
  if (sixteen) num::encode_array(std::span<const T>(in), std::span<std::uint16_t>(narrow), o);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < in.size() && bad < 5; ++i) {
    const std::uint32_t want = core_round(in[i], o, i).bits;
    const float want_value = num::to_float(o.target, want);
    const bool ok = codes[i] == want && float_bits(values[i]) == float_bits(want_value) && (!sixteen || narrow[i] == want);
    if (!ok) {
      ++bad;
      ADD_FAILURE() << describe(o) << (sizeof(T) == 4 ? " fp32" : " fp64") << " element " << i << ": got 0x"
                    << std::hex << codes[i] << ", core 0x" << want;
    }
  }
}

class HalfWordPaths : public ::testing::TestWithParam<num::simd_path> {};

// The 16-bit shortcut runs its 8-lane-block loop only on long stretches, so
// the inputs are repeated to several thousand elements.
TEST_P(HalfWordPaths, KernelsMatchCoreFedTheSameDraws) {
  NUMLAB_REQUIRE_PATH(GetParam());
  std::uint32_t seed = 300;
  for (const num::format& f : test_formats()) {
    std::vector<float> floats = interesting_floats(f, 600, seed++);
    while (floats.size() < 5000) floats.insert(floats.end(), floats.begin(), floats.begin() + 1000);
    const std::vector<double> doubles = interesting_doubles(f, 200, seed++);
    for (int r : {16, 11, 1}) {
      expect_core_bits(floats, half_word_options(f, r, GetParam()));
      expect_core_bits(doubles, half_word_options(f, r, GetParam()));
    }
  }
}

TEST_P(HalfWordPaths, SameBitsAcrossThreadsAndSplits) {
  NUMLAB_REQUIRE_PATH(GetParam());
  std::vector<float> in(40'000);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::ldexp(1.0f + static_cast<float>(i % 977) / 977.0f, static_cast<int>(i % 19) - 9);
  for (const num::format& f : {num::binary16, num::bfloat16_format}) {
    num::array_options o = half_word_options(f, 16, GetParam());
    std::vector<std::uint16_t> whole(in.size());
    num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(whole), o);
    num::array_options threaded = o;
    threaded.threads = 3;
    threaded.parallel_threshold = 1000;
    std::vector<std::uint16_t> parts(in.size());
    EXPECT_EQ(num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(parts), threaded).threads, 3u);
    EXPECT_EQ(parts, whole) << describe(o) << " on 3 threads";
    for (std::size_t split : {std::size_t{1}, std::size_t{7}, std::size_t{128}, std::size_t{4099}}) {
      num::array_options rest = o;
      rest.first_index = o.first_index + split;
      std::vector<std::uint16_t> joined(in.size());
      const std::span<const float> all(in);
      num::encode_array(all.first(split), std::span<std::uint16_t>(joined).first(split), o);
      num::encode_array(all.subspan(split), std::span<std::uint16_t>(joined).subspan(split), rest);
      EXPECT_EQ(joined, whole) << describe(o) << " split at " << split;
    }
  }
}

// x = 1 + k 2^-23 loses k's 13 bits in fp16 (16 in bf16: x = 1 + j 2^-23
// with j < 2^16), so with r = 16 it rounds up with probability exactly
// k / 2^13 (j / 2^16) and the mean of n roundings is x itself. Its standard
// error is ulp sqrt(q (1 - q) / n); 6 of them (a false alarm about once in
// 10^9 runs) is the bound.
void check_unbiased(num::simd_path path, const num::format& f, std::uint32_t cut, double ulp) {
  const float x = 1.0f + static_cast<float>(cut) * 0x1p-23f;
  const std::size_t n = std::size_t{1} << 20;
  std::vector<float> data(n, x);
  num::array_options o = half_word_options(f, 16, path);
  num::round_array_in_place(data, o);
  double sum = 0;
  for (float v : data) {
    ASSERT_TRUE(v == 1.0f || v == static_cast<float>(1.0 + ulp)) << v;
    sum += v;
  }
  const double q = (static_cast<double>(x) - 1.0) / ulp;
  const double bound = 6 * ulp * std::sqrt(q * (1 - q) / static_cast<double>(n));
  EXPECT_NEAR(sum / static_cast<double>(n), static_cast<double>(x), bound) << describe(o) << " x = " << x;
}

TEST_P(HalfWordPaths, MeanOfManyRoundingsIsTheValue) {
  NUMLAB_REQUIRE_PATH(GetParam());
  check_unbiased(GetParam(), num::binary16, 0x0999, 0x1p-10);
  check_unbiased(GetParam(), num::binary16, 0x1FFF, 0x1p-10);
  check_unbiased(GetParam(), num::bfloat16_format, 0x5A5A, 0x1p-7);
}

INSTANTIATE_TEST_SUITE_P(Kernels, HalfWordPaths, ::testing::ValuesIn(all_paths),
                         [](const auto& info) { return std::string(num::simd_path_name(info.param)); });

TEST(HalfWordDraws, MoreThanSixteenRandomBitsAreRefused) {
  const std::vector<float> in(8, 1.5f);
  std::vector<std::uint16_t> out(in.size());
  num::array_options o = half_word_options(num::binary16, 17, num::simd_path::automatic);
  try {
    num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(out), o);
    ADD_FAILURE() << "r = 17 with half-word draws was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("half-word random draws hold 16 bits but r = 17"), std::string::npos)
        << e.what();
  }
  o.spec.random_bits = 16;
  EXPECT_NO_THROW(num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(out), o));
  // Other modes read no random bits, so r's default of 32 stands.
  o.spec = num::round_spec{};
  EXPECT_NO_THROW(num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(out), o));
}

// Pearson's chi-square over 256 equally likely cells (255 degrees of
// freedom). Its 1 - 10^-6 quantile by the Wilson-Hilferty approximation,
// k (1 - 2/(9k) + z sqrt(2/(9k)))^3 with k = 255 and z = 4.753, is 377.
constexpr double chi_square_limit = 377.0;

double chi_square(const std::array<std::uint64_t, 256>& cells) {
  std::uint64_t total = 0;
  for (std::uint64_t c : cells) total += c;
  const double expected = static_cast<double>(total) / 256.0;
  double sum = 0;
  for (std::uint64_t c : cells) sum += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  return sum;
}

// The low 8 of a draw's 16 bits decide rounding only at r > 8, where a bias
// would hide from the mean test; the two halves of one Philox word feed
// neighbouring elements, so their joint top nibbles must be independent.
TEST(HalfWordDraws, LowBitsAreUniformAndHalvesIndependent) {
  const num::random_stream s(reference_seed, reference_stream);
  std::array<std::uint64_t, 256> low{}, pairs{};
  const std::uint64_t n = std::uint64_t{1} << 20;
  for (std::uint64_t p = 0; p < n; p += 2) {
    const std::uint32_t even = num::draw_word(s, num::random_draws::half_word, p);
    const std::uint32_t odd = num::draw_word(s, num::random_draws::half_word, p + 1);
    ++low[(even >> 16) & 0xFF];
    ++low[(odd >> 16) & 0xFF];
    ++pairs[(even >> 28) << 4 | odd >> 28];
  }
  EXPECT_LT(chi_square(low), chi_square_limit);
  EXPECT_LT(chi_square(pairs), chi_square_limit);
}

}  // namespace
