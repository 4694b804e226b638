#include "arguments.hpp"

#include <stdexcept>
#include <utility>

#include <pybind11/pybind11.h>

namespace numlab::python {
namespace {

template <class Parse>
auto parse_argument(std::string_view call, std::string_view argument, Parse parse) {
  try {
    return parse();
  } catch (const std::invalid_argument& e) {
    throw pybind11::value_error(std::string(call) + " " + std::string(argument) + ": " + e.what());
  }
}

}  // namespace

num::format parse_format_argument(std::string_view call, std::string_view text) {
  return parse_argument(call, "format", [&] { return num::parse_format(text); });
}

num::random_draws parse_draws_argument(std::string_view call, std::string_view text) {
  return parse_argument(call, "draws", [&] { return num::parse_random_draws(text); });
}

num::round_spec parse_spec(std::string_view call, const rounding_arguments& args) {
  num::round_spec spec;
  spec.mode = parse_argument(call, "mode", [&] { return num::parse_rounding(args.mode); });
  spec.overflow = parse_argument(call, "overflow", [&] { return num::parse_overflow_mode(args.overflow); });
  spec.tiny = parse_argument(call, "tininess", [&] { return num::parse_tininess(args.tininess); });
  spec.nans = parse_argument(call, "nans", [&] { return num::parse_nan_convention(args.nans); });
  if (args.bits < 1 || args.bits > 32)
    throw pybind11::value_error(std::string(call) + " bits: stochastic random bits must be in [1, 32] (got " +
                                std::to_string(args.bits) + ")");
  spec.random_bits = args.bits;
  return spec;
}

pybind11::tuple flag_names(num::flags raised) {
  static constexpr std::pair<num::flags, const char*> names[] = {
      {num::flags::invalid, "invalid"},     {num::flags::divide_by_zero, "divide_by_zero"},
      {num::flags::overflow, "overflow"},   {num::flags::underflow, "underflow"},
      {num::flags::inexact, "inexact"}};
  pybind11::list set;
  for (const auto& [flag, name] : names)
    if (num::any(raised, flag)) set.append(name);
  return pybind11::tuple(set);
}

}  // namespace numlab::python
