// torch_cpu_kernels: which elements PyTorch 1.13's CPU kernels compute in
// their scalar loop (expected ranges derived by hand from Loops.h's blocks
// of two vectors and at::parallel_for's chunks; the 4-thread case was also
// seen in torch: add_'s double roundings at 23328 and 46666 of 70001), and
// torch_bf16_add's two arithmetics.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lab/errors.hpp"
#include "lab/precision_policy.hpp"
#include "lab/torch_cpu_kernels.hpp"

namespace lab {
namespace {

using ranges = std::vector<std::pair<std::size_t, std::size_t>>;

TEST(TorchCpuKernels, OneThreadTakesTheElementsAfterTheLastWholeBlock) {
  const torch_cpu_kernels avx2{torch_cpu_capability::avx2, 1}, avx512{torch_cpu_capability::avx512, 1};
  EXPECT_EQ(avx2.block(), 32u);
  EXPECT_EQ(avx512.block(), 64u);
  EXPECT_EQ(avx2.scalar_ranges(0), ranges{});
  EXPECT_EQ(avx2.scalar_ranges(1), (ranges{{0, 1}}));
  EXPECT_EQ(avx2.scalar_ranges(64), ranges{});
  EXPECT_EQ(avx2.scalar_ranges(95), (ranges{{64, 95}}));
  EXPECT_EQ(avx512.scalar_ranges(45), (ranges{{0, 45}}));
  EXPECT_EQ(avx512.scalar_ranges(127), (ranges{{64, 127}}));
  // One thread never splits, however long the tensor.
  EXPECT_EQ(avx2.scalar_ranges(70001), (ranges{{69984, 70001}}));
}

TEST(TorchCpuKernels, ThreadsSplitOnlyAboveTheGrainAndEachChunkHasItsTail) {
  const torch_cpu_kernels two{torch_cpu_capability::avx2, 2}, four{torch_cpu_capability::avx2, 4};
  EXPECT_EQ(two.scalar_ranges(32768 + 31), (ranges{{16384, 16400}, {32784, 32799}}));  // chunks 16400, 16399
  EXPECT_EQ(two.scalar_ranges(32767), (ranges{{32736, 32767}}));       // below the grain: serial
  EXPECT_EQ(two.scalar_ranges(70001), (ranges{{34976, 35001}, {69977, 70001}}));
  // min(4, ceil(70001 / 32768)) = 3 chunks of 23334.
  EXPECT_EQ(four.scalar_ranges(70001), (ranges{{23328, 23334}, {46662, 46668}, {69996, 70001}}));
}

TEST(TorchCpuKernels, Bf16AddRoundsTheProductOnlyInTheScalarLoop) {
  // s = b * 2^8 = 1 + 2^-7 (bf16): s * b = 2^-8 + 2^-14 + 2^-22, exact in
  // float; rounded to bf16 first it loses 2^-22.
  const float s = 1.0f + 0x1p-7f, b = 0x1p-8f + 0x1p-15f;
  std::vector<float> a(33, 1.0f), bs(33, b), out(33);
  torch_bf16_add({torch_cpu_capability::avx2, 1}, a, s, bs, out);
  EXPECT_EQ(out[31], 1.0f + 0x1p-8f + 0x1p-14f + 0x1p-22f);  // body: fused
  EXPECT_EQ(out[32], 1.0f + 0x1p-8f + 0x1p-14f);             // the one tail element
  // out may alias a.
  torch_bf16_add({torch_cpu_capability::avx2, 1}, a, s, bs, a);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(a[32]), std::bit_cast<std::uint32_t>(1.0f + 0x1p-8f + 0x1p-14f));
  EXPECT_EQ(a[0], 1.0f + 0x1p-8f + 0x1p-14f + 0x1p-22f);
}

TEST(TorchCpuKernels, ConfigKeyNamesCapabilityAndThreads) {
  precision_config c;
  c.preset = "bf16";
  EXPECT_FALSE(c.resolve().torch_bf16.has_value());  // off by default
  set_precision_value(c, "torch_bf16_kernels", "avx512:2", "test");
  const auto set = c.resolve().torch_bf16;
  ASSERT_TRUE(set.has_value());
  EXPECT_EQ(set->capability, torch_cpu_capability::avx512);
  EXPECT_EQ(set->threads, 2u);
  set_precision_value(c, "torch_bf16_kernels", "avx2", "test");
  EXPECT_EQ(c.resolve().torch_bf16->capability, torch_cpu_capability::avx2);
  EXPECT_EQ(c.resolve().torch_bf16->threads, 1u);
  set_precision_value(c, "torch_bf16_kernels", "off", "test");
  EXPECT_FALSE(c.resolve().torch_bf16.has_value());
  for (const char* bad : {"default", "avx2:0", "avx2:", "avx512:two"}) {
    try {
      set_precision_value(c, "torch_bf16_kernels", bad, "cfg.yml:3");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find("cfg.yml:3"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("torch_bf16_kernels"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace lab
