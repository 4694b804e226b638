// The CPU's conversion instructions as an oracle where the CPU has them:
// vcvtps2ph (F16C, all four rounding immediates) and vcvtneps2bf16
// (AVX512-BF16) on a dense sample of float patterns, vcvtph2ps on all 2^16
// fp16 patterns. The exhaustive sweeps are in slow/.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include <libnum/codec.hpp>

#include "hardware_conversions.hpp"

namespace {

void expect_agreement(const hardware::tally& t, const std::string& what) {
  std::printf("[ hardware ] %s: %llu cases, %llu mismatches, %llu NaN payload differences\n", what.c_str(),
              static_cast<unsigned long long>(t.cases), static_cast<unsigned long long>(t.mismatches),
              static_cast<unsigned long long>(t.nan_payload_differences));
  std::string examples;
  for (const std::string& e : t.examples) examples += "\n  " + e;
  EXPECT_EQ(t.mismatches, 0u) << what << examples;
  EXPECT_GT(t.cases, 0u);
}

// Every 4099th pattern (odd, so the low bits vary), 2^20 of them.
constexpr std::uint64_t sample_stride = 4099, sample_count = std::uint64_t{1} << 20;

TEST(HardwareConversion, Vcvtps2phAgreesInAllFourModesOnADenseSample) {
  if (!hardware::has_f16c()) GTEST_SKIP() << "CPU has no F16C (vcvtps2ph)";
  for (num::rounding mode : hardware::f16c_modes) {
    expect_agreement(hardware::compare_fp16_conversion(0, sample_count, sample_stride, mode),
                     "vcvtps2ph " + std::string(num::rounding_name(mode)));
  }
}

TEST(HardwareConversion, Vcvtneps2bf16AgreesOnADenseSampleWithoutSubnormals) {
  if (!hardware::has_avx512bf16()) GTEST_SKIP() << "CPU has no AVX512-BF16 (vcvtneps2bf16)";
  expect_agreement(hardware::compare_bf16_conversion(0, sample_count, sample_stride), "vcvtneps2bf16 ne");
}

// vcvtph2ps is exact; it quiets a signalling NaN, as libnum's to_float does.
TEST(HardwareConversion, Vcvtph2psAgreesOnAllFp16Patterns) {
  if (!hardware::has_f16c()) GTEST_SKIP() << "CPU has no F16C (vcvtph2ps)";
  hardware::tally t;
  std::uint16_t in[4];
  float out[4];
  for (std::uint32_t h = 0; h < 0x10000; h += 4) {
    for (std::uint32_t k = 0; k < 4; ++k) in[k] = static_cast<std::uint16_t>(h + k);
    hardware::fp16_to_fp32(in, out);
    for (std::uint32_t k = 0; k < 4; ++k) {
      const auto got = std::bit_cast<std::uint32_t>(num::to_float(num::binary16, h + k));
      const auto want = std::bit_cast<std::uint32_t>(out[k]);
      t.record(h + k, got, want, false);  // NaNs too: sign, payload and quiet bit must match
    }
  }
  expect_agreement(t, "vcvtph2ps");
}

}  // namespace
