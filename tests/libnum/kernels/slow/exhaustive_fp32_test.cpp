// Every one of the 2^32 fp32 inputs through every dispatch path against the
// scalar core, bit for bit: fp16 and bf16 in nearest-even (the paths that use
// vcvtps2ph / vcvtneps2bf16), fp16 toward zero, and fp16 and bf16 stochastic
// (r = 32, and r = 11 for fp16) through the 16-bit stochastic fast path.
// The core runs on 2 threads; each slice of inputs is compared on all paths.
// Each case is split into quarters of the input space (sign and top exponent
// bit), each its own ctest entry, so one entry stays within a few minutes on
// a loaded 2-core machine and the quarters can run side by side.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "../kernel_oracle.hpp"

namespace {

using namespace kernel_test;

constexpr int quarters = 4;

// Input patterns [quarter * 2^30, (quarter + 1) * 2^30).
void exhaustive(const num::format& f, num::rounding mode, int random_bits, int quarter) {
  constexpr std::uint64_t span = std::uint64_t{1} << 30;
  const std::uint64_t begin = static_cast<std::uint64_t>(quarter) * span;
  const std::uint64_t total = begin + span;
  constexpr std::size_t slice = std::size_t{1} << 20;
  std::atomic<std::uint64_t> mismatches{0};
  std::atomic<std::uint64_t> first_bad{total};
  const auto start = std::chrono::steady_clock::now();
  auto worker = [&](unsigned part) {
    std::vector<float> in(slice);
    std::vector<std::uint16_t> want(slice), got(slice);
    std::vector<float> want_values(slice), got_values(slice);
    std::vector<std::uint32_t> words(slice);
    for (std::uint64_t base = begin + part * slice; base < total; base += 2 * slice) {
      num::array_options o;
      o.target = f;
      o.spec.mode = mode;
      o.spec.random_bits = random_bits;
      o.seed = 99;
      o.first_index = base;  // element i of the slice is input pattern base + i
      // The words the kernels must use (word_for's, one Philox block per four).
      num::random_stream(o.seed, o.stream).fill(words, base);
      for (std::size_t i = 0; i < slice; ++i) {
        in[i] = std::bit_cast<float>(static_cast<std::uint32_t>(base + i));
        want[i] = static_cast<std::uint16_t>(num::from_float(f, in[i], o.spec, words[i]).bits);
        want_values[i] = num::to_float(f, want[i]);
      }
      for (num::simd_path path : all_paths) {
        if (!num::simd_path_supported(path)) continue;
        o.path = path;
        num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(got), o);
        num::round_array(std::span<const float>(in), std::span<float>(got_values), o);
        for (std::size_t i = 0; i < slice; ++i) {
          if (got[i] != want[i] || float_bits(got_values[i]) != float_bits(want_values[i])) {
            ++mismatches;
            std::uint64_t expected = first_bad.load();
            while (base + i < expected && !first_bad.compare_exchange_weak(expected, base + i)) {
            }
          }
        }
      }
    }
  };
  std::jthread second(worker, 1u);
  worker(0);
  second.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s %s (r = %d): inputs 0x%08llx..0x%08llx on every available path in %.1f s\n",
              num::format_name(f).c_str(), std::string(num::rounding_name(mode)).c_str(), random_bits,
              static_cast<unsigned long long>(begin), static_cast<unsigned long long>(total - 1), seconds);
  EXPECT_EQ(mismatches.load(), 0u) << num::format_name(f) << " " << num::rounding_name(mode)
                                   << ": first mismatching input 0x" << std::hex << first_bad.load();
}

class ExhaustiveFp32 : public ::testing::TestWithParam<int> {};

TEST_P(ExhaustiveFp32, Fp16NearestEven) { exhaustive(num::binary16, num::rounding::nearest_even, 32, GetParam()); }
TEST_P(ExhaustiveFp32, Bf16NearestEven) {
  exhaustive(num::bfloat16_format, num::rounding::nearest_even, 32, GetParam());
}
TEST_P(ExhaustiveFp32, Fp16TowardZero) { exhaustive(num::binary16, num::rounding::toward_zero, 32, GetParam()); }
TEST_P(ExhaustiveFp32, Fp16Stochastic) { exhaustive(num::binary16, num::rounding::stochastic, 32, GetParam()); }
TEST_P(ExhaustiveFp32, Fp16StochasticElevenBits) {
  exhaustive(num::binary16, num::rounding::stochastic, 11, GetParam());
}
TEST_P(ExhaustiveFp32, Bf16Stochastic) { exhaustive(num::bfloat16_format, num::rounding::stochastic, 32, GetParam()); }

INSTANTIATE_TEST_SUITE_P(Quarter, ExhaustiveFp32, ::testing::Range(0, quarters));

}  // namespace
