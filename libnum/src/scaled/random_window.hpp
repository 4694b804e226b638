// Internal: the random words of one row of blocks for the AVX-512
// scaled-format kernels (philox_window.hpp on AVX-512 registers). Include
// after avx512_region.hpp.
#pragma once

#include "kernels/philox_avx512.hpp"
#include "philox_window.hpp"

namespace num::scaled_detail {
namespace {

using random_window = philox_window<kernels::philox_avx512_isa>;

}  // namespace
}  // namespace num::scaled_detail
