// Text input and output of format values.
#include "libnum/text.hpp"

#include <cctype>
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "libnum/codec.hpp"
#include "libnum/convert.hpp"
#include "libnum/exact_value.hpp"

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

double parse_double_rounded(const std::string& text, int mode, const char** end) {
  const int saved = std::fegetround();
  std::fesetround(mode);
  char* stop = nullptr;
  const double value = std::strtod(text.c_str(), &stop);
  std::fesetround(saved);
  *end = stop;
  return value;
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
  const char* end_down = nullptr;
  const char* end_up = nullptr;
  const double down = parse_double_rounded(magnitude_text, FE_DOWNWARD, &end_down);
  const double up = parse_double_rounded(magnitude_text, FE_UPWARD, &end_up);
  if (magnitude_text.empty() || *end_down != '\0' || end_down == magnitude_text.c_str() ||
      magnitude_text[0] == '-' || magnitude_text[0] == '+') {
    throw std::invalid_argument("'" + std::string(text) + "' is not a number");
  }
  if (std::isnan(down) || std::isinf(down) || down == up) {
    return from_double(f, negative ? -down : down, spec, random_word);
  }
  // Inexact decimal: the value lies strictly between `down` and the next double.
  exact_value x;
  x.negative = negative;
  if (down == 0) {  // below the smallest double: far below every format's smallest value
    x.significand = 1;
    x.exponent = -1100;
    return round_exact(x, f, spec, random_word);
  }
  int exponent = 0;
  const double fraction = std::frexp(down, &exponent);
  x.significand = static_cast<std::uint64_t>(std::ldexp(fraction, 53));
  x.exponent = exponent - 53;
  x.sticky = true;
  return round_exact(x, f, spec, random_word);
}

}  // namespace num
