// The portable path of the array kernels: the lane algorithm on 4-lane
// generic vectors, compiled for the compiler's baseline instruction set.
#include <cstddef>
#include <cstdint>

#include "kernel_plan.hpp"

#define NUMLAB_LANES 4

namespace num::kernels {
namespace {

// Random words for one block of 4 * lanes elements.
void philox_words(const kernel_plan& plan, std::uint64_t position, std::uint32_t* out) {
  fill_random_words(plan, position, out, 4 * NUMLAB_LANES);
}

// No conversion instruction on the portable path.
constexpr bool exact_fp16_encode_available = false;
template <class V>
V exact_fp16_encode(V value) {
  return value;
}

}  // namespace
}  // namespace num::kernels

#include "kernel_lanes.hpp"

namespace num::kernels {

tally run_scalar(const kernel_plan& plan, const chunk& c) { return run_lanes(plan, c); }

}  // namespace num::kernels
