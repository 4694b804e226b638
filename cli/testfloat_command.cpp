// `numlab testfloat FUNCTION [options]`: a filter in Berkeley TestFloat's line
// format, so that `testfloat_gen ... | numlab testfloat ... | testfloat_ver ...`
// checks libnum against TestFloat's SoftFloat.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli_text.hpp"
#include "commands.hpp"
#include "testfloat_functions.hpp"
#include "usage_error.hpp"

namespace numlab::cli {
namespace {

using testfloat::evaluation_options;
using testfloat::function_info;
using testfloat::value_type;

constexpr std::string_view option_help =
    "options (TestFloat's names; the last of contradictory ones wins):\n"
    "  -rnear_even (default) -rnear_maxMag -rminMag -rmin -rmax -rodd\n"
    "      rounding; -rodd rounds to integers toward zero, as TestFloat expects\n"
    "  -tininessafter (default) -tininessbefore   when underflow is detected\n"
    "  -notexact (default) -exact   whether rounding to an integer raises inexact";

// Applies one TestFloat option (given with one or two leading dashes) to `o`.
void apply_option(std::string_view arg, evaluation_options& o) {
  std::string_view name = arg;
  while (name.starts_with('-')) name.remove_prefix(1);
  using num::rounding;
  if (name == "rnear_even") o.spec.mode = rounding::nearest_even;
  else if (name == "rnear_maxMag") o.spec.mode = rounding::nearest_away;
  else if (name == "rminMag") o.spec.mode = rounding::toward_zero;
  else if (name == "rmin") o.spec.mode = rounding::toward_negative;
  else if (name == "rmax") o.spec.mode = rounding::toward_positive;
  else if (name == "rodd") o.spec.mode = rounding::to_odd;
  else if (name == "tininessbefore") o.spec.tiny = num::tininess::before_rounding;
  else if (name == "tininessafter") o.spec.tiny = num::tininess::after_rounding;
  else if (name == "exact") o.exact = true;
  else if (name == "notexact") o.exact = false;
  else throw usage_error("testfloat: unknown option '" + std::string(arg) + "'\n" + std::string(option_help));
}

// Reads a hex token of 1 to `digits` digits; false if it is not one.
bool parse_hex(std::string_view token, int digits, std::uint64_t& value) {
  if (token.empty() || token.size() > static_cast<std::size_t>(digits)) return false;
  value = 0;
  for (const char c : token) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else return false;
    value = value << 4 | static_cast<std::uint64_t>(d);
  }
  return true;
}

// The first `count` space- or tab-separated fields of `line` (fewer if it has fewer).
std::vector<std::string_view> leading_fields(std::string_view line, int count) {
  std::vector<std::string_view> fields;
  std::size_t pos = 0;
  while (static_cast<int>(fields.size()) < count) {
    pos = line.find_first_not_of(" \t", pos);
    if (pos == std::string_view::npos) break;
    const std::size_t end = std::min(line.find_first_of(" \t", pos), line.size());
    fields.push_back(line.substr(pos, end - pos));
    pos = end;
  }
  return fields;
}

// Evaluates every test case of `in` and writes "operands result flags" lines to
// `out`. A malformed line stops the run with a usage_error naming the line;
// nothing is written for it.
void run_cases(const function_info& f, const evaluation_options& options, std::istream& in, std::ostream& out) {
  const int operand_digits = testfloat::hex_digits(f.operand);
  std::string line, text;
  std::uint64_t operands[3] = {};
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto where = [&] { return "testfloat " + f.name + ": stdin line " + std::to_string(number) + ": "; };
    const auto fields = leading_fields(line, f.arity);
    if (static_cast<int>(fields.size()) < f.arity) {
      throw usage_error(where() + "expected " + std::to_string(f.arity) + " hex operand(s), found " +
                             std::to_string(fields.size()));
    }
    for (int i = 0; i < f.arity; ++i) {
      if (!parse_hex(fields[i], operand_digits, operands[i])) {
        throw usage_error(where() + "operand " + std::to_string(i + 1) + " '" + std::string(fields[i]) +
                               "' is not a hex number of at most " + std::to_string(operand_digits) + " digits");
      }
    }
    const testfloat::outcome result = f.evaluate({operands, static_cast<std::size_t>(f.arity)}, options);
    text.clear();
    for (int i = 0; i < f.arity; ++i) {
      append_hex(text, operands[i], operand_digits, hex_case::upper);
      text += ' ';
    }
    append_hex(text, result.bits, testfloat::hex_digits(f.result), hex_case::upper);
    text += ' ';
    append_hex(text, static_cast<std::uint64_t>(result.raised), 2, hex_case::upper);
    text += '\n';
    out << text;
  }
}

}  // namespace

void add_testfloat_command(CLI::App& app) {
  auto* command = app.add_subcommand("testfloat", "Evaluate Berkeley TestFloat test cases from stdin for testfloat_ver");
  auto function_name = std::make_shared<std::string>();
  command->add_option("function", *function_name, "TestFloat function name, e.g. f16_add, bf16_to_f32")
      ->required();
  auto nans = std::make_shared<num::nan_convention>(num::nan_convention::first_operand);
  add_nan_convention_option(*command, *nans);
  command->allow_extras();  // TestFloat's single-dash options are parsed here, not by CLI11
  command->footer(
      "Reads lines of hex operands (further fields ignored) and writes 'operands result flags', flags as two hex "
      "digits: 01 inexact, 02 underflow, 04 overflow, 08 divide-by-zero, 10 invalid. Use as\n"
      "  testfloat_gen f16_add | numlab testfloat f16_add | testfloat_ver f16_add\n"
      "functions (F = f16 or bf16): F_add F_sub F_mul F_div F_sqrt F_mulAdd F_eq F_le F_lt F_eq_signaling "
      "F_le_quiet F_lt_quiet F_roundToInt F_to_i32 F_to_i64 F_to_i32_r_minMag F_to_i64_r_minMag F_to_f32 F_to_f64 "
      "i32_to_F i64_to_F f32_to_F f64_to_F\n" +
      std::string(option_help));
  command->callback([command, function_name, nans] {
    const function_info* f = testfloat::find_function(*function_name);
    if (f == nullptr) {
      std::string known;
      for (const auto& g : testfloat::functions()) known += (known.empty() ? "" : " ") + g.name;
      throw usage_error("testfloat: unknown function '" + *function_name + "' (known: " + known + ")");
    }
    evaluation_options options;
    options.spec.nans = *nans;
    for (const std::string& arg : command->remaining()) apply_option(arg, options);
    std::ios::sync_with_stdio(false);  // the filter may see millions of lines
    run_cases(*f, options, std::cin, std::cout);
  });
}

}  // namespace numlab::cli
