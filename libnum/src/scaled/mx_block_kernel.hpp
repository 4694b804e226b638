// Internal: the AVX-512 and AVX2 paths of MX quantization (scale rules mx_floor,
// mx_rceil and mx_even, 1x32 blocks along a row, floating-point elements or
// INT8 under nearest-even, saturation, tininess after rounding, one element
// per byte, or packed 8-bit and FP4 elements). It runs along whole rows of
// blocks, a row's partial last block included, and leaves the blocks it does
// not take (NaN/inf, nonzero inputs below 2^(emax_elem - 127), whose own
// scale would leave E8M0, and a scale above E8M0's range) to the scalar
// path, with the same results bit for bit. The AVX2 kernel
// (mx_block_avx2.cpp) takes what the AVX-512 one takes, under the same
// contract, where mx_avx2_usable().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/random_word_bits.hpp"
#include "left_blocks.hpp"
#include "libnum/rounding.hpp"
#include "libnum/scaled_array.hpp"

namespace num::scaled_detail {

/// What the kernel needs about the element format and the rounding.
struct mx_kernel_setup {
  int precision = 0, emin = 0, emax = 0, bias = 0, element_bits = 8;
  std::uint32_t max_code = 0;              ///< largest finite magnitude code
  float max_value = 0;                     ///< its value (floating-point elements)
  scale_rule rule = scale_rule::mx_floor;  ///< mx_floor, mx_rceil or mx_even
  std::uint32_t max_fraction = 0;          ///< the fraction field of the element's max as fp32 (RCEIL)
  round_spec spec{};
  std::uint64_t seed = 0, stream = 0;  ///< stochastic rounding's random stream
  bool packed_fp4 = false;             ///< FP4 codes two per byte (element_layout::packed)
  /// MX INT8 elements (nearest-even only): precision 7, emax 0; the rest above unused.
  bool int8 = false;
  bool int8_symmetric = false;  ///< INT8 without -2 (scaled_options::int8_symmetric)
};

/// Consecutive 1x32 blocks along one row: `blocks` whole ones, then (where
/// `tail` is nonzero) the row's partial last block of `tail` elements.
struct mx_run {
  const float* in = nullptr;
  std::uint8_t* codes = nullptr;    ///< the byte of in[0]'s code (an even element when packed)
  std::uint32_t* scales = nullptr;  ///< one E8M0 code per block, the partial one included
  std::size_t blocks = 0;
  std::size_t tail = 0;  ///< 0..31 (even when packed)
  std::uint64_t first_word = 0;  ///< the random word of in[0]
  /// Where set, the blocks' dequantized values (element × X, one fp32
  /// multiplication, as dequantize() gives them) go here, for in[0] on,
  /// instead of their codes.
  float* values = nullptr;
};

/// Rows narrower than half a block (1 <= `cols` <= 16, even when packed),
/// stored one after another, each row one block: floor(32 / cols) rows go
/// through the kernel's 32 lanes together instead of one to a pass.
struct mx_short_rows {
  const float* in = nullptr;
  std::uint8_t* codes = nullptr;    ///< the byte of in[0]'s code
  std::uint32_t* scales = nullptr;  ///< one E8M0 code per row
  std::size_t rows = 0, cols = 0;
  std::uint64_t first_word = 0;  ///< the random word of in[0]
  float* values = nullptr;       ///< as mx_run::values
};

/// Quantizes the run's blocks, adding their counts and flags to `result`.
/// Each block it leaves to the scalar path is appended to `left` (its index
/// in the run, `blocks` for the partial one) with nothing of it written.
void mx_blocks_avx512(const mx_kernel_setup& setup, const mx_run& run, scaled_result& result, left_blocks& left);

/// mx_blocks_avx512 for short rows; `left` gets the indices of the rows it
/// leaves to the scalar path.
void mx_short_rows_avx512(const mx_kernel_setup& setup, const mx_short_rows& run, scaled_result& result,
                          left_blocks& left);

/// The AVX2 kernels, as mx_blocks_avx512 and mx_short_rows_avx512.
void mx_blocks_avx2(const mx_kernel_setup& setup, const mx_run& run, scaled_result& result, left_blocks& left);
void mx_short_rows_avx2(const mx_kernel_setup& setup, const mx_short_rows& run, scaled_result& result,
                        left_blocks& left);

/// Whether the AVX2 kernels can run now in `mode`: false for nearest-even
/// (INT8's included) where the MXCSR rounds other than to nearest, since
/// that rounding is fp32 arithmetic under the MXCSR's rounding (one
/// stmxcsr; the MXCSR is per thread and may change between calls). FTZ and
/// DAZ change no result (mx_lane_rounding_avx2.hpp).
bool mx_avx2_usable(rounding mode);

}  // namespace num::scaled_detail
