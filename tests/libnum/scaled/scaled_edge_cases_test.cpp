// Hand-derived cases: the MX §6.3 scale on a power-of-two amax, saturation
// and the RCEIL/EVEN variants, one huge value with tiny ones, all zeros,
// NaN/inf in a block, amax near E8M0's limits, negative zero, NVFP4's two
// levels and FP8 per-tensor scaling. Each expected code is worked out in the
// comment beside it from the formats' tables.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "scaled_path_compare.hpp"
#include "scaled_run.hpp"

namespace {

using scaled_test::options_for;
using scaled_test::run;

TEST(ScaledEdgeCases, Mxfp4PowerOfTwoAmaxGivesScaleOneAndFlushesByBlock) {
  // amax 4 = 2^2, emax(E2M1) = 2: X = 2^0, E8M0 code 127.
  const auto q = run({4.0f, 1.0f, 0.5f, 0.25f, -3.0f}, options_for("mxfp4"));
  EXPECT_EQ(q.scales, std::vector<std::uint32_t>{127});
  // 4 = 1.0·2^2: exponent field 3, mantissa 0 -> 0b0110; 1 -> 0b0010;
  // 0.5 = subnormal 0b0001; 0.25 is the tie between 0 and 0.5 -> even (0);
  // -3 = -1.1·2^1 -> 0b1101.
  EXPECT_EQ(q.codes, (std::vector<std::uint32_t>{0x6, 0x2, 0x1, 0x0, 0xD}));
  // 0.25 alone would get X = 2^-4 and be 4: flushed by its block's scale.
  EXPECT_EQ(q.result.counts.block_underflow, 1u);
  EXPECT_EQ(q.result.counts.underflow_to_zero, 0u);
  EXPECT_EQ(q.decoded, (std::vector<float>{4.0f, 1.0f, 0.5f, 0.0f, -3.0f}));
}

TEST(ScaledEdgeCases, Mxfp4FloorSaturatesWhereRceilAndEvenScaleUp) {
  auto o = options_for("mxfp4");
  const auto floor_rule = run({7.0f, 1.0f}, o);
  EXPECT_EQ(floor_rule.scales[0], 127u);  // floor(log2 7) - 2 = 0
  EXPECT_EQ(floor_rule.codes[0], 0x7u);   // 7 > 6: clamped to 6 = 0b0111
  EXPECT_EQ(floor_rule.result.counts.saturated, 1u);
  EXPECT_TRUE(num::any(floor_rule.result.raised, num::flags::overflow));
  o.format.rule = num::scale_rule::mx_rceil;
  const auto rceil = run({7.0f, 1.0f}, o);
  EXPECT_EQ(rceil.scales[0], 128u);  // ceil(log2(7/6)) = 1
  EXPECT_EQ(rceil.codes[0], 0x6u);   // 3.5: tie of 3 (0b101) and 4 (0b110) -> 4
  EXPECT_EQ(rceil.result.counts.saturated, 0u);
  o.format.rule = num::scale_rule::mx_even;
  EXPECT_EQ(run({7.0f, 1.0f}, o).scales[0], 128u);  // 1.11b·2^2 to 2 bits, ties away: 2^3
  EXPECT_EQ(run({5.0f, 1.0f}, o).scales[0], 127u);  // 1.01b·2^2: tie, away to 1.1b·2^2 = 6, same binade
}

TEST(ScaledEdgeCases, OneHugeValueFlushesTheTinyOnesOfItsBlock) {
  // MXFP8 (E4M3, emax 8): amax 448·2^10 = 1.75·2^18 -> X = 2^10, code 137.
  const auto q = run({448.0f * 1024.0f, 1e-3f, -2048.0f}, options_for("mxfp8"));
  EXPECT_EQ(q.scales[0], 137u);
  EXPECT_EQ(q.codes[0], 0x7Eu);  // 448
  EXPECT_EQ(q.codes[1], 0x00u);  // 1e-3 / 2^10 < 2^-10, half the smallest subnormal
  EXPECT_EQ(q.codes[2], 0xC0u);  // -2 = -1.0·2^1: sign 1, exponent 1 + 7 = 1000, mantissa 000
  EXPECT_EQ(q.result.counts.block_underflow, 1u);
}

TEST(ScaledEdgeCases, AllZeroBlockTakesTheSmallestScale) {
  const auto q = run(std::vector<float>(32, 0.0f), options_for("mxfp8"));
  EXPECT_EQ(q.scales[0], 0u);
  EXPECT_EQ(q.codes, std::vector<std::uint32_t>(32, 0));
  EXPECT_EQ(q.result.counts.scale_underflow, 0u);
  EXPECT_EQ(q.result.counts.inexact, 0u);
  EXPECT_EQ(q.decoded, std::vector<float>(32, 0.0f));
}

TEST(ScaledEdgeCases, NanOrInfMakesTheBlockScaleNanByDefault) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (const char* name : {"mxfp8", "mxfp4", "mxint8"}) {
    auto o = options_for(name);
    o.format.block.cols = 3;
    const auto q = run({1.0f, nan, 2.0f, 1.0f, -inf, 4.0f, 1.0f, 2.0f, 3.0f}, o);
    EXPECT_EQ(q.scales[0], 0xFFu) << name;
    EXPECT_EQ(q.scales[1], 0xFFu) << name;
    EXPECT_NE(q.scales[2], 0xFFu) << name;
    EXPECT_EQ(q.result.counts.nan_scale_blocks, 2u) << name;
    EXPECT_TRUE(num::any(q.result.raised, num::flags::invalid)) << name;
    for (int i = 0; i < 6; ++i) EXPECT_TRUE(std::isnan(q.decoded[i])) << name << " " << i;
    EXPECT_EQ(q.decoded[8], 3.0f) << name;
  }
  auto nvfp4 = options_for("nvfp4");
  EXPECT_EQ(run({1.0f, nan}, nvfp4).scales[0], 0x7Fu);  // E4M3's NaN
}

