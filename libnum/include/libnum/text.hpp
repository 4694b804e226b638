// Reading and writing format values as text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "format.hpp"
#include "rounding.hpp"

namespace num {

/// The shortest decimal that reads back (nearest-even) as exactly `bits`;
/// "inf", "-inf", "nan", "-nan" for the specials.
std::string to_shortest_decimal(const format& f, std::uint32_t bits);

/// The exact decimal value of `bits` (every value of a format is a dyadic
/// rational, so its expansion terminates).
std::string to_exact_decimal(const format& f, std::uint32_t bits);

/// "0x3c00": the bit pattern, as many hex digits as the format needs.
std::string to_hex_bits(const format& f, std::uint32_t bits);

/// Reads a value into f: a decimal or hex-float number ("0.1", "-1e-8",
/// "0x1.8p3", "inf", "nan") rounded once as spec says, or a bit pattern written
/// "0x3c00" (hex digits with no '.' or 'p') taken as is. The number is read
/// exactly (MPFR's mpfr_strtofr, independent of the C library and of the
/// floating-point environment) and rounded once, in every mode, stochastic
/// included (its draw sees the exact value's discarded bits). Throws
/// std::invalid_argument naming the text.
rounded parse_value(const format& f, std::string_view text, const round_spec& spec,
                    std::uint32_t random_word = 0);

}  // namespace num
