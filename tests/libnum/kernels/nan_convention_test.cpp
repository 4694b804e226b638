// The array kernels under each NaN convention, on every SIMD path this CPU
// runs: NaN inputs (at positions on both sides of a SIMD width) give the
// convention's NaN, and every other element is the same as by default.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <libnum/array.hpp>

namespace {

using num::nan_convention;

// Positive and negative quiet NaNs with payloads, a signalling NaN, numbers.
std::vector<float> inputs() {
  std::vector<float> v(40, 1.5f);
  v[3] = std::bit_cast<float>(std::uint32_t{0xFFE02000});  // -qNaN, fraction 0x602000
  v[17] = std::bit_cast<float>(std::uint32_t{0x7FC00001});
  v[33] = std::bit_cast<float>(std::uint32_t{0x7F800001});  // signalling
  v[34] = -1e6f;                                            // overflows fp16 to -inf: not a NaN
  v[35] = -std::numeric_limits<float>::infinity();
  return v;
}

TEST(ArrayNanConvention, EncodingsAndRoundedValues) {
  const std::vector<float> in = inputs();
  for (const num::simd_path path : {num::simd_path::scalar, num::simd_path::avx2, num::simd_path::avx512}) {
    if (!num::simd_path_supported(path)) continue;
    num::array_options base;
    base.path = path;
    std::vector<std::uint16_t> reference(in.size());
    num::encode_array(in, std::span<std::uint16_t>(reference), base);
    // By default the NaNs keep sign and top payload: 0xFFE02000 -> 0xFF01.
    EXPECT_EQ(reference[3], 0xFF01);
    for (const nan_convention c : num::all_nan_conventions) {
      SCOPED_TRACE(std::string(num::simd_path_name(path)) + " " + std::string(num::nan_convention_name(c)));
      num::array_options o = base;
      o.spec.nans = c;
      std::vector<std::uint16_t> codes(in.size());
      num::encode_array(in, std::span<std::uint16_t>(codes), o);
      std::vector<float> values(in.size());
      num::round_array(in, values, o);
      // fp16 0x7E00 as fp32 is 0x7FC00000; 0x7FFF is 0x7F800000 | 0x3FF << 13.
      const std::uint16_t nan = c == nan_convention::arm_default_nan  ? 0x7E00
                                : c == nan_convention::cuda_canonical ? 0x7FFF
                                                                      : 0;
      const std::uint32_t nan_value = nan == 0x7E00 ? 0x7FC00000u : 0x7FFFE000u;
      for (std::size_t i = 0; i < in.size(); ++i) {
        const bool is_nan_input = i == 3 || i == 17 || i == 33;
        if (is_nan_input && nan != 0) {
          EXPECT_EQ(codes[i], nan) << i;
          EXPECT_EQ(std::bit_cast<std::uint32_t>(values[i]), nan_value) << i;
        } else {
          EXPECT_EQ(codes[i], reference[i]) << i;
        }
      }
      EXPECT_EQ(codes[34], 0xFC00);
    }
  }
}

TEST(ArrayNanConvention, EightBitFormats) {
  const std::vector<float> in = inputs();
  num::array_options o;
  o.target = num::fp8_e4m3;
  o.spec.nans = nan_convention::cuda_canonical;
  std::vector<std::uint8_t> codes(in.size());
  num::encode_array(in, std::span<std::uint8_t>(codes), o);
  EXPECT_EQ(codes[3], 0x7F);  // E4M3's only positive NaN, S.1111.111
  EXPECT_EQ(codes[0], 0x3C);  // 1.5 = 2^0 * 1.100: exponent field 7, fraction 100
  // -1e6 overflows E4M3 (no infinities) to a NaN that keeps its sign under
  // CUDA's convention, as an H100's __nv_cvt_float_to_fp8 with __NV_NOSAT
  // does (tests/device): S.1111.111 with S = 1.
  EXPECT_EQ(codes[34], 0xFF);
  EXPECT_EQ(codes[35], 0xFF);  // -inf, which E4M3 cannot hold, likewise
  o.spec.nans = nan_convention::first_operand;
  num::encode_array(in, std::span<std::uint8_t>(codes), o);
  EXPECT_EQ(codes[3], 0xFF);
  EXPECT_EQ(codes[34], 0xFF);
}

// The same in place and as rounded values, on every path: the NaN input
// becomes E4M3's positive NaN, the overflow the negative one.
TEST(ArrayNanConvention, CudaOverflowNanKeepsItsSignInPlace) {
  for (const num::simd_path path : {num::simd_path::scalar, num::simd_path::avx2, num::simd_path::avx512}) {
    if (!num::simd_path_supported(path)) continue;
    SCOPED_TRACE(std::string(num::simd_path_name(path)));
    num::array_options o;
    o.path = path;
    o.target = num::fp8_e4m3;
    o.spec.nans = nan_convention::cuda_canonical;
    std::vector<float> data = inputs();
    num::round_array_in_place(data, o);
    EXPECT_FALSE(std::signbit(data[3]));
    EXPECT_TRUE(std::isnan(data[3]));
    EXPECT_TRUE(std::signbit(data[34]));
    EXPECT_TRUE(std::isnan(data[34]));
    EXPECT_TRUE(std::signbit(data[35]));
    EXPECT_TRUE(std::isnan(data[35]));
    EXPECT_EQ(data[0], 1.5f);
  }
}

}  // namespace
