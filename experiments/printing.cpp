#include "experiments/printing.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <libnum/text.hpp>

namespace numlab::experiments {
namespace {

std::string printf_double(const char* pattern, int digits, double x) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, pattern, digits, x);
  return buffer;
}

}  // namespace

std::string fixed(double x, int decimals) { return printf_double("%.*f", decimals, x); }

std::string signed_percent(double fraction, int decimals) {
  return printf_double("%+.*f", decimals, 100.0 * fraction) + "%";
}

std::string signed_percent_value(double fraction, int decimals) {
  return printf_double("%+.*f", decimals, 100.0 * fraction);
}

std::string significant(double x, int digits) { return printf_double("%.*g", digits, x); }

std::string scientific(double x, int decimals) { return printf_double("%.*e", decimals, x); }

std::string exact_decimal(float x) {
  return num::to_exact_decimal(num::binary32, std::bit_cast<std::uint32_t>(x));
}

std::optional<int> exponent_if_power_of_two(double x) {
  int exponent = 0;
  if (x > 0 && std::frexp(x, &exponent) == 0.5) return exponent - 1;
  return std::nullopt;
}

std::string power_of_two_or_decimal(double x) {
  if (const auto k = exponent_if_power_of_two(x)) return "2^" + std::to_string(*k);
  return num::to_shortest_decimal(num::binary32, std::bit_cast<std::uint32_t>(static_cast<float>(x)));
}

}  // namespace numlab::experiments