TEST(ScaledEdgeCases, KeepInElementsPutsNanAndInfIntoFp8Elements) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto o = options_for("mxfp8-e5m2");
  o.specials = num::special_block_policy::keep_in_elements;
  o.spec.overflow = num::overflow_mode::ieee;
  const auto q = run({2.0f, nan, -inf}, o);
  EXPECT_EQ(q.scales[0], 127u - 15u + 1u);  // amax 2 over finite values: 2^(1-15)
  EXPECT_EQ(q.codes[1] & 0x7Cu, 0x7Cu);     // NaN: exponent all ones, fraction nonzero
  EXPECT_NE(q.codes[1] & 0x3u, 0u);
  EXPECT_EQ(q.codes[2], 0xFCu);  // -inf
  EXPECT_TRUE(std::isinf(q.decoded[2]) && q.decoded[2] < 0);
  o.format.element = num::element_type::e4m3;
  o.spec.overflow = num::overflow_mode::saturate;
  EXPECT_EQ(run({2.0f, -inf}, o).codes[1], 0xFEu);  // saturated: -448
}

TEST(ScaledEdgeCases, AmaxNearTheE8m0Limits) {
  // 2^-140 wants X = 2^-148 < 2^-127: clamped; 2^-140 / 2^-127 = 2^-13 is
  // below E4M3's smallest subnormal 2^-9 even under its own (clamped) scale.
  const auto low = run({std::ldexp(1.0f, -140)}, options_for("mxfp8"));
  EXPECT_EQ(low.scales[0], 0u);
  EXPECT_EQ(low.result.counts.scale_underflow, 1u);
  EXPECT_EQ(low.result.counts.underflow_to_zero, 1u);
  EXPECT_EQ(low.result.counts.block_underflow, 0u);
  // FLT_MAX = (2 - 2^-23)·2^127: MXFP8 gives X = 2^119 (code 246) and
  // 511.99... saturates to 448.
  const float big = std::numeric_limits<float>::max();
  const auto high = run({big}, options_for("mxfp8"));
  EXPECT_EQ(high.scales[0], 246u);
  EXPECT_EQ(high.codes[0], 0x7Eu);
  // RCEIL for MXINT8 wants 2^ceil(log2(FLT_MAX / (127/64))) = 2^128: clamped to 2^127.
  auto o = options_for("mxint8");
  o.format.rule = num::scale_rule::mx_rceil;
  const auto over = run({big, -1.0f}, o);
  EXPECT_EQ(over.scales[0], 254u);
  EXPECT_EQ(over.result.counts.scale_overflow, 1u);
  EXPECT_EQ(over.codes[0], 127u);
}

TEST(ScaledEdgeCases, NegativeZeroKeepsItsSignWhereTheElementHasOne) {
  const auto fp4 = run({-0.0f, 1.0f}, options_for("mxfp4"));
  EXPECT_EQ(fp4.codes[0], 0x8u);
  EXPECT_TRUE(std::signbit(fp4.decoded[0]));
  const auto int8 = run({-0.0f, 1.0f}, options_for("mxint8"));
  EXPECT_EQ(int8.codes[0], 0x00u);  // two's complement has one zero
  EXPECT_EQ(int8.codes[1], 64u);    // amax 1 -> X = 2^0; 1 = 64·2^-6
}

