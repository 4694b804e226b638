// Conversions into and out of a format, each rounded once.
#pragma once

#include <cstdint>

#include "format.hpp"
#include "rounding.hpp"

namespace num {

/// A double rounded once into f (never through float). NaNs keep their sign
/// and top payload bits and become quiet (invalid if signalling). With
/// spec.overflow saturate an infinity becomes ±max (overflow, inexact); else an
/// infinity into a format without infinities gives NaN and invalid.
rounded from_double(const format& f, double x, const round_spec& spec, std::uint32_t random_word = 0);
/// A float rounded once into f.
rounded from_float(const format& f, float x, const round_spec& spec, std::uint32_t random_word = 0);
/// An encoding of format `from` rounded once into format `to`.
rounded convert(const format& from, std::uint32_t bits, const format& to, const round_spec& spec,
                std::uint32_t random_word = 0);
/// An integer rounded once into f.
rounded from_int64(const format& f, std::int64_t v, const round_spec& spec, std::uint32_t random_word = 0);

/// An integer result with its flags.
struct integer_result {
  std::int64_t value;
  flags raised;
};
/// f's value rounded to an integer as spec says. NaN, infinities and values out
/// of range raise invalid and give the minimum integer (x86 convention).
/// Inexact is raised only when `signal_inexact` is set.
integer_result to_int32(const format& f, std::uint32_t bits, const round_spec& spec,
                        std::uint32_t random_word = 0, bool signal_inexact = true);
integer_result to_int64(const format& f, std::uint32_t bits, const round_spec& spec,
                        std::uint32_t random_word = 0, bool signal_inexact = true);

/// f's value rounded to an integral value of f (IEEE roundToIntegral); inexact
/// only when `signal_inexact` is set (roundToIntegralExact).
rounded round_to_integral(const format& f, std::uint32_t bits, const round_spec& spec,
                          std::uint32_t random_word = 0, bool signal_inexact = true);

}  // namespace num
