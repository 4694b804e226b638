// Every 16-bit and 8-bit pattern decoded on every path (against the core's
// to_float), and the decoded values rounded back in every mode.
#include <gtest/gtest.h>

#include <numeric>

#include "kernel_oracle.hpp"

namespace {

using namespace kernel_test;

template <class Code>
std::vector<Code> all_patterns(const num::format& f) {
  std::vector<Code> codes(std::size_t{1} << f.total_bits());
  std::iota(codes.begin(), codes.end(), Code{0});
  return codes;
}

template <class Code>
void round_trip(const num::format& f, num::simd_path path) {
  const std::vector<Code> codes = all_patterns<Code>(f);
  for (bool flush : {false, true}) {
    num::decode_options d;
    d.source = f;
    d.path = path;
    d.flush_subnormal_inputs = flush;
    std::vector<float> decoded(codes.size());
    EXPECT_EQ(num::decode_array(std::span<const Code>(codes), std::span<float>(decoded), d), path);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < codes.size(); ++i) {
      std::uint32_t want = float_bits(num::to_float(f, codes[i]));
      if (flush && num::classify(f, codes[i]) == num::value_class::subnormal) want &= 0x80000000u;
      if (float_bits(decoded[i]) != want && bad++ < 3) {
        ADD_FAILURE() << num::format_name(f) << " decode of 0x" << std::hex << +codes[i] << ": 0x"
                      << float_bits(decoded[i]) << ", core 0x" << want;
      }
    }
    EXPECT_EQ(bad, 0u) << num::format_name(f) << " flush " << flush;
  }

  num::decode_options d;
  d.source = f;
  std::vector<float> decoded(codes.size());
  num::decode_array(std::span<const Code>(codes), std::span<float>(decoded), d);
  for (num::rounding mode : num::all_roundings) {
    num::array_options o;
    o.target = f;
    o.spec.mode = mode;
    o.path = path;
    o.seed = 3;
    std::vector<Code> back(codes.size());
    num::encode_array(std::span<const float>(decoded), std::span<Code>(back), o);
    std::vector<float> values(codes.size());
    num::round_array(std::span<const float>(decoded), std::span<float>(values), o);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < codes.size(); ++i) {
      const std::uint32_t want = core_round(decoded[i], o, i).bits;
      if (back[i] != want || float_bits(values[i]) != float_bits(num::to_float(f, want))) ++bad;
      // Values of the format are exact: their canonical encodings come back
      // as themselves (NaNs come back quiet).
      const bool canonical = f.subnormals || ((codes[i] & ~f.sign_mask()) >> f.fraction_bits()) != 0 ||
                             (codes[i] & f.fraction_mask()) == 0;
      if (canonical && !num::is_nan(f, codes[i]) && want != codes[i]) ++bad;
    }
    EXPECT_EQ(bad, 0u) << describe(o);
  }
}

class RoundTrip : public ::testing::TestWithParam<num::simd_path> {};

TEST_P(RoundTrip, All16BitPatterns) {
  NUMLAB_REQUIRE_PATH(GetParam());
  round_trip<std::uint16_t>(num::binary16, GetParam());
  round_trip<std::uint16_t>(num::bfloat16_format, GetParam());
  round_trip<std::uint16_t>(num::make_format(8, -62, 64, true, false), GetParam());
}

TEST_P(RoundTrip, All8BitPatterns) {
  NUMLAB_REQUIRE_PATH(GetParam());
  for (const num::format& f : {num::fp8_e5m2, num::fp8_e4m3, num::make_format(4, -6, 7, false, true),
                               num::make_format(3, -2, 4, true, false)}) {
    round_trip<std::uint8_t>(f, GetParam());
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, RoundTrip, ::testing::ValuesIn(all_paths),
                         [](const auto& info) { return std::string(num::simd_path_name(info.param)); });

}  // namespace
