#include "cli_text.hpp"

#include <charconv>
#include <cstdio>
#include <stdexcept>

#include <lab/errors.hpp>

namespace numlab::cli {

std::string shortest_text(double x) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  return std::string(buffer, result.ptr);
}

std::string power_of_two_text(int exponent) { return "2^" + std::to_string(exponent); }

std::string approximate_text(long double x, int digits) {
  if (x == 0) return "0";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*Lg", digits, x);
  return buffer;
}

std::string format_parameters_text(const num::format& f) {
  return "p=" + std::to_string(f.precision) + ", emin=" + std::to_string(f.emin) + ", emax=" + std::to_string(f.emax) +
         (f.subnormals ? ", subnormals" : ", no subnormals") + (f.infinities ? ", infinities" : ", no infinities");
}

std::string format_title(const num::format& f) {
  const std::string name = num::format_name(f);
  const bool custom = name.starts_with("p=");
  return (custom ? "custom" : name) + " (" + format_parameters_text(f) + ")";
}

num::format parse_format_option(std::string_view text, std::string_view option) {
  try {
    return num::parse_format(text);
  } catch (const std::invalid_argument& e) {
    throw lab::input_error(std::string(option) + ": " + e.what());
  }
}

}  // namespace numlab::cli
