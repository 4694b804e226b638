// Text input and output of format values.
#include "libnum/text.hpp"

#include <gmp.h>
#include <mpfr.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "libnum/codec.hpp"
#include "libnum/convert.hpp"
#include "core/exact_value.hpp"

namespace num {
namespace {

std::string special_text(const format& f, std::uint32_t bits) {
  const bool negative = is_negative(f, bits);
  if (is_nan(f, bits)) return negative ? "-nan" : "nan";
  return negative ? "-inf" : "inf";
}

bool is_special(const format& f, std::uint32_t bits) {
  const value_class c = classify(f, bits);
  return c == value_class::infinite || c == value_class::quiet_nan || c == value_class::signaling_nan;
}

// The magnitude a decimal or hex-float text denotes, as an exact_value: its
// top 64 bits (toward zero) and whether anything lies below them. MPFR reads
// the text exactly and rounds once, whatever the C library's strtod does with
// rounding modes; 64 bits are what round_exact needs of a sticky value (the 32
// bits stochastic rounding reads below a 24-bit significand included).
// Returns nullopt for a NaN or an infinity (then *special holds it as a double)
// and sets *end past the number MPFR read.
std::optional<exact_value> read_magnitude(const std::string& text, double* special, const char** end) {
  constexpr mpfr_prec_t bits = 64;
  mpfr_t x;
  mpfr_init2(x, bits);
  char* stop = nullptr;
  const int ternary = mpfr_strtofr(x, text.c_str(), &stop, 0, MPFR_RNDZ);
  *end = stop;
  std::optional<exact_value> out;
  if (mpfr_nan_p(x)) {
    // Not mpfr_get_d: its NaN is the platform's 0/0, negative on x86.
    *special = std::numeric_limits<double>::quiet_NaN();
  } else if (mpfr_inf_p(x)) {
    *special = mpfr_get_d(x, MPFR_RNDN);
  } else {
    exact_value v;
    if (!mpfr_zero_p(x)) {
      mpz_t significand;
      mpz_init(significand);
      const mpfr_exp_t exponent = mpfr_get_z_2exp(significand, x);
      v.significand = mpz_get_ui(significand);
      // Far outside every format (|exponent| < 2^10 there): clamped, still
      // beyond every format's range, with the sticky bit marking it inexact.
      constexpr mpfr_exp_t limit = 4096;
      v.exponent = static_cast<int>(std::clamp<mpfr_exp_t>(exponent, -limit, limit));
      v.sticky = ternary != 0 || v.exponent != exponent;
      mpz_clear(significand);
    }
    out = v;
  }
  mpfr_clear(x);
  return out;
}

bool is_bit_pattern(std::string_view t) {
  if (t.size() < 3 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X')) return false;
  for (char c : t.substr(2)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::string to_shortest_decimal(const format& f, std::uint32_t bits) {
  if (is_special(f, bits)) return special_text(f, bits);
  const double value = to_double(f, bits);
  char buffer[64];
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  const std::uint32_t magnitude_bits = bits & ~f.sign_mask();
  for (int digits = 1; digits <= 17; ++digits) {
    // The nearest decimal of this length may miss the read-back interval (a
    // decimal tie, or the interval's asymmetry at a power of two) while its
    // neighbour one unit in the last digit away lies inside: try all three.
    std::snprintf(buffer, sizeof buffer, "%.*e", digits - 1, std::fabs(value));
    const char* exponent_mark = std::strchr(buffer, 'e');
    std::string digit_text(static_cast<const char*>(buffer), exponent_mark);
    std::erase(digit_text, '.');
    const long long nearest = std::atoll(digit_text.c_str());
    const int exponent = std::atoi(exponent_mark + 1) - (digits - 1);
    long long smallest = 1;
    for (int i = 1; i < digits; ++i) smallest *= 10;
    const std::pair<long long, int> candidates[] = {
        {nearest, exponent},
        {nearest + 1, exponent},
        nearest > smallest ? std::pair{nearest - 1, exponent} : std::pair{smallest * 10 - 1, exponent - 1}};
    for (const auto& [mantissa, power] : candidates) {
      const std::string decimal = std::to_string(mantissa) + "e" + std::to_string(power);
      if (parse_value(f, decimal, round_spec{}).bits != magnitude_bits) continue;
      std::snprintf(buffer, sizeof buffer, "%.*g", digits, std::copysign(std::strtod(decimal.c_str(), nullptr), value));
      return buffer;
    }
  }
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string to_exact_decimal(const format& f, std::uint32_t bits) {
  if (is_special(f, bits)) return special_text(f, bits);
  // A double with at most 24 significant bits and exponent >= -149 has an
  // exact expansion of at most 149 + 39 digits after the point.
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, "%.200f", to_double(f, bits));
  std::string s = buffer;
  const auto point = s.find('.');
  if (point != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string to_hex_bits(const format& f, std::uint32_t bits) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "0x%0*x", (f.total_bits() + 3) / 4, bits);
  return buffer;
}

rounded parse_value(const format& f, std::string_view text, const round_spec& spec, std::uint32_t random_word) {
  if (is_bit_pattern(text)) {
    const unsigned long long value = std::strtoull(std::string(text).c_str(), nullptr, 16);
    const std::uint64_t limit = f.total_bits() >= 32 ? 0xFFFFFFFFull : (1ull << f.total_bits()) - 1;
    if (text.size() > 10 || value > limit) {
      throw std::invalid_argument("bit pattern '" + std::string(text) + "' does not fit " +
                                  std::to_string(f.total_bits()) + " bits");
    }
    return {static_cast<std::uint32_t>(value), flags::none};
  }
  std::string s(text);
  bool negative = false;
  std::size_t start = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    start = 1;
  }
  const std::string magnitude_text = s.substr(start);
  if (magnitude_text.empty() || magnitude_text[0] == '-' || magnitude_text[0] == '+') {
    throw std::invalid_argument("'" + std::string(text) + "' is not a number");
  }
  double special = 0.0;
  const char* end = nullptr;
  const std::optional<exact_value> magnitude = read_magnitude(magnitude_text, &special, &end);
  if (*end != '\0' || end == magnitude_text.c_str())
    throw std::invalid_argument("'" + std::string(text) + "' is not a number");
  if (!magnitude) return from_double(f, negative ? -special : special, spec, random_word);
  exact_value x = *magnitude;
  x.negative = negative;
  return round_exact(x, f, spec, random_word);
}

}  // namespace num
