// Flags and counts gathered by the kernels against a per-element loop over
// the core, with both tininess rules, every overflow mode and flushing.
#include <gtest/gtest.h>

#include "kernel_oracle.hpp"

namespace {

using namespace kernel_test;

struct expected {
  num::flags raised = num::flags::none;
  num::conversion_counts counts;
};

template <class T>
expected core_tally(const std::vector<T>& in, const num::array_options& o) {
  expected e;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const num::rounded r = core_round(in[i], o, i);
    e.raised |= r.raised;
    const num::value_class c = num::classify(o.target, r.bits);
    e.counts.inexact += num::any(r.raised, num::flags::inexact);
    e.counts.overflowed += num::any(r.raised, num::flags::overflow);
    e.counts.nan += c == num::value_class::quiet_nan || c == num::value_class::signaling_nan;
    e.counts.became_subnormal += c == num::value_class::subnormal;
    e.counts.underflow_to_zero += std::isfinite(in[i]) && in[i] != 0 && c == num::value_class::zero;
  }
  return e;
}

std::string counts_text(const num::conversion_counts& c) {
  return "inexact " + std::to_string(c.inexact) + ", to zero " + std::to_string(c.underflow_to_zero) +
         ", subnormal " + std::to_string(c.became_subnormal) + ", overflowed " + std::to_string(c.overflowed) +
         ", nan " + std::to_string(c.nan);
}

template <class T, class Run>
void check_tally(const std::vector<T>& in, const num::array_options& o, Run run) {
  const expected want = core_tally(in, o);
  const num::conversion_result got = run();
  EXPECT_EQ(num::flags_to_string(got.raised), num::flags_to_string(want.raised)) << describe(o);
  EXPECT_EQ(got.counts, want.counts) << describe(o) << "\n  got  " << counts_text(got.counts) << "\n  core "
                                     << counts_text(want.counts);
}

class Counts : public ::testing::TestWithParam<num::simd_path> {};

TEST_P(Counts, FlagsAndCountsEqualThePerElementCore) {
  NUMLAB_REQUIRE_PATH(GetParam());
  for (const num::format& f : test_formats()) {
    const std::vector<float> in = interesting_floats(f, 600, 11);
    const std::vector<double> in64 = interesting_doubles(f, 150, 12);
    for (num::rounding mode : num::all_roundings) {
      for (num::tininess tiny : {num::tininess::after_rounding, num::tininess::before_rounding}) {
        for (num::overflow_mode ov : {num::overflow_mode::ieee, num::overflow_mode::saturate, num::overflow_mode::nan}) {
          for (int flush = 0; flush < 4; ++flush) {
            num::array_options o;
            o.target = f;
            o.spec = {mode, 8, tiny, ov};
            o.flush_subnormal_inputs = (flush & 1) != 0;
            o.flush_subnormal_outputs = (flush & 2) != 0;
            o.want_counts = true;
            o.seed = 5;
            o.path = GetParam();
            std::vector<float> out(in.size());
            check_tally(in, o, [&] { return num::round_array(std::span<const float>(in), std::span<float>(out), o); });
            std::vector<std::uint32_t> codes(in64.size());
            check_tally(in64, o, [&] {
              return num::encode_array(std::span<const double>(in64), std::span<std::uint32_t>(codes), o);
            });
          }
        }
      }
    }
  }
}

TEST_P(Counts, UnderflowFlagFollowsTininessRule) {
  NUMLAB_REQUIRE_PATH(GetParam());
  // Hand-derived: the largest fp16 subnormal plus 3/4 of its spacing lies
  // below 2^-14 but rounds (nearest-even) to 2^-14 itself; at full precision
  // it rounds up to 2^-14 too, so it is tiny before rounding only.
  const std::vector<float> in = {0x1.ff8p-15f + 0x1.8p-25f};
  num::array_options o;
  o.want_counts = true;
  o.path = GetParam();
  std::vector<std::uint16_t> out(1);
  o.spec.tiny = num::tininess::after_rounding;
  EXPECT_EQ(num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(out), o).raised,
            num::flags::inexact);
  EXPECT_EQ(out[0], 0x0400);
  o.spec.tiny = num::tininess::before_rounding;
  EXPECT_EQ(num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(out), o).raised,
            num::flags::inexact | num::flags::underflow);
}

TEST_P(Counts, WithoutCountsNothingIsReported) {
  NUMLAB_REQUIRE_PATH(GetParam());
  const std::vector<float> in = {1e-30f, 1e30f, NAN, 0.1f};
  std::vector<std::uint16_t> out(in.size());
  num::array_options o;
  o.path = GetParam();
  const num::conversion_result r = num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(out), o);
  EXPECT_EQ(r.raised, num::flags::none);
  EXPECT_EQ(r.counts, num::conversion_counts{});
  o.want_counts = true;
  const num::conversion_result c = num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(out), o);
  // Hand-derived: 1e-30 -> +0, 1e30 -> +inf, NaN stays NaN, 0.1 is inexact.
  EXPECT_EQ(c.counts.underflow_to_zero, 1u);
  EXPECT_EQ(c.counts.overflowed, 1u);
  EXPECT_EQ(c.counts.nan, 1u);
  EXPECT_EQ(c.counts.inexact, 3u);
}

INSTANTIATE_TEST_SUITE_P(Kernels, Counts, ::testing::ValuesIn(all_paths),
                         [](const auto& info) { return std::string(num::simd_path_name(info.param)); });

}  // namespace
