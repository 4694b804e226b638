// Floating-point formats of up to 32 bits, described by their parameters.
//
// A format is {precision p (with the hidden bit), emin, emax, subnormals,
// infinities}. The encoding follows from the parameters: 1 sign bit, an
// exponent field just wide enough for the biased exponents (bias = 1 - emin),
// and p - 1 fraction bits. With infinities the all-ones exponent field holds
// the infinities and NaNs (IEEE style); without them only S.1...1.1...1 is NaN
// and the all-ones exponent otherwise holds normal numbers (OCP FP8 E4M3 style).
//
// Every supported format is a subset of binary32 (p <= 24, emin >= -126,
// emax <= 127), so each of its values is exactly a float.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace num {

/// How a format encodes NaN.
enum class nan_encoding : std::uint8_t {
  ieee,      ///< exponent all ones, fraction nonzero; top fraction bit set = quiet
  all_ones,  ///< only the patterns S.1...1.1...1 (no infinities, no signalling NaN)
};

/// 2^e as a double, usable in constant expressions (e within double's range).
/// Normal powers are built from their bit pattern: the array kernels make
/// their plan from these on every call.
constexpr double pow2(int e) {
  if (e >= -1022 && e <= 1023) return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
  double r = 1.0;
  if (e >= 0) {
    for (int i = 0; i < e; ++i) r *= 2.0;
  } else {
    for (int i = 0; i < -e; ++i) r *= 0.5;
  }
  return r;
}

/// A floating-point format; a structural type, so it can be a template argument.
struct format {
  int precision;    ///< p: significand bits including the hidden bit
  int emin;         ///< exponent of the smallest normal number
  int emax;         ///< exponent of the largest finite number
  bool subnormals;  ///< gradual underflow; without it the grid below 2^emin is {0}
  bool infinities;  ///< has ±inf (and IEEE NaNs); without, only S.1..1.1..1 is NaN

  constexpr int fraction_bits() const { return precision - 1; }
  constexpr int bias() const { return 1 - emin; }
  /// Width of the exponent field. (bit_width, not a loop: the scalar core asks
  /// for it several times per operation through sign_mask and friends.)
  constexpr int exponent_bits() const {
    const int top = emax + bias() + (infinities ? 1 : 0);
    return top <= 0 ? 0 : std::bit_width(static_cast<unsigned>(top));
  }
  constexpr int total_bits() const { return 1 + exponent_bits() + fraction_bits(); }
  constexpr nan_encoding nans() const {
    return infinities ? nan_encoding::ieee : nan_encoding::all_ones;
  }
  constexpr std::uint32_t sign_mask() const { return std::uint32_t{1} << (total_bits() - 1); }
  constexpr std::uint32_t fraction_mask() const {
    return (std::uint32_t{1} << fraction_bits()) - 1;
  }
  constexpr std::uint32_t exponent_field_max() const {
    return (std::uint32_t{1} << exponent_bits()) - 1;
  }
  /// Largest significand (as an integer of p bits) at exponent emax.
  constexpr std::uint32_t max_significand() const {
    const std::uint32_t all = (std::uint32_t{1} << precision) - 1;
    return infinities ? all : all - 1;
  }
  /// Largest finite value.
  constexpr double max() const {
    return static_cast<double>(max_significand()) * pow2(emax - fraction_bits());
  }
  /// Smallest positive normal value, 2^emin.
  constexpr double min_normal() const { return pow2(emin); }
  /// Smallest positive value: 2^(emin-p+1) with subnormals, else 2^emin.
  constexpr double min_subnormal() const {
    return subnormals ? pow2(emin - fraction_bits()) : pow2(emin);
  }
  /// Machine epsilon: the distance from 1 to the next larger value, 2^(1-p).
  constexpr double epsilon() const { return pow2(-fraction_bits()); }
  /// Unit in the last place at a value of exponent e (i.e. |x| in [2^e, 2^(e+1))).
  constexpr double ulp_at_exponent(int e) const {
    return pow2((e < emin ? emin : e) - fraction_bits());
  }

  /// Why these parameters do not make a supported format, or nullopt if they do.
  std::optional<std::string> problem() const;

  friend constexpr bool operator==(const format&, const format&) = default;
};

/// Unit in the last place of a finite double x in format f (ulp of 0 is the
/// smallest subnormal spacing).
double ulp(const format& f, double x);

/// Builds a custom format; throws std::invalid_argument naming the bad parameter.
format make_format(int precision, int emin, int emax, bool subnormals, bool infinities);

inline constexpr format binary16{11, -14, 15, true, true};
inline constexpr format bfloat16_format{8, -126, 127, true, true};
inline constexpr format fp8_e5m2{3, -14, 15, true, true};
inline constexpr format fp8_e4m3{4, -6, 8, true, false};
inline constexpr format tf32{11, -126, 127, true, true};
inline constexpr format binary32{24, -126, 127, true, true};

static_assert(binary16.total_bits() == 16 && bfloat16_format.total_bits() == 16);
static_assert(fp8_e5m2.total_bits() == 8 && fp8_e4m3.total_bits() == 8);
static_assert(tf32.total_bits() == 19 && binary32.total_bits() == 32);
static_assert(binary16.max() == 65504.0 && fp8_e4m3.max() == 448.0 && fp8_e5m2.max() == 57344.0);

/// A built-in format and one line saying what it is.
struct described_format {
  format value;
  std::string_view description;
};

/// The built-in formats, in the order `numlab formats` lists them.
inline constexpr described_format builtin_formats[] = {
    {binary16, "IEEE 754 binary16, half precision"},
    {bfloat16_format, "bfloat16, fp32's range with 8 bits of precision"},
    {fp8_e5m2, "OCP FP8 E5M2, IEEE-like"},
    {fp8_e4m3, "OCP FP8 E4M3: no infinities, NaN only S.1111.111"},
    {tf32, "NVIDIA TensorFloat-32, fp32's range with fp16's precision"},
    {binary32, "IEEE 754 binary32, single precision"},
};

/// Short name of a built-in format ("fp16", "bf16", "e5m2", "e4m3", "tf32",
/// "fp32"), or "p=..,emin=..,emax=..,subnormals=..,inf=.." for a custom one.
std::string format_name(const format& f);

/// Parses a format name: a built-in name (also "binary16", "half", "bfloat16",
/// "float", "binary32"), "eXmY" (IEEE-like with X exponent and Y fraction bits),
/// or "p=11,emin=-14,emax=15[,subnormals=1][,inf=1]". Throws
/// std::invalid_argument naming the text.
format parse_format(std::string_view text);

}  // namespace num
