// The CPU-feature module: probed once per process, never again by array
// calls, and in agreement with the compiler runtime's own CPU model.
#include <gtest/gtest.h>

#include <libnum/cpu_features.hpp>

#include "kernel_oracle.hpp"

namespace {

using namespace kernel_test;

TEST(CpuFeatures, ArrayCallsNeverProbeTheCpuAgain) {
  (void)num::host_cpu();
  ASSERT_EQ(num::cpu_feature_probes(), 1);
  std::vector<float> data(16, 0.3f);
  std::vector<std::uint16_t> codes(16);
  for (int call = 0; call < 1000; ++call) {
    for (num::simd_path path : all_paths) {
      if (!num::simd_path_supported(path)) continue;
      num::array_options o;
      o.path = path;
      o.target = call % 2 == 0 ? num::binary16 : num::bfloat16_format;
      o.spec.mode = call % 3 == 0 ? num::rounding::stochastic : num::rounding::nearest_even;
      num::encode_array(std::span<const float>(data), std::span<std::uint16_t>(codes), o);
      num::round_array_in_place(data, o);
    }
    num::resolve_simd_path(num::simd_path::automatic);
  }
  EXPECT_EQ(num::cpu_feature_probes(), 1);
}

#if defined(__x86_64__) && defined(__GNUC__)
// libgcc / compiler-rt keep their own CPUID-derived model: an independent oracle.
TEST(CpuFeatures, AgreeWithTheCompilerRuntime) {
  const num::cpu_features& cpu = num::host_cpu();
  EXPECT_EQ(cpu.avx2, static_cast<bool>(__builtin_cpu_supports("avx2")));
  EXPECT_EQ(cpu.fma, static_cast<bool>(__builtin_cpu_supports("fma")));
  EXPECT_EQ(cpu.bmi2, static_cast<bool>(__builtin_cpu_supports("bmi2")));
  EXPECT_EQ(cpu.avx512f, static_cast<bool>(__builtin_cpu_supports("avx512f")));
  EXPECT_EQ(cpu.avx512bw, static_cast<bool>(__builtin_cpu_supports("avx512bw")));
  EXPECT_EQ(cpu.avx512dq, static_cast<bool>(__builtin_cpu_supports("avx512dq")));
  EXPECT_EQ(cpu.avx512vl, static_cast<bool>(__builtin_cpu_supports("avx512vl")));
}
#endif

}  // namespace
