// The functions `numlab testfloat` evaluates, as data: Berkeley TestFloat's
// name for each, its operand and result types, and the libnum call behind it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <libnum/rounding.hpp>

namespace numlab::cli::testfloat {

/// A TestFloat value type; it fixes how many hex digits a value takes on a line.
enum class value_type : std::uint8_t { f16, bf16, f32, f64, i32, i64, boolean };

/// Hex digits of a value of type t as TestFloat writes it (a boolean is one digit, 0 or 1).
constexpr int hex_digits(value_type t) {
  switch (t) {
    case value_type::f16:
    case value_type::bf16: return 4;
    case value_type::f32:
    case value_type::i32: return 8;
    case value_type::f64:
    case value_type::i64: return 16;
    case value_type::boolean: return 1;
  }
  return 0;
}

/// The command-line options that affect an evaluation.
struct evaluation_options {
  num::round_spec spec{};  ///< rounding direction, tininess (-r..., -tininess...) and NaN convention (--nans)
  bool exact = false;      ///< -exact: rounding to an integer raises inexact when it discards anything
};

/// A result (float encoding, two's-complement integer or 0/1) with its flags.
struct outcome {
  std::uint64_t bits;
  num::flags raised;
};

/// Evaluates one test case; `operands` holds the function's operand bit patterns.
using evaluator = outcome (*)(std::span<const std::uint64_t> operands, const evaluation_options& options);

/// One testable function. Functions that round to an integer (roundToInt and
/// conversions to integer types) follow TestFloat in treating -rodd as -rminMag.
struct function_info {
  std::string name;  ///< TestFloat's name, e.g. "f16_mulAdd"
  int arity;         ///< operands per line (1 to 3), all of type `operand`
  value_type operand;
  value_type result;
  evaluator evaluate;
};

/// Every function `numlab testfloat` knows: the f16 and bf16 families
/// (arithmetic, fused multiply-add, comparisons, roundToInt, conversions to and
/// from i32/i64/f32/f64).
std::span<const function_info> functions();

/// The function called `name`, or nullptr.
const function_info* find_function(std::string_view name);

}  // namespace numlab::cli::testfloat
