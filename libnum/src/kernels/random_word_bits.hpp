// Internal: which bits of a 32-bit random word a stochastic-rounding draw
// of r bits keeps, as masks for the array kernels (kernel_plan.hpp) and the
// scaled-format kernels (libnum/src/scaled) alike. A kernel file includes
// it before its target region opens (avx512_region.hpp), so that the one
// definition is compiled for the baseline instruction set.
#pragma once

#include <cstdint>

namespace num::kernels {

/// The bits of a 32-bit random word that a draw of r bits keeps (the top r;
/// all of them for r >= 32), the bits num::random_draw keeps.
constexpr std::uint32_t random_word_top_bits(int r) {
  return r >= 32 ? 0xFFFFFFFFu : ~((std::uint32_t{1} << (32 - r)) - 1);
}

}  // namespace num::kernels
