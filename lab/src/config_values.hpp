// The value parsers every family of config keys shares (train_config,
// precision_policy, trace_config). Each reads one value given as text for
// `key` from the source `where` (a file, "--lr", "config") and reports a bad
// one as input_error "<where>: key '<key>': '<value>' is not <expected>".
// Internal to lab.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lab {

/// Throws the input_error above.
[[noreturn]] void bad_value(const std::string& where, const std::string& key, const std::string& value,
                            std::string_view expected);
/// A non-negative decimal integer, the whole text.
std::size_t parse_count(const std::string& where, const std::string& key, const std::string& value,
                        std::string_view expected = "a non-negative integer");
/// A finite fp64 number as strtod reads it (1e-4 included), the whole text.
double parse_number(const std::string& where, const std::string& key, const std::string& value);
/// true/yes/on/1 or false/no/off/0.
bool parse_bool(const std::string& where, const std::string& key, const std::string& value,
                std::string_view expected = "true or false");

}  // namespace lab
