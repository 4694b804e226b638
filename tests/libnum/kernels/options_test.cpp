// Options of the array kernels: bad arguments are refused with a message
// naming them, NUMLAB_SIMD picks the path, threads do not change results.
#include <gtest/gtest.h>

#include <cstdlib>

#include "kernel_oracle.hpp"

namespace {

using namespace kernel_test;

template <class F>
std::string message_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no exception";
}

TEST(ArrayOptions, BadArgumentsAreRefusedWithAMessage) {
  std::vector<float> in(4, 1.0f);
  std::vector<std::uint8_t> narrow(4);
  std::vector<std::uint16_t> short_out(3);
  num::array_options o;
  EXPECT_NE(message_of([&] { num::encode_array(std::span<const float>(in), std::span<std::uint8_t>(narrow), o); })
                .find("needs 16 bits"),
            std::string::npos);
  EXPECT_NE(message_of([&] { num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(short_out), o); })
                .find("input has 4 elements but output has 3"),
            std::string::npos);
  o.spec.random_bits = 33;
  EXPECT_NE(message_of([&] { num::round_array_in_place(in, o); }).find("random bits"), std::string::npos);
  o = {};
  o.target = num::format{11, -14, 14, true, true};  // exponent field not filled
  EXPECT_NE(message_of([&] { num::round_array_in_place(in, o); }).find("invalid format"), std::string::npos);
  std::vector<float> overlap(8, 1.0f);
  EXPECT_NE(message_of([&] {
              num::round_array(std::span<const float>(overlap.data(), 4), std::span<float>(overlap.data() + 2, 4), {});
            }).find("overlap"),
            std::string::npos);
}

// NUMLAB_SIMD is read once per process, so this test checks whatever the
// process was started with; tests/CMakeLists.txt runs it again with
// NUMLAB_SIMD=scalar and with a bad value.
TEST(ArrayOptions, EnvironmentVariableChoosesThePath) {
  const char* env = std::getenv("NUMLAB_SIMD");
  const std::string requested = env == nullptr ? "" : env;
  std::vector<float> data(10, 0.1f);
  if (requested.empty()) {
    EXPECT_TRUE(num::simd_path_supported(num::resolve_simd_path(num::simd_path::automatic)));
  } else if (requested == "scalar") {
    EXPECT_EQ(num::resolve_simd_path(num::simd_path::automatic), num::simd_path::scalar);
    EXPECT_EQ(num::round_array_in_place(data, {}).path, num::simd_path::scalar);
  } else if (requested == "avx3") {
    const std::string message = message_of([] { num::resolve_simd_path(num::simd_path::automatic); });
    EXPECT_NE(message.find("NUMLAB_SIMD"), std::string::npos) << message;
    EXPECT_NE(message_of([&] { num::round_array_in_place(data, {}); }).find("avx3"), std::string::npos);
  } else {
    GTEST_SKIP() << "no expectation for NUMLAB_SIMD=" << requested;
  }
  // A path asked for explicitly ignores the environment.
  num::array_options scalar;
  scalar.path = num::simd_path::scalar;
  EXPECT_EQ(num::round_array_in_place(data, scalar).path, num::simd_path::scalar);
  for (num::simd_path p : all_paths) {
    if (!num::simd_path_supported(p)) {
      EXPECT_NE(message_of([p] { num::resolve_simd_path(p); }).find("cannot run"), std::string::npos);
    }
  }
}

TEST(ArrayOptions, ThreadsGiveTheSingleThreadedResultAndCounts) {
  std::mt19937 rng(4);
  std::vector<float> in(300'001);
  for (float& x : in) x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
  for (num::simd_path path : all_paths) {
    if (!num::simd_path_supported(path)) continue;
    num::array_options o;
    o.target = num::fp8_e4m3;
    o.spec.mode = num::rounding::nearest_even;
    o.want_counts = true;
    o.path = path;
    std::vector<std::uint8_t> one(in.size()), many(in.size());
    const num::conversion_result a = num::encode_array(std::span<const float>(in), std::span<std::uint8_t>(one), o);
    o.threads = 0;
    o.parallel_threshold = 1;
    const num::conversion_result b = num::encode_array(std::span<const float>(in), std::span<std::uint8_t>(many), o);
    EXPECT_EQ(one, many);
    EXPECT_EQ(a.counts, b.counts);
    EXPECT_EQ(a.raised, b.raised);
    // The single-threaded run against the core, every 101st element.
    for (std::size_t i = 0; i < in.size(); i += 101) ASSERT_EQ(one[i], core_round(in[i], o, i).bits) << i;
  }
}

}  // namespace
