// Scaled-format statistics on hand-derived tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <libnum/scaled_stats.hpp>
#include <stdexcept>
#include <vector>

namespace {

TEST(ScaledStats, Mxfp4BlocksScalesFractionsAndSnr) {
  // Block 0 (amax 4, X = 1): 4, 1, 0.25 (flushed: tie to 0), 3 -> errors 0, 0, 0.25, 0.
  // Block 1 (amax 7, X = 1): 7 saturates to 6 (error 1), 2 exact.
  num::scaled_options o;
  o.format = {num::element_type::e2m1, num::scale_rule::mx_floor, {1, 4}};
  const std::vector<float> in{4.0f, 1.0f, 0.25f, 3.0f, 7.0f, 2.0f, 0.0f, 0.0f};
  const num::scaled_stats s = num::compute_scaled_stats(in, {1, in.size()}, o);
  EXPECT_EQ(s.scale_binades.size(), 1u);
  EXPECT_EQ(s.scale_binades.at(0), 2u);
  EXPECT_EQ(s.amax_over_scale, (std::vector<double>{4.0, 7.0}));
  EXPECT_EQ(s.nonzero_finite, 6u);
  EXPECT_DOUBLE_EQ(s.block_underflow_fraction(), 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(s.saturation_fraction(), 1.0 / 8.0);
  const double signal = 16 + 1 + 0.0625 + 9 + 49 + 4, noise = 0.0625 + 1;
  EXPECT_DOUBLE_EQ(s.snr_db(), 10 * std::log10(signal / noise));
}

TEST(ScaledStats, Nvfp4ScalesIncludeTheTensorScale) {
  // Tensor amax 2688 -> s = 1; the block scale 448 (binade 8) and 1 (binade 0).
  std::vector<float> in(32, 0.0f);
  in[0] = 2688.0f;
  in[16] = 6.0f;
  num::scaled_options o;
  o.format = *num::find_scaled_format("nvfp4");
  const num::scaled_stats s = num::compute_scaled_stats(in, {1, 32}, o);
  EXPECT_EQ(s.scale_binades.at(8), 1u);
  EXPECT_EQ(s.scale_binades.at(0), 1u);
  EXPECT_EQ(s.amax_over_scale, (std::vector<double>{6.0, 6.0}));
  EXPECT_TRUE(std::isinf(s.snr_db()));
}

TEST(ScaledStats, OfAQuantizationMadeTakesItsScalesAndDequantizedValuesIn2DBlocks) {
  // 3 x 5 in 2 x 2 MX blocks (E4M3, scale 2^(floor(log2 amax) - 8)), blocks
  // in row-major order of the grid:
  //   rows 0-1 cols 0-1: amax 1.5  -> 2^-8,  amax/scale 384
  //   rows 0-1 cols 2-3: amax 4    -> 2^-6,  256
  //   rows 0-1 col 4:    amax 2^-3 -> 2^-11, 256
  //   row 2 cols 0-1:    amax 6    -> 2^-6,  384
  //   row 2 cols 2-3:    amax 0.75 -> 2^-9,  384
  //   row 2 col 4:       amax 2    -> 2^-7,  256
  // Every value is exact in its block, so only the perturbed value below is noise.
  const std::vector<float> in{1.0f, -1.5f, 4.0f, 2.0f, 0.125f,     //
                              0.5f, 0.25f, -3.0f, 0.0f, -0.0625f,  //
                              6.0f, 1.0f, 0.75f, 0.0f, -2.0f};
  const num::tensor_shape shape{3, 5};
  num::scaled_options o;
  o.format = {num::element_type::e4m3, num::scale_rule::mx_floor, {2, 2}};
  std::vector<std::uint8_t> elements(in.size());
  std::vector<std::uint32_t> scales(num::scale_count(o.format, shape));
  const num::scaled_result r = num::quantize(in, shape, elements, scales, o);
  std::vector<float> back(in.size());
  num::dequantize(elements, scales, r.tensor_scale, shape, back, o);
  EXPECT_EQ(back, in);
  back[7] = -2.5f;  // as if element (1, 2) had come back 0.5 off
  const num::scaled_stats s = num::scaled_stats_of(in, shape, o.format, scales, r, back);
  EXPECT_EQ(s.counts, r.counts);
  EXPECT_EQ(s.amax_over_scale, (std::vector<double>{384, 256, 256, 384, 384, 256}));
  EXPECT_EQ(s.scale_binades, (std::map<int, std::uint64_t>{{-11, 1}, {-9, 1}, {-8, 1}, {-7, 1}, {-6, 2}}));
  EXPECT_EQ(s.finite, 15u);
  EXPECT_EQ(s.nonzero_finite, 13u);
  EXPECT_EQ(s.signal_energy, 1 + 2.25 + 16 + 4 + 0.015625 + 0.25 + 0.0625 + 9 + 0.00390625 + 36 + 1 + 0.5625 + 4);
  EXPECT_EQ(s.noise_energy, 0.25);
  EXPECT_THROW(num::scaled_stats_of(in, {1, 15}, o.format, scales, r, back), std::invalid_argument);
  EXPECT_THROW(num::scaled_stats_of(in, shape, o.format, scales, r, std::span<const float>(back).first(14)),
               std::invalid_argument);
}

TEST(ScaledStats, AmaxIsTheLargestFiniteMagnitudeOfTheInput) {
  // Infinities and NaN are no amax (every scale rule skips them); the sign is.
  num::scaled_options o;
  o.format = {num::element_type::e4m3, num::scale_rule::mx_floor, {1, 2}};
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> in{1.0f, -3.0f, inf, 2.0f, nan, -inf, 0.5f, -0.0f};
  EXPECT_EQ(num::compute_scaled_stats(in, {1, in.size()}, o).amax, 3.0f);
  EXPECT_EQ(num::compute_scaled_stats(in, {2, 4}, o).amax, 3.0f);
  const std::vector<float> none{nan, -inf, 0.0f, -0.0f};
  EXPECT_EQ(num::compute_scaled_stats(none, {1, none.size()}, o).amax, 0.0f);
}

TEST(ScaledStats, EnergiesAreSummedInEightPartialSumsByElementIndex) {
  // x0 = 2^27 (x0² = 2^54, whose ulp is 4) and nine ones. Summed one after
  // the other every 1 is lost: 2^54. In partial sums by index mod 8: lane 0
  // holds 2^54 + 1 (x8 = 1) -> 2^54, lane 1 holds 2 (x1, x9), the others 1;
  // s0 + s1 = 2^54 + 2 is a tie that rounds to even 2^54, so is that + (s2 +
  // s3), and the right half, 4, is one ulp: 2^54 + 4.
  std::vector<float> in(10, 1.0f);
  in[0] = 0x1p27f;
  num::scaled_options o;
  o.format = {num::element_type::e4m3, num::scale_rule::mx_floor, {1, 32}};
  std::vector<std::uint8_t> elements(in.size());
  std::vector<std::uint32_t> scales(1);
  const num::scaled_result r = num::quantize(in, {1, in.size()}, elements, scales, o);
  // Pass the input as its own dequantized values: no noise, all signal.
  const num::scaled_stats s = num::scaled_stats_of(in, {1, in.size()}, o.format, scales, r, in);
  EXPECT_EQ(s.signal_energy, 0x1p54 + 4);
  EXPECT_EQ(s.noise_energy, 0.0);
  // The same values as a 2 x 5 tensor: the order is the element index's, not the blocks'.
  std::vector<std::uint32_t> scales2(2);
  const num::scaled_result r2 = num::quantize(in, {2, 5}, elements, scales2, o);
  EXPECT_EQ(num::scaled_stats_of(in, {2, 5}, o.format, scales2, r2, in).signal_energy, 0x1p54 + 4);
}

TEST(ScaledStats, ElementPassOverSixteenAndMoreValuesKeepsTheLaneOrderAndSkipsWhatTheScalarLoopSkips) {
  // 40 values (two runs of 16, then 8: the AVX-512 body and the scalar tail
  // where the CPU has AVX-512; ctest runs this again under NUMLAB_SIMD=scalar).
  // x0 = 2^27, the rest 1: lane 0 holds 2^54 (each of its four ones lost),
  // lanes 1-7 hold 5 each. (2^54 + 5) -> 2^54 + 4; + (5 + 5) = 2^54 + 14, a
  // tie, to even 2^54 + 16; + ((5 + 5) + (5 + 5)) = 2^54 + 36, exact.
  std::vector<float> in(40, 1.0f);
  in[0] = 0x1p27f;
  num::scaled_options o;
  o.format = {num::element_type::e4m3, num::scale_rule::mx_floor, {1, 32}};
  const num::tensor_shape shape{1, in.size()};
  std::vector<std::uint8_t> elements(in.size());
  std::vector<std::uint32_t> scales(num::scale_count(o.format, shape));
  const num::scaled_result r = num::quantize(in, shape, elements, scales, o);
  EXPECT_EQ(num::scaled_stats_of(in, shape, o.format, scales, r, in).signal_energy, 0x1p54 + 36);
  // Non-finite inputs count as neither finite nor signal, a NaN dequantized
  // value (a NaN-scale block) as no signal and no noise; either side of the
  // 16-value boundary, and -5 at index 20 is the amax.
  std::vector<float> x(40, 0.5f), back(40, 0.5f);
  x[3] = std::numeric_limits<float>::infinity();
  x[17] = -std::numeric_limits<float>::infinity();
  x[33] = std::numeric_limits<float>::quiet_NaN();
  x[20] = -5.0f;
  back[20] = -4.0f;  // noise 1
  x[5] = 0.0f;
  back[5] = 0.0f;
  x[30] = 2.0f;
  back[30] = std::numeric_limits<float>::quiet_NaN();  // not counted
  x[38] = -0.0f;
  back[38] = 0.0f;
  const num::scaled_result rx = num::quantize(x, shape, elements, scales, o);
  const num::scaled_stats sx = num::scaled_stats_of(x, shape, o.format, scales, rx, back);
  EXPECT_EQ(sx.finite, 37u);
  EXPECT_EQ(sx.nonzero_finite, 35u);
  EXPECT_EQ(sx.amax, 5.0f);
  // 33 values of 0.5 (0.25 each) and 25: 8.25 + 25, exact in any order.
  EXPECT_EQ(sx.signal_energy, 33.25);
  EXPECT_EQ(sx.noise_energy, 1.0);
}

TEST(ScaledStats, NoiseSquaresAreRoundedBeforeTheyAreAddedOnEveryPath) {
  // The header's order: each (x - back)² rounded to double, then added. An
  // error x - back with back 12 binades below x carries 36 bits, so its
  // square is not exact in double, and a fused multiply-add (what GCC makes
  // of _mm512_add_pd(s, _mm512_mul_pd(e, e)) unless told -ffp-contract=off)
  // gives other sums: of these 32 tensors of 64 values, 5 of the first 20
  // differ in the last bit when fused. The reference rounds each product
  // through a volatile, so no flags can fuse it. 64 values: four AVX-512
  // steps where the CPU has it; ctest runs this again under NUMLAB_SIMD=scalar.
  const std::size_t n = 64;
  const num::tensor_shape shape{1, n};
  num::scaled_options o;
  o.format = {num::element_type::e4m3, num::scale_rule::mx_floor, {1, 32}};
  for (std::uint32_t seed = 1; seed <= 32; ++seed) {
    std::vector<float> x(n), back(n);
    std::uint32_t state = seed;
    const auto next = [&state] { return state = state * 1664525u + 1013904223u; };
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = 1.0f + static_cast<float>(next() >> 9) * 0x1p-23f;                    // [1, 2), 24 bits
      back[i] = (1.0f + static_cast<float>(next() >> 9) * 0x1p-23f) * 0x1p-12f;  // 12 binades below
    }
    double lanes[8] = {};
    for (std::size_t i = 0; i < n; ++i) {
      const double error = static_cast<double>(x[i]) - static_cast<double>(back[i]);  // exact: 36 bits
      const volatile double square = error * error;
      lanes[i % 8] += square;
    }
    const double expected =
        ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
    std::vector<std::uint8_t> elements(n);
    std::vector<std::uint32_t> scales(num::scale_count(o.format, shape));
    const num::scaled_result r = num::quantize(x, shape, elements, scales, o);
    EXPECT_EQ(num::scaled_stats_of(x, shape, o.format, scales, r, back).noise_energy, expected) << "seed " << seed;
  }
}

}  // namespace
