// Rounding modes, exception flags and the parameters of one rounding.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace num {

/// Rounding-direction attributes. `stochastic` is defined exactly (docs/NUMERICS.md, Rounding):
/// with f in [0,1) the exact discarded fraction in units of the target's ulp and
/// R a uniform integer in [0, 2^r), round away from zero iff floor(f*2^r)+R >= 2^r.
enum class rounding : std::uint8_t {
  nearest_even,
  nearest_away,
  toward_zero,
  toward_positive,
  toward_negative,
  to_odd,
  stochastic,
};
inline constexpr rounding all_roundings[] = {
    rounding::nearest_even,    rounding::nearest_away,    rounding::toward_zero,
    rounding::toward_positive, rounding::toward_negative, rounding::to_odd,
    rounding::stochastic};

/// When a result counts as tiny (for the underflow flag).
enum class tininess : std::uint8_t { after_rounding, before_rounding };

/// What an overflowing result becomes.
enum class overflow_mode : std::uint8_t {
  ieee,      ///< ±inf or ±max by rounding direction (NaN where the format has no inf)
  saturate,  ///< ±max
  nan,       ///< NaN (the IPU's NaN-on-overflow)
};

/// Which NaN a result that is NaN carries. IEEE 754-2019 (6.2.3) leaves the
/// payload, and for a NaN an invalid operation creates also the sign, to the
/// implementation; hardware differs, so the choice is a parameter of every
/// operation and conversion (round_spec::nans). Flags never depend on it.
/// Bit patterns below for fp16 / fp32; every format the same way.
enum class nan_convention : std::uint8_t {
  /// The default, libnum's behaviour since the start: an operation on NaN
  /// operands returns the first NaN operand (argument order), quieted, sign
  /// and payload kept; a conversion keeps the sign and the top payload bits;
  /// an invalid operation creates +qNaN without payload (0x7E00, 0x7FC00000).
  first_operand,
  /// Intel SSE/AVX: propagation as first_operand (Intel SDM vol. 1, Table 4-7
  /// and Table E-1: "first operand", an SNaN converted to a QNaN); an invalid
  /// operation creates the "QNaN floating-point indefinite", which is
  /// negative: 0xFE00, 0xFFC00000 (SDM vol. 1, 4.8.3.7 and Table 4-3;
  /// SoftFloat's 8086-SSE specialisation, defaultNaNF32UI 0xFFC00000).
  x86_sse,
  /// Arm with FPCR.DN (default-NaN mode) set: every NaN result, propagated,
  /// created or converted, is the default NaN, sign 0, quiet bit set, rest 0:
  /// 0x7E00, 0x7FC00000 (Arm DDI 0460, Tables 11.9 and 11.10).
  arm_default_nan,
  /// NVIDIA GPUs: every NaN result is the canonical NaN, sign 0 and every
  /// other bit set: 0x7FFF, 0x7FFFFFFF, FP8 0x7F (NVIDIA's cuda_fp8.hpp
  /// returns "fp16 canonical NaN, discard sign" 0x7FFF), except the NaN
  /// standing for a value out of range in a format without infinities, which
  /// keeps its sign (E4M3 without saturation: -1000, -inf -> 0xFF). tests/device compares
  /// fp16/bf16/FP8 conversions and fp16/bf16 arithmetic bit for bit on an H100.
  cuda_canonical,
};
inline constexpr nan_convention all_nan_conventions[] = {nan_convention::first_operand, nan_convention::x86_sse,
                                                         nan_convention::arm_default_nan,
                                                         nan_convention::cuda_canonical};

/// IEEE 754 exception flags; the bit values are Berkeley TestFloat's.
enum class flags : std::uint8_t {
  none = 0,
  inexact = 1,
  underflow = 2,
  overflow = 4,
  divide_by_zero = 8,
  invalid = 16,
};
constexpr flags operator|(flags a, flags b) {
  return static_cast<flags>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
constexpr flags operator&(flags a, flags b) {
  return static_cast<flags>(static_cast<std::uint8_t>(a) & static_cast<std::uint8_t>(b));
}
constexpr flags& operator|=(flags& a, flags b) { return a = a | b; }
/// True if any flag of `which` is set in `set`.
constexpr bool any(flags set, flags which) { return (set & which) != flags::none; }

/// Everything that decides how one exact value is rounded.
struct round_spec {
  rounding mode = rounding::nearest_even;
  int random_bits = 32;  ///< r in [1, 32], for stochastic rounding
  tininess tiny = tininess::after_rounding;
  overflow_mode overflow = overflow_mode::ieee;
  nan_convention nans = nan_convention::first_operand;  ///< which NaN a NaN result is
  friend constexpr bool operator==(const round_spec&, const round_spec&) = default;
};

/// An encoded result with the exception flags its operation raised.
struct rounded {
  std::uint32_t bits;
  flags raised;
};

/// An encoded result with its flags under each of the two tininess rules
/// (IEEE 754-2019 7.5 lets an implementation detect tininess before or after
/// rounding; round_spec::tiny picks one). Only underflow can differ: the
/// result and the other flags do not depend on the rule.
struct rounded_per_tininess {
  std::uint32_t bits;
  flags after_rounding;   ///< the flags when tininess is detected after rounding
  flags before_rounding;  ///< the flags when tininess is detected before rounding
  /// The result as the operation returns it under round_spec::tiny == t.
  constexpr rounded under(tininess t) const {
    return {bits, t == tininess::before_rounding ? before_rounding : after_rounding};
  }
};

/// The random integer R in [0, 2^r) that stochastic rounding takes from a
/// 32-bit random word: its top r bits.
constexpr std::uint32_t random_draw(std::uint32_t word, int r) {
  return r >= 32 ? word : word >> (32 - r);
}

/// Names: "ne" (nearest-even), "na" (nearest-away), "rz", "ru", "rd", "ro", "sr".
std::string_view rounding_name(rounding m);
/// Parses a rounding name (short names above, or long ones such as
/// "nearest-even", "toward-zero", "stochastic"); throws std::invalid_argument.
rounding parse_rounding(std::string_view text);
/// Names: "ieee", "saturate", "nan".
std::string_view overflow_mode_name(overflow_mode m);
/// Parses an overflow behaviour name (as above); throws std::invalid_argument
/// naming the text.
overflow_mode parse_overflow_mode(std::string_view text);
/// Names: "after" (after rounding, IEEE 754's default here), "before".
std::string_view tininess_name(tininess t);
/// Parses a tininess name ("after", "before", also "after-rounding",
/// "before-rounding"); throws std::invalid_argument naming the text.
tininess parse_tininess(std::string_view text);
/// Names: "first-operand", "x86", "arm-dn", "cuda".
std::string_view nan_convention_name(nan_convention c);
/// Parses a NaN convention name (as above); throws std::invalid_argument
/// naming the text and the known names.
nan_convention parse_nan_convention(std::string_view text);
/// "inexact|underflow" style list of the set flags ("none" if empty).
std::string flags_to_string(flags f);

}  // namespace num
