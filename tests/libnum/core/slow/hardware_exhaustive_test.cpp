// vcvtps2ph (F16C, all four rounding immediates) and vcvtneps2bf16
// (AVX512-BF16, inputs without fp32 subnormals) against libnum on all 2^32
// float patterns, split over test_threads() workers (2 on the 2-core CI);
// each test prints its wall and CPU time.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>
#include <vector>

#include "hardware_conversions.hpp"
#include "sweep_threads.hpp"

namespace {

// Runs compare(first, count) over all 2^32 patterns in test_threads() pieces.
template <class Compare>
void sweep_all_floats(const std::string& what, Compare&& compare) {
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  const unsigned workers = test_threads();
  const std::uint64_t all = std::uint64_t{1} << 32;
  const std::uint64_t share = (all / workers + 15) / 16 * 16;  // whole vectors per worker
  std::vector<hardware::tally> tallies(workers);
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      const std::uint64_t first = std::min(w * share, all);
      tallies[w] = compare(first, std::min(share, all - first));
    });
  }
  for (std::thread& t : threads) t.join();
  hardware::tally t;
  for (const hardware::tally& part : tallies) t.merge(part);
  std::printf("[ hardware ] %s: %llu cases, %llu mismatches, %llu NaN payload differences\n", what.c_str(),
              static_cast<unsigned long long>(t.cases), static_cast<unsigned long long>(t.mismatches),
              static_cast<unsigned long long>(t.nan_payload_differences));
  report_time(what, start, cpu_start, workers);
  std::string examples;
  for (const std::string& e : t.examples) examples += "\n  " + e;
  EXPECT_EQ(t.mismatches, 0u) << what << examples;
}

class AllFloatsF16c : public ::testing::TestWithParam<num::rounding> {};

TEST_P(AllFloatsF16c, Vcvtps2phAgrees) {
  if (!hardware::has_f16c()) GTEST_SKIP() << "CPU has no F16C (vcvtps2ph)";
  const num::rounding mode = GetParam();
  sweep_all_floats("vcvtps2ph " + std::string(num::rounding_name(mode)) + " on all floats",
                   [&](std::uint64_t first, std::uint64_t count) {
                     return hardware::compare_fp16_conversion(first, count, 1, mode);
                   });
}

INSTANTIATE_TEST_SUITE_P(FourImmediates, AllFloatsF16c, ::testing::ValuesIn(hardware::f16c_modes),
                         [](const auto& info) { return std::string(num::rounding_name(info.param)); });

TEST(AllFloatsBf16, Vcvtneps2bf16AgreesWithoutSubnormals) {
  if (!hardware::has_avx512bf16()) GTEST_SKIP() << "CPU has no AVX512-BF16 (vcvtneps2bf16)";
  sweep_all_floats("vcvtneps2bf16 ne on all non-subnormal floats", [](std::uint64_t first, std::uint64_t count) {
    return hardware::compare_bf16_conversion(first, count, 1);
  });
}

}  // namespace
