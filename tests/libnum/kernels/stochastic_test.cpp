// Stochastic rounding in the kernels: the same (seed, stream) gives the same
// bits whatever the thread count, chunking, first index or path; and the
// mean of many roundings of one value is that value within a stated bound.
#include <gtest/gtest.h>

#include <cmath>

#include "kernel_oracle.hpp"

namespace {

using namespace kernel_test;

std::vector<float> log_uniform(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> e(-30, 10);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>((rng() % 2 ? -1 : 1) * std::exp2(e(rng)));
  return v;
}

num::array_options stochastic_options(const num::format& f, int r) {
  num::array_options o;
  o.target = f;
  o.spec.mode = num::rounding::stochastic;
  o.spec.random_bits = r;
  o.seed = 0xDEADBEEF12345ull;
  o.stream = 9;
  o.first_index = 1000003;
  return o;
}

template <class T>
std::vector<std::uint16_t> encode(const std::vector<T>& in, const num::array_options& o) {
  std::vector<std::uint16_t> out(in.size());
  num::encode_array(std::span<const T>(in), std::span<std::uint16_t>(out), o);
  return out;
}

// in (float or double) on every path, thread count and split against the
// scalar path's single call, whose samples the core checks.
template <class T>
void expect_same_bits_across_threads_chunks_and_paths(const std::vector<T>& in) {
  for (const num::format& f : {num::binary16, num::bfloat16_format}) {
    for (int r : {32, 8, 3}) {
      num::array_options o = stochastic_options(f, r);
      o.path = num::simd_path::scalar;
      const std::vector<std::uint16_t> reference = encode(in, o);
      // The core element by element is the oracle for the reference.
      for (std::size_t i = 0; i < in.size(); i += 97) {
        ASSERT_EQ(reference[i], core_round(in[i], o, i).bits) << describe(o) << " at " << i;
      }
      for (num::simd_path path : all_paths) {
        if (!num::simd_path_supported(path)) {
          std::printf("skipping the %s path: this CPU cannot run it\n", std::string(num::simd_path_name(path)).c_str());
          continue;
        }
        o.path = path;
        for (unsigned threads : {1u, 2u, 3u}) {
          o.threads = threads;
          o.parallel_threshold = 1000;
          EXPECT_EQ(encode(in, o), reference) << describe(o) << " threads " << threads;
        }
        // The automatic threshold (per input type) on as many threads as
        // OpenMP offers.
        o.threads = 0;
        o.parallel_threshold.reset();
        EXPECT_EQ(encode(in, o), reference) << describe(o) << " threads 0";
        o.threads = 1;
        // Split at aligned and unaligned points: each piece with its own first index.
        for (std::size_t split : {std::size_t{1}, std::size_t{3}, std::size_t{64}, std::size_t{4097}, in.size() - 5}) {
          const std::vector<T> head(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(split));
          const std::vector<T> tail(in.begin() + static_cast<std::ptrdiff_t>(split), in.end());
          std::vector<std::uint16_t> joined = encode(head, o);
          num::array_options rest = o;
          rest.first_index = o.first_index + split;
          const std::vector<std::uint16_t> second = encode(tail, rest);
          joined.insert(joined.end(), second.begin(), second.end());
          EXPECT_EQ(joined, reference) << describe(o) << " split at " << split;
        }
      }
    }
  }
}

TEST(Stochastic, SameBitsAcrossThreadsChunksAndPaths) {
  expect_same_bits_across_threads_chunks_and_paths(log_uniform(50'003, 1));
}

// fp64 inputs (the values above with bits below fp32's precision), long
// enough that the automatic threshold splits them.
TEST(Stochastic, Fp64SameBitsAcrossThreadsChunksAndPaths) {
  std::vector<double> in;
  for (float x : log_uniform(50'003, 2)) in.push_back(static_cast<double>(x) * (1 + 0x1p-35));
  expect_same_bits_across_threads_chunks_and_paths(in);
}

TEST(Stochastic, OtherSeedOrStreamGivesOtherBits) {
  const std::vector<float> in = log_uniform(4096, 2);
  const num::array_options o = stochastic_options(num::binary16, 32);
  num::array_options other_seed = o, other_stream = o;
  other_seed.seed += 1;
  other_stream.stream += 1;
  EXPECT_NE(encode(in, o), encode(in, other_seed));
  EXPECT_NE(encode(in, o), encode(in, other_stream));
}

// x = lo + f * ulp rounds up with probability floor(f * 2^r) / 2^r (the
// definition in docs/NUMERICS.md), so the mean of n roundings is
// lo + ulp * floor(f * 2^r) / 2^r, and its standard error is
// ulp * sqrt(q (1 - q) / n) for that probability q. The test allows 6
// standard errors (a false alarm about once in 10^9 runs).
void check_mean(num::simd_path path, int r, double f) {
  const double lo = 1.0, ulp = std::ldexp(1.0, -10);  // fp16 spacing in [1, 2)
  const auto x = static_cast<float>(lo + f * ulp);
  const std::size_t n = std::size_t{1} << 20;
  std::vector<float> data(n, x);
  num::array_options o = stochastic_options(num::binary16, r);
  o.path = path;
  num::round_array_in_place(data, o);
  double sum = 0;
  for (float v : data) {
    ASSERT_TRUE(v == 1.0f || v == static_cast<float>(lo + ulp)) << v;
    sum += v;
  }
  const double q = std::floor(f * std::ldexp(1.0, r)) / std::ldexp(1.0, r);
  const double expected = lo + ulp * q;
  const double bound = 6 * ulp * std::sqrt(q * (1 - q) / static_cast<double>(n)) + 1e-12;
  EXPECT_NEAR(sum / static_cast<double>(n), expected, bound) << "r=" << r << " f=" << f;
  if (r == 32) {
    EXPECT_NEAR(sum / static_cast<double>(n), x, bound + ulp * 0x1p-32);
  }
}

class StochasticMean : public ::testing::TestWithParam<num::simd_path> {};

TEST_P(StochasticMean, MeanOfManyRoundingsIsTheValue) {
  NUMLAB_REQUIRE_PATH(GetParam());
  check_mean(GetParam(), 32, 0.3);
  check_mean(GetParam(), 8, 0.3);      // floor(0.3 * 256) / 256 = 76/256: biased low by r = 8
  check_mean(GetParam(), 2, 0.8);      // floor(3.2) / 4 = 3/4
}

INSTANTIATE_TEST_SUITE_P(Kernels, StochasticMean, ::testing::ValuesIn(all_paths),
                         [](const auto& info) { return std::string(num::simd_path_name(info.param)); });

}  // namespace
