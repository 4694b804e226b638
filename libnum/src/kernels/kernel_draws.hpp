// Internal: the random words of stochastic rounding on a SIMD path. Included
// by kernels_avx2.cpp and kernels_avx512.cpp inside their target region,
// after they have named their Philox traits `philox_isa` (philox_blocks.hpp)
// and defined NUMLAB_LANES.
#pragma once

#include "kernel_plan.hpp"
#include "philox_blocks.hpp"

namespace num::kernels {
namespace {

static_assert(draws_per_run<philox_isa, random_draws::full_word, 2> == 4 * NUMLAB_LANES);
static_assert(draws_per_run<philox_isa, random_draws::half_word, 1> == 4 * NUMLAB_LANES);

/// The words of positions position .. position + 4 * NUMLAB_LANES - 1 under
/// the plan's draws (position a multiple of draw_alignment), for the lane
/// algorithm.
inline __attribute__((always_inline)) void philox_words(const kernel_plan& plan, std::uint64_t position,
                                                        std::uint32_t* out) {
  if (plan.draws == random_draws::half_word) {
    philox_draws<philox_isa, random_draws::half_word, 1>(plan.seed, plan.stream, position, out);
  } else {
    philox_draws<philox_isa, random_draws::full_word, 2>(plan.seed, plan.stream, position, out);
  }
}

}  // namespace
}  // namespace num::kernels
