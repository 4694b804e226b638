#include "cli_text.hpp"

#include <charconv>
#include <cstdio>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "usage_error.hpp"

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
    throw usage_error(std::string(option) + ": " + e.what());
  }
}

void add_nan_convention_option(CLI::App& command, num::nan_convention& target) {
  const std::string option = command.get_name() + " --nans";
  command
      .add_option_function<std::string>(
          "--nans",
          [&target, option](const std::string& value) {
            try {
              target = num::parse_nan_convention(value);
            } catch (const std::invalid_argument& e) {
              throw usage_error(option + ": " + e.what());
            }
          },
          "which NaN a NaN result is: first-operand (default; the first NaN operand, sign and payload kept), "
          "x86 (invalid gives -qNaN), arm-dn (Arm's default NaN, FPCR.DN), cuda (canonical NaN 0x7fff)")
      ->type_name("NAME");
}

void append_hex(std::string& out, std::uint64_t value, int digits, hex_case letters) {
  const char* const alphabet = letters == hex_case::upper ? "0123456789ABCDEF" : "0123456789abcdef";
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += alphabet[(value >> shift) & 0xF];
}

std::string hex_text(std::uint64_t value, int digits, hex_case letters) {
  std::string out;
  append_hex(out, value, digits, letters);
  return out;
}

}  // namespace numlab::cli
