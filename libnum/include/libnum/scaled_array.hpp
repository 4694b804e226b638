// Quantizing fp32 tensors into scaled formats and back.
//
// quantize() computes each block's scale from the block's amax by the
// format's rule, then rounds the exact quotient x / scale once into the
// element format, in any libnum rounding mode (stochastic with r bits
// included). Element i (row-major index i = row·cols + col) takes random word
//   num::random_stream(seed, stream).word(first_index + i),
// as the array kernels do (array.hpp), so results depend on nothing else.
//
// Overflow saturates by default (MX §6.3: "normal numbers that exceed the
// element range are clamped"); the other libnum overflow behaviours are
// available for element formats that can express them (E4M3, E5M2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "array.hpp"
#include "rounding.hpp"
#include "scaled_format.hpp"

namespace num {

/// How element encodings are laid out in the byte array.
enum class element_layout : std::uint8_t {
  /// One element per byte in its low bits (INT8: the two's complement byte).
  byte_per_element,
  /// As the formats are stored densely: FP4 two per byte, element 2k in the
  /// low nibble; FP6 four per three bytes, element 4k+j in bits 6j..6j+5 of
  /// the little-endian 24-bit group; 8-bit elements one per byte. (OCP MX
  /// §6 leaves the memory layout to the implementation.)
  packed,
};

/// A block that holds NaN or ±inf.
enum class special_block_policy : std::uint8_t {
  /// The block's scale is NaN (E8M0 0xFF, E4M3 0x7F, fp32 NaN): every element
  /// of the block decodes as NaN (MX §5.1: "if X is NaN, every element is
  /// NaN"); the element codes are 0. Works for every element format.
  nan_scale,
  /// The scale comes from the block's finite values; NaN and ±inf go into the
  /// element as the element conversion makes them (OFP8: inf into E4M3 is
  /// NaN, or ±max under saturation). Only E4M3/E5M2 elements.
  keep_in_elements,
};

/// The shape of the tensor: a row-major matrix (1 row for a plain array).
struct tensor_shape {
  std::size_t rows = 1;
  std::size_t cols = 0;
  constexpr std::size_t size() const { return rows * cols; }
};

/// Everything that decides how a tensor is quantized.
struct scaled_options {
  scaled_format format{};
  /// Element rounding; overflow defaults to saturation.
  round_spec spec{rounding::nearest_even, 32, tininess::after_rounding, overflow_mode::saturate};
  element_layout layout = element_layout::byte_per_element;
  special_block_policy specials = special_block_policy::nan_scale;
  /// MX INT8 §5.3.4 allows the range to be restricted to [-127/64, 127/64]
  /// (dropping -2); off by default.
  bool int8_symmetric = false;
  int margin = 0;            ///< fp32_amax rules: the scale is multiplied by 2^margin (TE's margin), >= 0
  float given_scale = 1.0f;  ///< fp32_given: the decode scale, finite and > 0
  /// NVFP4: the amax the tensor scale is computed from; NaN (default) = the
  /// largest finite |x| of this tensor. Delayed scaling passes a history's.
  float tensor_amax = __builtin_nanf("");
  std::uint64_t seed = 0;         ///< stochastic rounding: key of the random stream ...
  std::uint64_t stream = 0;       ///< ... and its stream number
  std::uint64_t first_index = 0;  ///< element i takes word first_index + i
  /// The instruction-set path (array.hpp's dispatch, NUMLAB_SIMD included).
  /// AVX-512 and AVX2 run MX blocks (mx_floor, mx_rceil or mx_even, 1x32,
  /// floating-point or INT8 elements, saturation, margin 0; packed FP6
  /// through a one-byte-per-element buffer)
  /// and NVFP4 1x16 and 16x16 blocks (an MXCSR without FTZ/DAZ), one element per byte,
  /// 8-bit elements, or packed FP4 with an even column count; and the
  /// elements of the fp32 rules (fp32_amax, fp32_amax_pow2, fp32_given) into
  /// E4M3/E5M2 under saturation in every mode (an MXCSR
  /// without FTZ/DAZ); with results identical to the scalar path; everything
  /// else runs scalar.
  simd_path path = simd_path::automatic;
};

/// Per-call tallies.
struct scaled_counts {
  std::uint64_t elements = 0;
  std::uint64_t blocks = 0;
  std::uint64_t inexact = 0;  ///< elements whose value changed
  /// Nonzero finite inputs that became zero although the element format would
  /// have held them (nonzero) under the scale the same rule gives a block of
  /// that element alone: flushed by their block's scale.
  std::uint64_t block_underflow = 0;
  /// Nonzero finite inputs that became zero even under their own scale.
  std::uint64_t underflow_to_zero = 0;
  /// Inputs beyond the element range, clamped to ±max (overflow flag; ±inf
  /// too when kept in E4M3/E5M2 elements under saturation).
  std::uint64_t saturated = 0;
  std::uint64_t scale_underflow = 0;  ///< blocks whose wanted scale was below the scale format's range (clamped / zero)
  std::uint64_t scale_overflow = 0;   ///< blocks whose wanted scale was above it (clamped)
  std::uint64_t nan_scale_blocks = 0;  ///< blocks given a NaN scale (special_block_policy::nan_scale)
  friend constexpr bool operator==(const scaled_counts&, const scaled_counts&) = default;
  /// Adds another call's tallies, field by field.
  constexpr scaled_counts& operator+=(const scaled_counts& o) {
    elements += o.elements;
    blocks += o.blocks;
    inexact += o.inexact;
    block_underflow += o.block_underflow;
    underflow_to_zero += o.underflow_to_zero;
    saturated += o.saturated;
    scale_underflow += o.scale_underflow;
    scale_overflow += o.scale_overflow;
    nan_scale_blocks += o.nan_scale_blocks;
    return *this;
  }
};

/// What one quantize call reports.
struct scaled_result {
  flags raised = flags::none;  ///< OR of the element conversions' IEEE flags
  scaled_counts counts;
  float tensor_scale = 1.0f;           ///< NVFP4's fp32 second-level decode scale (1 for other rules)
  simd_path path = simd_path::scalar;  ///< the path that ran (blocks it cannot do run scalar)
};

/// Number of blocks of format f over a tensor of this shape (partial edge
/// blocks count); the size `scales` must have.
std::size_t scale_count(const scaled_format& f, tensor_shape shape);
/// Bytes the element encodings of n elements take in this layout.
std::size_t element_bytes(element_type t, element_layout layout, std::size_t n);

/// Quantizes `in` (shape.size() values, row-major) into element encodings
/// (element_bytes(...) bytes) and one scale encoding per block (the
/// rule's scale_type: E8M0 or E4M3 code, or fp32 bits; blocks in row-major
/// order of the block grid). Throws std::invalid_argument naming the bad
/// option or size; nothing is written then.
scaled_result quantize(std::span<const float> in, tensor_shape shape, std::span<std::uint8_t> elements,
                       std::span<std::uint32_t> scales, const scaled_options& options);

/// The fp32 value of every element: element × scale (× tensor_scale), the
/// exact product rounded once to nearest-even fp32. A NaN scale gives NaN.
/// Only options.format, layout and path matter (AVX-512 looks codes up with
/// permutes; every path gives the same bits).
void dequantize(std::span<const std::uint8_t> elements, std::span<const std::uint32_t> scales, float tensor_scale,
                tensor_shape shape, std::span<float> out, const scaled_options& options);

/// quantize() and dequantize() in one call, for emulating a scaled-format
/// GEMM operand in fp32: out[i] is bit for bit what dequantize(quantize(in))
/// gives for element i (element × scale × tensor_scale rounded once to
/// nearest-even fp32; NaN in a NaN-scale block), and the result (flags,
/// counts, tensor_scale) is quantize's. No element codes are stored, so
/// options.layout does not matter. The block scales go to `scales`
/// (scale_count(...) entries, as quantize writes them). `out` may be `in`
/// itself (in place) but must not overlap it otherwise. Throws
/// std::invalid_argument as quantize does, and for a wrong output size;
/// nothing is written then.
scaled_result quantize_dequantize(std::span<const float> in, tensor_shape shape, std::span<float> out,
                                  std::span<std::uint32_t> scales, const scaled_options& options);
/// The same without the block scales.
scaled_result quantize_dequantize(std::span<const float> in, tensor_shape shape, std::span<float> out,
                                  const scaled_options& options);

/// The value of one scale encoding (NaN for a NaN code).
double scale_value(scale_type t, std::uint32_t code);
/// The value of one element code (its low element_bits bits); INT8 codes are
/// the two's complement byte. NaN / ±inf for E4M3 and E5M2 specials.
double element_value(element_type t, std::uint32_t code);
/// Element k of an element array in the given layout.
std::uint32_t element_code_at(std::span<const std::uint8_t> elements, element_type t, element_layout layout,
                              std::size_t k);

}  // namespace num
