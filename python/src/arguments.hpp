// The keyword arguments the Python calls share (format, mode, bits, seed,
// stream, first_index, overflow, tininess, nans), turned into libnum's terms. A bad
// value raises ValueError with libnum's own message, the text `numlab round`
// prints after its option name, prefixed here by the call and argument.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <pybind11/pybind11.h>

#include <libnum/format.hpp>
#include <libnum/philox.hpp>
#include <libnum/rounding.hpp>

namespace numlab::python {

/// How one call rounds, as the caller spelled it.
struct rounding_arguments {
  std::string format = "fp16";
  std::string mode = "ne";
  int bits = 32;  ///< random bits r of stochastic rounding
  std::string overflow = "ieee";
  std::string tininess = "after";
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;
  std::uint64_t first_index = 0;
  std::string nans = "first-operand";  ///< NaN convention: first-operand, x86, arm-dn, cuda
  std::string draws = "full-word";     ///< stochastic rounding's random words: full-word, half-word
};

/// num::parse_format, raising ValueError "<call> format: <libnum's message>".
num::format parse_format_argument(std::string_view call, std::string_view text);
/// num::parse_random_draws, raising ValueError "<call> draws: <libnum's message>".
num::random_draws parse_draws_argument(std::string_view call, std::string_view text);
/// The round_spec of the arguments; raises ValueError naming call and argument.
num::round_spec parse_spec(std::string_view call, const rounding_arguments& args);
/// The IEEE 754 flags set in `raised` as names ("invalid", "divide_by_zero",
/// "overflow", "underflow", "inexact"), for the reports calls return.
pybind11::tuple flag_names(num::flags raised);

/// The random stream (seed, stream) that stochastic rounding draws from.
inline num::random_stream random_of(const rounding_arguments& args) { return {args.seed, args.stream}; }

}  // namespace numlab::python
