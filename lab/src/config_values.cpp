#include "config_values.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

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

double parse_number(const std::string& where, const std::string& key, const std::string& value) {
  // strtod reads forms like 1e-4 that YAML writers produce, correctly
  // rounded to the nearest double (the default rounding mode is never
  // changed while a configuration is read).
  char* end = nullptr;
  const double out = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(out))
    bad_value(where, key, value, "a finite number");
  return out;
}

bool parse_bool(const std::string& where, const std::string& key, const std::string& value,
                std::string_view expected) {
  if (value == "true" || value == "yes" || value == "on" || value == "1") return true;
  if (value == "false" || value == "no" || value == "off" || value == "0") return false;
  bad_value(where, key, value, expected);
}

}  // namespace lab
