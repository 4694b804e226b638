#include "config_values.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <type_traits>

#include "lab/errors.hpp"

namespace lab {

void bad_value(const std::string& where, const std::string& key, const std::string& value,
               std::string_view expected) {
  throw input_error(where + ": key '" + key + "': '" + value + "' is not " + std::string(expected));
}

std::size_t parse_count(const std::string& where, const std::string& key, const std::string& value,
                        std::string_view expected) {
  std::size_t out = 0;
  const auto* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, out);
  if (ec != std::errc() || ptr != end) bad_value(where, key, value, expected);
  return out;
}

namespace {

// A finite number of type Real (strtof or strtod), the whole text.
template <typename Real>
Real parse_finite(const std::string& where, const std::string& key, const std::string& value,
                  std::string_view expected) {
  char* end = nullptr;
  Real out{};
  if constexpr (std::is_same_v<Real, float>)
    out = std::strtof(value.c_str(), &end);
  else
    out = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(out))
    bad_value(where, key, value, expected);
  return out;
}

}  // namespace

float parse_float(const std::string& where, const std::string& key, const std::string& value) {
  // strtof accepts forms like 1e-4 that YAML writers produce.
  return parse_finite<float>(where, key, value, "a finite number");
}

double parse_number(const std::string& where, const std::string& key, const std::string& value) {
  return parse_finite<double>(where, key, value, "a number");
}

bool parse_bool(const std::string& where, const std::string& key, const std::string& value,
                std::string_view expected) {
  if (value == "true" || value == "yes" || value == "on" || value == "1") return true;
  if (value == "false" || value == "no" || value == "off" || value == "0") return false;
  bad_value(where, key, value, expected);
}

}  // namespace lab
