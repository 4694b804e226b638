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

// Lengths that leave a partial vector (and a start that is not vector
// aligned), in each code width: the whole-vector loop and the partial tail
// must decode alike, and nothing past the end may be written.
template <class Code>
void decode_lengths(const num::format& f, num::simd_path path) {
  std::vector<Code> codes(100);
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<Code>(0x9e3779b9u * (i + 1) >> 7);
  for (const std::size_t start : {std::size_t{0}, std::size_t{3}}) {
    for (const std::size_t n : {1, 7, 15, 16, 17, 31, 33, 64, 97}) {
      num::decode_options d;
      d.source = f;
      d.path = path;
      std::vector<float> decoded(n + 1, -7.0f);
      num::decode_array(std::span<const Code>(codes).subspan(start, n), std::span<float>(decoded).first(n), d);
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(float_bits(decoded[i]), float_bits(num::to_float(f, codes[start + i])))
            << num::format_name(f) << " n " << n << " start " << start << " element " << i;
      }
      EXPECT_EQ(decoded[n], -7.0f) << num::format_name(f) << " n " << n << ": wrote past the end";
    }
  }
}

TEST_P(RoundTrip, DecodesPartialVectorsInEveryCodeWidth) {
  NUMLAB_REQUIRE_PATH(GetParam());
  decode_lengths<std::uint8_t>(num::fp8_e4m3, GetParam());
  decode_lengths<std::uint16_t>(num::binary16, GetParam());
  decode_lengths<std::uint16_t>(num::bfloat16_format, GetParam());
  decode_lengths<std::uint32_t>(num::tf32, GetParam());
  decode_lengths<std::uint32_t>(num::binary32, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Kernels, RoundTrip, ::testing::ValuesIn(all_paths),
                         [](const auto& info) { return std::string(num::simd_path_name(info.param)); });

}  // namespace
