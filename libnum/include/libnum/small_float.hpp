// Value types for emulated formats: num::float16, num::bfloat16, FP8 ...
//
// Each holds the real bit pattern (8, 16 or 32 bits), is trivially copyable,
// and its arithmetic rounds once in the calling thread's current environment
// (num::current_environment()), raising flags there (and trapping if asked).
#pragma once

#include <compare>
#include <concepts>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

#include "arithmetic.hpp"
#include "codec.hpp"
#include "compare.hpp"
#include "convert.hpp"
#include "environment.hpp"
#include "format.hpp"
#include "text.hpp"

namespace num {

/// The smallest unsigned integer type holding `bits` bits.
template <int Bits>
using storage_for = std::conditional_t<Bits <= 8, std::uint8_t,
                                       std::conditional_t<Bits <= 16, std::uint16_t, std::uint32_t>>;

/// A value of format F stored as its bit pattern.
template <format F>
class small_float {
 public:
  using storage_type = storage_for<F.total_bits()>;
  static constexpr format fmt = F;

  constexpr small_float() noexcept = default;  ///< +0
  /// x rounded once into F in the current environment.
  explicit small_float(double x) : bits_(finish("convert", from_double(F, x, env().spec, env().next_random_word()), {x})) {}
  explicit small_float(float x) : small_float(static_cast<double>(x)) {}
  template <std::integral I>
  explicit small_float(I v)
      : bits_(finish("convert", from_int64(F, static_cast<std::int64_t>(v), env().spec, env().next_random_word()),
                     {static_cast<double>(v)})) {}

  /// The value with bit pattern b.
  static constexpr small_float from_bits(storage_type b) noexcept {
    small_float x;
    x.bits_ = b;
    return x;
  }
  constexpr storage_type bits() const noexcept { return bits_; }

  /// Exact conversions (every value of F is a float).
  explicit operator double() const { return to_double(F, bits_); }
  explicit operator float() const { return to_float(F, bits_); }

  friend small_float operator+(small_float a, small_float b) { return binary("add", add, a, b); }
  friend small_float operator-(small_float a, small_float b) { return binary("sub", sub, a, b); }
  friend small_float operator*(small_float a, small_float b) { return binary("mul", mul, a, b); }
  friend small_float operator/(small_float a, small_float b) { return binary("div", div, a, b); }
  small_float& operator+=(small_float b) { return *this = *this + b; }
  small_float& operator-=(small_float b) { return *this = *this - b; }
  small_float& operator*=(small_float b) { return *this = *this * b; }
  small_float& operator/=(small_float b) { return *this = *this / b; }
  friend constexpr small_float operator-(small_float a) { return from_bits(static_cast<storage_type>(a.bits_ ^ F.sign_mask())); }
  friend constexpr small_float operator+(small_float a) { return a; }

  /// == is IEEE's quiet equality; <, <=, >, >= are IEEE's signalling predicates.
  friend bool operator==(small_float a, small_float b) { return predicate_result(eq(F, a.bits_, b.bits_)); }
  friend bool operator<(small_float a, small_float b) { return predicate_result(lt(F, a.bits_, b.bits_)); }
  friend bool operator<=(small_float a, small_float b) { return predicate_result(le(F, a.bits_, b.bits_)); }
  friend bool operator>(small_float a, small_float b) { return b < a; }
  friend bool operator>=(small_float a, small_float b) { return b <= a; }

  /// Square root, correctly rounded in the current environment.
  friend small_float sqrt(small_float a) {
    environment& e = env();
    const rounded r = num::sqrt(F, a.bits_, e.spec, e.next_random_word());
    return from_bits(finish("sqrt", r, {static_cast<double>(a)}));
  }
  /// a * b + c with one rounding in the current environment.
  friend small_float fma(small_float a, small_float b, small_float c) {
    environment& e = env();
    const rounded r = num::fma(F, a.bits_, b.bits_, c.bits_, e.spec, e.next_random_word());
    return from_bits(finish("fma", r, {static_cast<double>(a), static_cast<double>(b), static_cast<double>(c)}));
  }
  friend constexpr small_float abs(small_float a) { return from_bits(static_cast<storage_type>(a.bits_ & ~F.sign_mask())); }
  friend bool isnan(small_float a) { return is_nan(F, a.bits_); }
  friend bool isinf(small_float a) { return classify(F, a.bits_) == value_class::infinite; }
  friend bool isfinite(small_float a) { return !isnan(a) && !isinf(a); }

