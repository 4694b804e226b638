// Every dispatch path against the scalar core, bit for bit, on dense samples
// of every format and rounding mode (several stochastic r), from fp32 and
// fp64 inputs, as encodings and as rounded fp32 values.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "kernel_oracle.hpp"

namespace {

using namespace kernel_test;

struct mode_case {
  num::rounding mode;
  int random_bits;
};
const mode_case modes[] = {{num::rounding::nearest_even, 32},    {num::rounding::nearest_away, 32},
                           {num::rounding::toward_zero, 32},     {num::rounding::toward_positive, 32},
                           {num::rounding::toward_negative, 32}, {num::rounding::to_odd, 32},
                           {num::rounding::stochastic, 32},      {num::rounding::stochastic, 8},
                           {num::rounding::stochastic, 1},       {num::rounding::stochastic, 13}};

num::array_options options_for(const num::format& f, mode_case m, num::simd_path path) {
  num::array_options o;
  o.target = f;
  o.spec.mode = m.mode;
  o.spec.random_bits = m.random_bits;
  o.seed = 0x1234567890ABCDEFull;
  o.stream = 77;
  o.first_index = 5;  // not a multiple of 4: the kernels' unaligned head
  o.path = path;
  return o;
}

// Counts mismatches and describes the first few.
template <class In, class Got, class Want>
void expect_equal_bits(const std::vector<In>& in, const std::vector<Got>& got, const std::vector<Want>& want,
                       const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  std::size_t bad = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < want.size(); ++i) {
    std::uint64_t g = 0, w = 0, x = 0;
    std::memcpy(&g, &got[i], sizeof(Got));
    std::memcpy(&w, &want[i], sizeof(Want));
    std::memcpy(&x, &in[i], sizeof(In));
    if (g != w) {
      if (bad < 5) first << "\n  [" << i << "] input 0x" << std::hex << x << ": got 0x" << g << ", core 0x" << w << std::dec;
      ++bad;
    }
  }
  EXPECT_EQ(bad, 0u) << what << first.str();
}

template <class T>
void check_against_core(const std::vector<T>& in, const num::array_options& o) {
  const std::size_t n = in.size();
  std::vector<std::uint32_t> want(n);
  std::vector<float> want_values(n);
  for (std::size_t i = 0; i < n; ++i) {
    want[i] = core_round(in[i], o, i).bits;
    want_values[i] = num::to_float(o.target, want[i]);
  }
  const std::string what = describe(o) + (sizeof(T) == 4 ? " from fp32" : " from fp64");
  std::vector<std::uint32_t> wide(n);
  EXPECT_EQ(num::encode_array(std::span<const T>(in), std::span<std::uint32_t>(wide), o).path, o.path);
  expect_equal_bits(in, wide, want, what + " encode u32");
  if (o.target.total_bits() <= 16) {
    std::vector<std::uint16_t> narrow(n);
    num::encode_array(std::span<const T>(in), std::span<std::uint16_t>(narrow), o);
    expect_equal_bits(in, narrow, want, what + " encode u16");
  }
  if (o.target.total_bits() <= 8) {
    std::vector<std::uint8_t> narrow(n);
    num::encode_array(std::span<const T>(in), std::span<std::uint8_t>(narrow), o);
    expect_equal_bits(in, narrow, want, what + " encode u8");
  }
  std::vector<float> values(n);
  num::round_array(std::span<const T>(in), std::span<float>(values), o);
  expect_equal_bits(in, values, want_values, what + " round");
  if constexpr (sizeof(T) == 4) {
    std::vector<float> data = in;
    num::round_array_in_place(data, o);
    expect_equal_bits(in, data, want_values, what + " round in place");
  }
}

class DensePaths : public ::testing::TestWithParam<num::simd_path> {};

TEST_P(DensePaths, FloatInputsMatchCoreInEveryFormatAndMode) {
  NUMLAB_REQUIRE_PATH(GetParam());
  std::uint32_t seed = 1;
  for (const num::format& f : test_formats()) {
    const std::vector<float> in = interesting_floats(f, 1500, seed++);
    for (mode_case m : modes) check_against_core(in, options_for(f, m, GetParam()));
  }
}

TEST_P(DensePaths, DoubleInputsRoundOnceInEveryFormatAndMode) {
  NUMLAB_REQUIRE_PATH(GetParam());
  std::uint32_t seed = 100;
  for (const num::format& f : test_formats()) {
    const std::vector<double> in = interesting_doubles(f, 400, seed++);
    for (mode_case m : modes) check_against_core(in, options_for(f, m, GetParam()));
  }
}

TEST_P(DensePaths, OverflowModesAndFlushingMatchCore) {
  NUMLAB_REQUIRE_PATH(GetParam());
  for (const num::format& f : test_formats()) {
    const std::vector<float> in = interesting_floats(f, 300, 7);
    for (mode_case m : modes) {
      for (num::overflow_mode ov : {num::overflow_mode::ieee, num::overflow_mode::saturate, num::overflow_mode::nan}) {
        for (int flush = 0; flush < 4; ++flush) {
          num::array_options o = options_for(f, m, GetParam());
          o.spec.overflow = ov;
          o.flush_subnormal_inputs = (flush & 1) != 0;
          o.flush_subnormal_outputs = (flush & 2) != 0;
          check_against_core(in, o);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, DensePaths, ::testing::ValuesIn(all_paths),
                         [](const auto& info) { return std::string(num::simd_path_name(info.param)); });

}  // namespace
