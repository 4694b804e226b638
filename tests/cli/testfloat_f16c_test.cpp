// `numlab testfloat` conversions against the CPU's F16C instructions
// (vcvtps2ph / vcvtph2ps), an independent oracle, over many lines at once.
// Skipped, with a message, on CPUs without F16C.
#include <libnum/cpu_features.hpp>
#include <gtest/gtest.h>
#include <immintrin.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "reference_codec.hpp"
#include "run_process.hpp"

namespace numlab::testing {
namespace {

template <int Rounding>
__attribute__((target("f16c"))) std::uint16_t f16c_from_float(float x) {
  return static_cast<std::uint16_t>(_mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(x), Rounding), 0));
}

__attribute__((target("f16c"))) float f16c_to_float(std::uint16_t h) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h)));
}

using oracle::is_f16_nan;

// fp32 inputs that cover every fp16 binade, its ties and its overflow and underflow edges.
std::vector<std::uint32_t> float_inputs() {
  std::vector<std::uint32_t> inputs;
  std::mt19937 gen(20261122);
  std::uniform_int_distribution<std::uint32_t> exponent(0x60, 0x90), fraction(0, 0x7FFFFF), sign(0, 1);
  for (int i = 0; i < 20000; ++i) {
    std::uint32_t f = fraction(gen);
    if (i % 4 == 0) f = (f & ~0x1FFFu) | 0x1000u;  // exactly halfway between fp16 neighbours
    inputs.push_back(sign(gen) << 31 | exponent(gen) << 23 | f);
  }
  for (std::uint32_t special : {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x00000001u,
                                0x477FEFFFu, 0x477FF000u, 0x33000000u, 0x33000001u, 0x7F7FFFFFu}) {
    inputs.push_back(special);
  }
  return inputs;
}

template <int Rounding>
void expect_f32_to_f16_matches(const char* option) {
  const std::vector<std::uint32_t> inputs = float_inputs();
  std::string text;
  for (const std::uint32_t x : inputs) {
    char line[16];
    std::snprintf(line, sizeof line, "%08X\n", x);
    text += line;
  }
  const process_result r = run_numlab({"testfloat", "f32_to_f16", option}, text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), inputs.size());
  int mismatches = 0;
  for (std::size_t i = 0; i < inputs.size() && mismatches < 10; ++i) {
    const auto ours = static_cast<std::uint32_t>(std::stoul(lines[i].substr(9, 4), nullptr, 16));
    const std::uint16_t hardware = f16c_from_float<Rounding>(std::bit_cast<float>(inputs[i]));
    const bool agree = is_f16_nan(hardware) ? is_f16_nan(ours) : ours == hardware;
    if (!agree) ++mismatches;
    EXPECT_TRUE(agree) << option << ' ' << lines[i] << " vs F16C " << std::hex << hardware;
  }
}

TEST(TestfloatF16c, F32ToF16AgreesInEveryDirectedMode) {
  if (!num::host_cpu().f16c) GTEST_SKIP() << "this CPU has no F16C";
  expect_f32_to_f16_matches<_MM_FROUND_TO_NEAREST_INT>("-rnear_even");
  expect_f32_to_f16_matches<_MM_FROUND_TO_ZERO>("-rminMag");
  expect_f32_to_f16_matches<_MM_FROUND_TO_POS_INF>("-rmax");
  expect_f32_to_f16_matches<_MM_FROUND_TO_NEG_INF>("-rmin");
}

TEST(TestfloatF16c, EveryF16WidensToTheSameFloat) {
  if (!num::host_cpu().f16c) GTEST_SKIP() << "this CPU has no F16C";
  std::string text;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    char line[8];
    std::snprintf(line, sizeof line, "%04X\n", h);
    text += line;
  }
  const process_result r = run_numlab({"testfloat", "f16_to_f32"}, text);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 0x10000u);
  int mismatches = 0;
  for (std::uint32_t h = 0; h < 0x10000 && mismatches < 10; ++h) {
    const auto ours = static_cast<std::uint32_t>(std::stoul(lines[h].substr(5, 8), nullptr, 16));
    const auto hardware = std::bit_cast<std::uint32_t>(f16c_to_float(static_cast<std::uint16_t>(h)));
    // NaNs: both quiet NaNs of the same sign (payload details may differ).
    const bool agree = is_f16_nan(h) ? (ours & 0xFFC00000u) == (hardware & 0xFFC00000u) : ours == hardware;
    if (!agree) ++mismatches;
    EXPECT_TRUE(agree) << lines[h] << " vs F16C " << std::hex << hardware;
  }
}

}  // namespace
}  // namespace numlab::testing
