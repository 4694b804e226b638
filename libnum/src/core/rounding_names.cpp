#include <stdexcept>
#include <string>
#include <utility>

#include "libnum/rounding.hpp"

namespace num {

std::string_view rounding_name(rounding m) {
  switch (m) {
    case rounding::nearest_even: return "ne";
    case rounding::nearest_away: return "na";
    case rounding::toward_zero: return "rz";
    case rounding::toward_positive: return "ru";
    case rounding::toward_negative: return "rd";
    case rounding::to_odd: return "ro";
    case rounding::stochastic: return "sr";
  }
  return "?";
}

rounding parse_rounding(std::string_view t) {
  if (t == "ne" || t == "rne" || t == "nearest-even" || t == "nearest_even") return rounding::nearest_even;
  if (t == "na" || t == "rna" || t == "nearest-away" || t == "nearest_away") return rounding::nearest_away;
  if (t == "rz" || t == "toward-zero" || t == "toward_zero" || t == "truncate") return rounding::toward_zero;
  if (t == "ru" || t == "toward-positive" || t == "toward_positive" || t == "up") return rounding::toward_positive;
  if (t == "rd" || t == "toward-negative" || t == "toward_negative" || t == "down") return rounding::toward_negative;
  if (t == "ro" || t == "odd" || t == "to-odd" || t == "to_odd") return rounding::to_odd;
  if (t == "sr" || t == "stochastic") return rounding::stochastic;
  throw std::invalid_argument("unknown rounding mode '" + std::string(t) +
                              "' (expected ne, na, rz, ru, rd, ro or sr)");
}

std::string_view overflow_mode_name(overflow_mode m) {
  switch (m) {
    case overflow_mode::ieee: return "ieee";
    case overflow_mode::saturate: return "saturate";
    case overflow_mode::nan: return "nan";
  }
  return "?";
}

overflow_mode parse_overflow_mode(std::string_view t) {
  if (t == "ieee") return overflow_mode::ieee;
  if (t == "saturate") return overflow_mode::saturate;
  if (t == "nan") return overflow_mode::nan;
  throw std::invalid_argument("unknown overflow behaviour '" + std::string(t) +
                              "' (expected ieee, saturate or nan)");
}

std::string_view nan_convention_name(nan_convention c) {
  switch (c) {
    case nan_convention::first_operand: return "first-operand";
    case nan_convention::x86_sse: return "x86";
    case nan_convention::arm_default_nan: return "arm-dn";
    case nan_convention::cuda_canonical: return "cuda";
  }
  return "?";
}

nan_convention parse_nan_convention(std::string_view t) {
  for (const nan_convention c : all_nan_conventions)
    if (t == nan_convention_name(c)) return c;
  throw std::invalid_argument("unknown NaN convention '" + std::string(t) +
                              "' (expected first-operand, x86, arm-dn or cuda)");
}

std::string_view tininess_name(tininess t) {
  return t == tininess::before_rounding ? "before" : "after";
}

tininess parse_tininess(std::string_view t) {
  if (t == "after" || t == "after-rounding" || t == "after_rounding") return tininess::after_rounding;
  if (t == "before" || t == "before-rounding" || t == "before_rounding") return tininess::before_rounding;
  throw std::invalid_argument("unknown tininess '" + std::string(t) + "' (expected after or before)");
}

std::string flags_to_string(flags f) {
  static constexpr std::pair<flags, const char*> names[] = {
      {flags::invalid, "invalid"}, {flags::divide_by_zero, "divide-by-zero"}, {flags::overflow, "overflow"},
      {flags::underflow, "underflow"}, {flags::inexact, "inexact"}};
  std::string s;
  for (const auto& [flag, name] : names) {
    if (!any(f, flag)) continue;
    if (!s.empty()) s += '|';
    s += name;
  }
  return s.empty() ? "none" : s;
}

}  // namespace num