TEST(ScaledEdgeCases, Int8MinusTwoOnlyInTheFullRange) {
  // amax 1.995 -> X = 2^0; ±1.995·64 = ±127.68 rounds to ±128: -128 is
  // 0x80 in the full range, 127 saturates on the positive side.
  auto o = options_for("mxint8");
  const auto full = run({-1.995f, 1.995f}, o);
  EXPECT_EQ(full.codes, (std::vector<std::uint32_t>{0x80, 0x7F}));
  EXPECT_EQ(full.result.counts.saturated, 1u);
  EXPECT_EQ(full.decoded[0], -2.0f);
  o.int8_symmetric = true;
  const auto symmetric = run({-1.995f, 1.995f}, o);
  EXPECT_EQ(symmetric.codes, (std::vector<std::uint32_t>{0x81, 0x7F}));
  EXPECT_EQ(symmetric.result.counts.saturated, 2u);
}

TEST(ScaledEdgeCases, Nvfp4TwoLevelScale) {
  // Tensor amax 2688 = 448·6: tensor scale 1. Block 0 amax 2688: S = 448
  // (E4M3 0x7E); 2688/448 = 6 (E2M1 0b0111); 6/448 ~ 0.0134 < 0.25: flushed.
  // Block 1 amax 6: S = 1 (0x38); 6 -> 0x7, 0.5 -> 0x1.
  std::vector<float> in(32, 0.0f);
  in[0] = 2688.0f;
  in[1] = 6.0f;
  in[16] = 6.0f;
  in[17] = 0.5f;
  const auto q = run(in, options_for("nvfp4"));
  EXPECT_EQ(q.result.tensor_scale, 1.0f);
  EXPECT_EQ(q.scales, (std::vector<std::uint32_t>{0x7E, 0x38}));
  EXPECT_EQ(q.codes[0], 0x7u);
  EXPECT_EQ(q.codes[1], 0x0u);
  EXPECT_EQ(q.codes[16], 0x7u);
  EXPECT_EQ(q.codes[17], 0x1u);
  EXPECT_EQ(q.result.counts.block_underflow, 1u);
  EXPECT_EQ(q.decoded[0], 2688.0f);
  EXPECT_EQ(q.decoded[17], 0.5f);
}

TEST(ScaledEdgeCases, Fp8PerTensorCurrentScalingAndMargin) {
  auto o = options_for("fp8-tensor");
  const auto q = run({448.0f, -1.0f, 0.5f}, o);
  EXPECT_EQ(q.scales[0], 0x3F800000u);  // 448 / 448 = 1
  EXPECT_EQ(q.codes, (std::vector<std::uint32_t>{0x7E, 0xB8, 0x30}));
  o.margin = 1;
  const auto m = run({448.0f, -1.0f, 0.5f}, o);
  EXPECT_EQ(m.scales[0], 0x40000000u);  // 2
  EXPECT_EQ(m.codes[0], 0x76u);         // 224 = 1.75·2^7
}

TEST(ScaledEdgeCases, Fp8PerTensorAmaxAndSpecialsAnywhereInALongRow) {
  // One block of 100 values: whole vectors and a tail on every path's amax scan.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<num::simd_path> paths = scaled_test::mx_kernel_paths();
  paths.push_back(num::simd_path::scalar);
  for (const num::simd_path path : paths) {
    auto o = options_for("fp8-tensor");
    o.path = path;
    for (std::size_t p = 0; p < 100; ++p) {
      std::vector<float> in(100, 1.0f);
      in[p] = -896.0f;
      const auto q = run(in, o);
      EXPECT_EQ(q.scales[0], 0x40000000u) << p;  // 896 / 448 = 2
      EXPECT_EQ(q.codes[p], 0xFEu) << p;          // -448: sign, exponent 1111, mantissa 110
      EXPECT_EQ(q.result.counts.nan_scale_blocks, 0u) << p;
      in[p] = p % 2 == 0 ? nan : -inf;
      const auto special = run(in, o);
      EXPECT_EQ(special.result.counts.nan_scale_blocks, 1u) << p;
      EXPECT_TRUE(std::isnan(special.decoded[(p + 1) % 100])) << p;
    }
  }
}

}  // namespace
