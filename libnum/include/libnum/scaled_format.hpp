// Scaled low-precision formats: a small element format, a block shape and a
// rule that gives each block a shared scale (OCP MX v1.0, NVFP4, FP8 with
// per-tensor or blockwise fp32 scales). docs/SCALED_FORMATS.md cites the
// clause behind each rule.
//
// A scaled value is element × block scale (× tensor scale for NVFP4). Every
// stored scale is a decode scale: dequantization multiplies by it, and
// quantization rounds the exact quotient x / scale once into the element
// format (no intermediate fp32 rounding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "format.hpp"

namespace num {

/// The element formats of OCP MX v1.0 §5.3 (and NVFP4's E2M1).
enum class element_type : std::uint8_t {
  e2m1,  ///< FP4: bias 1, max 6, no inf/NaN (MX §5.3.3)
  e2m3,  ///< FP6: bias 1, max 7.5, no inf/NaN (MX §5.3.2)
  e3m2,  ///< FP6: bias 3, max 28, no inf/NaN (MX §5.3.2)
  e4m3,  ///< FP8 OCP E4M3: bias 7, max 448, NaN S.1111.111, no inf (OFP8 §3)
  e5m2,  ///< FP8 OCP E5M2: IEEE-style, max 57344, inf and NaN (OFP8 §3)
  int8,  ///< MX INT8 (§5.3.4): two's complement with an implicit scale 2^-6, [-2, 127/64]
};
inline constexpr element_type all_element_types[] = {element_type::e2m1, element_type::e2m3, element_type::e3m2,
                                                     element_type::e4m3, element_type::e5m2, element_type::int8};

/// Width of one element encoding in bits (4, 6 or 8).
int element_bits(element_type t);
/// Largest finite element value (6, 7.5, 28, 448, 57344, 127/64).
double element_max(element_type t);
/// emax_elem of MX §6.3: the exponent of the largest normal of the §5.3 element type (0 for INT8).
int element_emax(element_type t);
/// Whether the element format has NaN (and possibly inf) encodings: E4M3 and E5M2.
bool element_has_specials(element_type t);
/// The libnum format whose finite values are exactly the element's (E4M3 and
/// E5M2 are libnum's own; E2M1/E2M3/E3M2 have no inf/NaN encodings, so this is
/// the IEEE-style format with the same p, emin, emax: same values, one more
/// exponent bit in its encoding). nullopt for INT8.
std::optional<format> element_value_grid(element_type t);
/// "e2m1", "e2m3", "e3m2", "e4m3", "e5m2", "int8".
std::string_view element_name(element_type t);

/// The encoding of a block scale.
enum class scale_type : std::uint8_t {
  e8m0,   ///< MX §5.4.1: 2^(code - 127), code 0..254; 0xFF is NaN; no zero, no inf
  ue4m3,  ///< NVFP4: E4M3 without its sign bit used as a positive scale (0x7F is NaN)
  fp32,   ///< binary32 bits
};

/// How a block's scale follows from its amax (largest finite |x|).
enum class scale_rule : std::uint8_t {
  /// MX §6.3: X = 2^(floor(log2(amax)) - emax_elem), in E8M0. Values above
  /// the element max after scaling saturate.
  mx_floor,
  /// torchao's RCEIL: X = 2^ceil(log2(amax / max_elem)), the smallest power of
  /// two under which nothing saturates (computed exactly, not via a rounded fp32 quotient).
  mx_rceil,
  /// torchao's EVEN: amax rounded (ties away) to the element's precision
  /// first, then the MX §6.3 rule.
  mx_even,
  /// NVFP4: fp32 tensor scale s = amax_tensor / (448·6) (rounded to nearest
  /// even), block scale S = amax_block / (6·s) rounded to nearest even into
  /// unsigned E4M3 (saturating); elements are x / (S·s). E2M1 elements only.
  nvfp4,
  /// fp32 decode scale amax·2^margin / max_elem rounded to nearest even
  /// (TransformerEngine current scaling; FP8 blockwise 1×128 / 128×128).
  fp32_amax,
  /// The power of two 2^ceil(log2(amax·2^margin / max_elem)) (DeepSeek-V3 /
  /// TransformerEngine blockwise with power-of-two scales): nothing saturates.
  fp32_amax_pow2,
  /// One fp32 decode scale given by the caller (delayed scaling, see
  /// scaled_tensor_scale.hpp), for the whole tensor.
  fp32_given,
};

/// The scale encoding a rule produces.
scale_type scale_type_of(scale_rule r);
/// "mx-floor", "mx-rceil", "mx-even", "nvfp4", "fp32-amax", "fp32-amax-pow2", "fp32-given".
std::string_view scale_rule_name(scale_rule r);

/// A tile of rows × cols elements of a row-major matrix, tiling it from the
/// top left; tiles at the right and bottom edges are clipped to the matrix.
/// A 1-D array is a matrix of one row.
struct block_shape {
  std::size_t rows = 1;
  std::size_t cols = 32;
  friend constexpr bool operator==(const block_shape&, const block_shape&) = default;
};
/// One block covering any tensor (per-tensor scaling).
inline constexpr block_shape whole_tensor_block{SIZE_MAX, SIZE_MAX};

/// A scaled format: element format, block shape, scale rule.
struct scaled_format {
  element_type element = element_type::e4m3;
  scale_rule rule = scale_rule::mx_floor;
  block_shape block{};
  friend constexpr bool operator==(const scaled_format&, const scaled_format&) = default;
};

/// Why this scaled format cannot be used (a zero block dimension, NVFP4's
/// rule with an element other than E2M1, fp32-given with blocks smaller than
/// the tensor), or nullopt.
std::optional<std::string> scaled_format_problem(const scaled_format& f);

/// The named scaled formats (OCP MX v1.0 §5.2 Table 1, NVFP4, FP8 recipes).
struct named_scaled_format {
  std::string_view name;
  scaled_format format;
  std::string_view description;
};
std::span<const named_scaled_format> named_scaled_formats();

/// A scaled format by name ("mxfp8", "mxfp8-e5m2", "mxfp6-e2m3", "mxfp6-e3m2",
/// "mxfp4", "mxint8", "nvfp4", "nvfp4-2d", "fp8-tensor", "fp8-tensor-e5m2",
/// "fp8-block", "fp8-block-128x128"), or nullopt.
std::optional<scaled_format> find_scaled_format(std::string_view name);
/// The name of a named scaled format, or "element/rule/RxC" ("/tensor" for
/// one block) for another.
std::string scaled_format_name(const scaled_format& f);

/// Whether `text` names a scaled format rather than a per-element one: a
/// named scaled format, or text with a '/'.
bool looks_like_scaled_format(std::string_view text);

/// Parses a scaled format: a name of find_scaled_format, or
/// "ELEMENT/RULE[/BLOCK]" with ELEMENT e2m1 e2m3 e3m2 e4m3 e5m2 int8, RULE
/// mx-floor mx-rceil mx-even nvfp4 fp32-amax fp32-amax-pow2, BLOCK "N" (1×N),
/// "RxC" or "tensor" (default: 1x32, 1x16 for nvfp4). Throws
/// std::invalid_argument naming the text and what is wrong (an element
/// without a rule, an unknown part, a zero block dimension, ...).
scaled_format parse_scaled_format(std::string_view text);

}  // namespace num
