// Matrix transposition for the scaled GEMMs' operand layouts (private to lab).
#pragma once

#include <cstddef>

namespace lab::detail {

/// dst (cols x rows, dense) <- the transpose of the rows x cols matrix src
/// (row stride ld): a copy of the bits, NaN payloads included. Blocks of
/// 8 x 8 through AVX2 registers where num::host_cpu() has AVX2 and
/// NUMLAB_SIMD allows it, a scalar loop over the same tiles otherwise.
/// src and dst must not overlap.
void transpose(const float* src, std::size_t ld, std::size_t rows, std::size_t cols, float* dst);

}  // namespace lab::detail
