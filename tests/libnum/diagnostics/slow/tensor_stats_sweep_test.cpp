// Slow: tensor statistics over 2^32 / 257 fp32 bit patterns spread evenly over
// the whole encoding space (every binade, NaNs, infinities, subnormals), in
// every built-in format and rounding mode and on every kernel, against the
// per-element oracle (num::from_float + num::classify).
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "../stats_reference.hpp"

namespace {

TEST(TensorStatsSweep, EveryFormatModeAndKernelAgainstTheOracle) {
  std::vector<float> xs;
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += 257) {
    xs.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  }
  const num::random_stream random(5, 1);
  for (const num::format& f : diag_test::test_formats()) {
    for (const num::rounding mode : num::all_roundings) {
      const num::round_spec spec{.mode = mode};
      const auto expected = diag_test::reference_stats(xs, f, spec, random);
      for (const auto kernel : {num::stats_kernel::portable, num::stats_kernel::avx2, num::stats_kernel::avx512}) {
        if (!num::stats_kernel_available(kernel)) continue;
        SCOPED_TRACE(num::format_name(f) + " " + std::string(num::rounding_name(mode)) + " kernel " +
                     std::to_string(static_cast<int>(kernel)));
        diag_test::expect_same_counts(num::compute_stats(xs, num::stats_plan(f, spec), {random, 0, kernel}),
                                      expected.stats);
      }
    }
  }
}

}  // namespace