  /// Shortest decimal that reads back to the same value.
  friend std::string to_string(small_float a) { return to_shortest_decimal(F, a.bits_); }
  friend std::ostream& operator<<(std::ostream& os, small_float a) { return os << to_string(a); }
  /// Reads "0.1", "1e-8", "inf", "nan" (rounded in the current environment) or
  /// a bit pattern "0x3c00". Throws std::invalid_argument.
  static small_float parse(std::string_view text) {
    environment& e = env();
    return from_bits(finish("parse", parse_value(F, text, e.spec, e.next_random_word()), {}));
  }

 private:
  static environment& env() { return current_environment(); }
  static storage_type finish(const char* op, rounded r, std::initializer_list<double> operands) {
    if (r.raised != flags::none) record_flags(env(), r.raised, op, F, operands, r.bits);
    return static_cast<storage_type>(r.bits);
  }
  static bool predicate_result(predicate p) {
    if (p.raised != flags::none) record_flags(env(), p.raised, "compare", F, {}, p.value ? 1 : 0);
    return p.value;
  }
  template <class Op>
  static small_float binary(const char* name, Op op, small_float a, small_float b) {
    environment& e = env();
    const rounded r = op(F, a.bits_, b.bits_, e.spec, e.next_random_word());
    return from_bits(finish(name, r, {static_cast<double>(a), static_cast<double>(b)}));
  }

  storage_type bits_ = 0;
};

using float16 = small_float<binary16>;         ///< IEEE binary16
using bfloat16 = small_float<bfloat16_format>; ///< bfloat16
using float8_e4m3 = small_float<fp8_e4m3>;     ///< OCP FP8 E4M3 (no infinities, max 448)
using float8_e5m2 = small_float<fp8_e5m2>;     ///< OCP FP8 E5M2
using tfloat32 = small_float<tf32>;            ///< NVIDIA TF32 (19 bits, stored in 32)

static_assert(sizeof(float16) == 2 && sizeof(bfloat16) == 2 && sizeof(float8_e4m3) == 1);
static_assert(std::is_trivially_copyable_v<float16>);

}  // namespace num

/// numeric_limits for every emulated format.
template <num::format F>
class std::numeric_limits<num::small_float<F>> {
  using T = num::small_float<F>;
  using S = typename T::storage_type;
  static constexpr S exponent_ones = static_cast<S>(F.exponent_field_max() << F.fraction_bits());

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = F.infinities;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = F.infinities && F.precision > 2;
  static constexpr std::float_denorm_style has_denorm = F.subnormals ? std::denorm_present : std::denorm_absent;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;  // default environment
  static constexpr bool is_iec559 = F.infinities && F.subnormals;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = F.precision;
  static constexpr int digits10 = (F.precision - 1) * 30103 / 100000;
  static constexpr int max_digits10 = 2 + F.precision * 30103 / 100000;
  static constexpr int radix = 2;
  static constexpr int min_exponent = F.emin + 1;
  static constexpr int min_exponent10 = (F.emin * 30103 - 99999) / 100000 + 1;
  static constexpr int max_exponent = F.emax + 1;
  static constexpr int max_exponent10 = F.emax * 30103 / 100000;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;

  static constexpr T min() noexcept { return T::from_bits(static_cast<S>(S{1} << F.fraction_bits())); }
  static constexpr T lowest() noexcept { return -max(); }
  static constexpr T max() noexcept {
    return F.infinities ? T::from_bits(static_cast<S>((exponent_ones - (S{1} << F.fraction_bits())) | F.fraction_mask()))
                        : T::from_bits(static_cast<S>(exponent_ones | (F.fraction_mask() - 1)));
  }
  static constexpr T epsilon() noexcept {
    return T::from_bits(static_cast<S>((F.bias() - F.fraction_bits()) << F.fraction_bits()));
  }
  static constexpr T round_error() noexcept { return T::from_bits(static_cast<S>((F.bias() - 1) << F.fraction_bits())); }
  static constexpr T infinity() noexcept {
    return F.infinities ? T::from_bits(exponent_ones) : quiet_NaN();
  }
  static constexpr T quiet_NaN() noexcept {
    return F.infinities ? T::from_bits(static_cast<S>(exponent_ones | (S{1} << (F.fraction_bits() - 1))))
                        : T::from_bits(static_cast<S>(exponent_ones | F.fraction_mask()));
  }
  static constexpr T signaling_NaN() noexcept {
    return has_signaling_NaN ? T::from_bits(static_cast<S>(exponent_ones | 1)) : quiet_NaN();
  }
  static constexpr T denorm_min() noexcept { return T::from_bits(F.subnormals ? S{1} : min().bits()); }
};
