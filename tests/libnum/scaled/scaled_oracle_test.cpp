// Scaled quantization against the rational reference: every named format,
// every rounding mode (stochastic with several r), random tensors with
// blocks of very different magnitudes, zeros, tiny and huge values.
#include <gtest/gtest.h>

#include <cmath>
#include <libnum/scaled_array.hpp>
#include <random>
#include <string>
#include <vector>

#include "scaled_block_reference.hpp"
#include "scaled_run.hpp"

namespace {

// fp32 values whose blocks span wide ranges: per 16 elements a base binade in
// [-40, 40], elements up to 2^-30 below it, some exact zeros and negative zeros.
std::vector<float> mixed_values(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> base(-40, 40), below(0, 30), pick(0, 19);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::vector<float> v(n);
  int b = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 16 == 0) b = base(gen);
    const int kind = pick(gen);
    float x = std::ldexp(mantissa(gen), b - below(gen));
    if (kind == 0) x = 0.0f;
    if (kind == 1) x = -0.0f;
    if (kind == 2) x = std::ldexp(1.0f, b);  // a power of two: amax exactly 2^k
    if (kind < 10 && (i & 1)) x = -x;
    v[i] = x;
  }
  return v;
}

using scaled_test::mode_case;
const auto& modes = scaled_test::reference_modes;

void expect_matches_reference(const std::vector<float>& in, num::tensor_shape shape, const num::scaled_options& o,
                              const std::string& label) {
  std::vector<std::uint8_t> elements(num::element_bytes(o.format.element, o.layout, in.size()));
  std::vector<std::uint32_t> scales(num::scale_count(o.format, shape));
  const num::scaled_result got = num::quantize(in, shape, elements, scales, o);
  const scaled_ref::tensor_out want = scaled_ref::quantize(in, shape, o);
  ASSERT_EQ(scales, want.scales) << label;
  EXPECT_EQ(got.tensor_scale, scaled_ref::to_float(want.tensor_scale)) << label;
  int shown = 0;
  for (std::size_t i = 0; i < in.size() && shown < 5; ++i) {
    const std::uint32_t code = num::element_code_at(elements, o.format.element, o.layout, i);
    if (code != want.codes[i]) {
      ADD_FAILURE() << label << ": element " << i << " = " << in[i] << " gave code " << code << ", reference "
                    << want.codes[i] << " (scale code "
                    << scales[scaled_ref::block_index_of(o.format, shape, i)] << ")";
      ++shown;
    }
  }
  EXPECT_EQ(got.counts, want.counts) << label << ": inexact " << got.counts.inexact << "/" << want.counts.inexact
                                     << " block_underflow " << got.counts.block_underflow << "/"
                                     << want.counts.block_underflow << " underflow " << got.counts.underflow_to_zero
                                     << "/" << want.counts.underflow_to_zero << " saturated " << got.counts.saturated
                                     << "/" << want.counts.saturated << " scale under " << got.counts.scale_underflow
                                     << "/" << want.counts.scale_underflow << " over " << got.counts.scale_overflow
                                     << "/" << want.counts.scale_overflow;
}

TEST(ScaledOracle, EveryNamedFormatEveryModeMatchesTheRationalReference) {
  const std::vector<float> in = mixed_values(2 * 256, 11);
  for (const auto& named : num::named_scaled_formats()) {
    const bool two_d = named.format.block.rows > 1 && named.format.block.rows < 1000;
    const num::tensor_shape shape = two_d ? num::tensor_shape{16, 32} : num::tensor_shape{1, in.size()};
    ASSERT_LE(shape.size(), in.size());
    const std::vector<float> data(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(shape.size()));
    for (const mode_case& m : modes) {
      num::scaled_options o;
      o.format = named.format;
      o.spec.mode = m.mode;
      o.spec.random_bits = m.r;
      o.seed = 99;
      o.first_index = 5;
      expect_matches_reference(
          data, shape, o,
          std::string(named.name) + " " + std::string(num::rounding_name(m.mode)) + " r=" + std::to_string(m.r));
    }
  }
}

TEST(ScaledOracle, ScaleVariantsMarginAndSymmetricInt8MatchTheReference) {
  const std::vector<float> in = mixed_values(192, 12);
  const num::tensor_shape shape{1, in.size()};
  for (num::element_type t : num::all_element_types) {
    for (num::scale_rule rule : {num::scale_rule::mx_floor, num::scale_rule::mx_rceil, num::scale_rule::mx_even,
                                 num::scale_rule::fp32_amax, num::scale_rule::fp32_amax_pow2}) {
      for (int margin : {0, 3}) {
        num::scaled_options o;
        o.format = {t, rule, {1, 32}};
        o.margin = margin;
        o.int8_symmetric = margin != 0;
        for (const mode_case& m : modes) {
          o.spec.mode = m.mode;
          o.spec.random_bits = m.r;
          expect_matches_reference(in, shape, o,
                                   std::string(num::element_name(t)) + "/" + std::string(num::scale_rule_name(rule)) +
                                       " margin " + std::to_string(margin) + " " +
                                       std::string(num::rounding_name(m.mode)));
        }
      }
    }
  }
}

TEST(ScaledOracle, GivenScaleAndPartialEdgeTilesMatchTheReference) {
  const std::vector<float> in = mixed_values(37 * 23, 13);
  for (num::scaled_format f :
       {num::scaled_format{num::element_type::e4m3, num::scale_rule::fp32_given, num::whole_tensor_block},
        num::scaled_format{num::element_type::int8, num::scale_rule::fp32_given, num::whole_tensor_block},
        num::scaled_format{num::element_type::e2m1, num::scale_rule::nvfp4, {16, 16}},
        num::scaled_format{num::element_type::e3m2, num::scale_rule::mx_floor, {5, 7}}}) {
    num::scaled_options o;
    o.format = f;
    o.given_scale = 0x1.8p-7f;
    for (const mode_case& m : modes) {
      o.spec.mode = m.mode;
      o.spec.random_bits = m.r;
      expect_matches_reference(in, {37, 23}, o,
                               num::scaled_format_name(f) + " " + std::string(num::rounding_name(m.mode)));
    }
  }
}

}  // namespace
