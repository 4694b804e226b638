// Number formatting shared by the experiments, matching how the tutorials
// printed their values (Python's "{:.7f}", "{:+.1%}", NumPy's shortest repr).
#pragma once

#include <cmath>
#include <optional>
#include <string>

#include <libnum/small_float.hpp>

namespace numlab::experiments {

/// x with `decimals` digits after the point, like printf("%.*f").
std::string fixed(double x, int decimals);
/// fraction as a signed percentage with `decimals` digits, like Python's
/// "{:+.1%}" (so -0.000244 gives "-0.0%").
std::string signed_percent(double fraction, int decimals);
/// The same number without the "%" sign, for a table cell whose column
/// header carries the unit ("+22.1" under "relative error (%)").
std::string signed_percent_value(double fraction, int decimals);
/// x with `digits` significant digits, like printf("%.*g").
std::string significant(double x, int digits);
/// x in C's "%.*e" style ("6.10e-05", "1.7e+38").
std::string scientific(double x, int decimals);
/// The exact decimal expansion of a value that is exactly a float.
std::string exact_decimal(float x);
/// k when x is exactly 2^k (x > 0), otherwise nothing.
std::optional<int> exponent_if_power_of_two(double x);
/// "2^-24" when x is a power of two, otherwise the shortest decimal of x as a float.
std::string power_of_two_or_decimal(double x);

/// The shortest decimal that reads back as v in its own format.
template <num::format F>
std::string shortest(num::small_float<F> v) {
  return to_string(v);
}

/// Whether v is a subnormal of its format.
template <num::format F>
bool is_subnormal(num::small_float<F> v) {
  return num::classify(F, v.bits()) == num::value_class::subnormal;
}

/// A value of F as a number for a table cell: an integral value below 10^7
/// in full ("65504"), otherwise its shortest decimal. Whether it is
/// subnormal goes in a column of its own (a program reads the cell as a number).
template <num::format F>
std::string shown_number(num::small_float<F> v) {
  const double x = static_cast<double>(v);
  if (std::abs(x) < 1e7 && x == std::trunc(x) && x != 0) return fixed(x, 0);
  return to_string(v);
}

/// The same for prose: marked "(subnormal)" when it is one.
template <num::format F>
std::string shown(num::small_float<F> v) {
  return is_subnormal(v) ? shown_number(v) + " (subnormal)" : shown_number(v);
}

/// How NumPy prints a scalar of v's format: the shortest decimal, with ".0"
/// after an integral value ("0.0", "0.25", "0.0004883").
template <num::format F>
std::string numpy_print(num::small_float<F> v) {
  std::string text = to_string(v);
  if (text.find_first_of(".eni") == std::string::npos) text += ".0";
  return text;
}

}  // namespace numlab::experiments
