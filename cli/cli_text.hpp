// Text helpers shared by the `numlab` subcommands: numbers and formats.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <libnum/format.hpp>
#include <libnum/rounding.hpp>

// Declared here so that the pure text helpers' users need not parse CLI11
// (CLI11 declares it the same way, CLI/ConfigFwd.hpp).
namespace CLI {
class App;
}  // namespace CLI

namespace numlab::cli {

/// The shortest decimal that reads back as exactly `x` (std::to_chars), e.g.
/// "65504", "6.103515625e-05", "inf".
std::string shortest_text(double x);

/// "2^-14": a power of two written with its exponent.
std::string power_of_two_text(int exponent);

/// x with `digits` significant digits ("-5.283e-08", "0"), for errors and
/// ratios whose exact digits would only be noise.
std::string approximate_text(long double x, int digits = 4);

/// "p=11, emin=-14, emax=15, subnormals, infinities": a format's parameters.
std::string format_parameters_text(const num::format& f);

/// "fp16 (p=11, emin=-14, ...)" for a built-in format, "custom (p=..., ...)" otherwise.
std::string format_title(const num::format& f);

/// num::parse_format(text), with a parse failure rethrown as usage_error
/// whose message starts with `option` (e.g. "round --format").
num::format parse_format_option(std::string_view text, std::string_view option);

/// Adds `--nans NAME` (first-operand, x86, arm-dn, cuda: which NaN a NaN
/// result is, docs/NUMERICS.md "NaNs") to `command`, parsed once into
/// `target`; a bad name throws usage_error "<command> --nans: ...".
void add_nan_convention_option(CLI::App& command, num::nan_convention& target);

/// Letter case of hex digits: TestFloat writes upper case, numlab lower.
enum class hex_case : std::uint8_t { lower, upper };

/// Appends the low 4 * `digits` bits of `value` to `out` as exactly `digits`
/// hex digits, no prefix ("3c00"); appends, so a filter of millions of lines
/// reuses one buffer.
void append_hex(std::string& out, std::uint64_t value, int digits, hex_case letters = hex_case::lower);

/// The same as a new string.
std::string hex_text(std::uint64_t value, int digits, hex_case letters = hex_case::lower);

}  // namespace numlab::cli
