// Comparisons and minimum/maximum; every value of a format is an exact double.
#include "libnum/compare.hpp"

#include "libnum/arithmetic.hpp"
#include "libnum/codec.hpp"

namespace num {
namespace {

enum class order { less, equal, greater, unordered };

order compare_values(const format& f, std::uint32_t a, std::uint32_t b) {
  if (is_nan(f, a) || is_nan(f, b)) return order::unordered;
  const double x = to_double(f, a), y = to_double(f, b);
  return x < y ? order::less : (x > y ? order::greater : order::equal);
}

flags quiet_flags(const format& f, std::uint32_t a, std::uint32_t b) {
  return is_signaling_nan(f, a) || is_signaling_nan(f, b) ? flags::invalid : flags::none;
}

flags signaling_flags(const format& f, std::uint32_t a, std::uint32_t b) {
  return is_nan(f, a) || is_nan(f, b) ? flags::invalid : flags::none;
}

// Picks between two non-NaN operands; `want_smaller` for minimum.
std::uint32_t pick(const format& f, std::uint32_t a, std::uint32_t b, bool want_smaller) {
  const order o = compare_values(f, a, b);
  if (o == order::equal) {  // ±0 tie: -0 is the smaller
    const bool a_negative = is_negative(f, a);
    return (a_negative == want_smaller) ? a : b;
  }
  return (o == order::less) == want_smaller ? a : b;
}

rounded pick_number(const format& f, std::uint32_t a, std::uint32_t b, bool want_smaller) {
  const flags raised = quiet_flags(f, a, b);
  const bool a_nan = is_nan(f, a), b_nan = is_nan(f, b);
  if (a_nan && b_nan) return propagate_nan(f, a, b);
  if (a_nan) return {b, raised};
  if (b_nan) return {a, raised};
  return {pick(f, a, b, want_smaller), flags::none};
}

}  // namespace

predicate eq(const format& f, std::uint32_t a, std::uint32_t b) {
  return {compare_values(f, a, b) == order::equal, quiet_flags(f, a, b)};
}
predicate lt_quiet(const format& f, std::uint32_t a, std::uint32_t b) {
  return {compare_values(f, a, b) == order::less, quiet_flags(f, a, b)};
}
predicate le_quiet(const format& f, std::uint32_t a, std::uint32_t b) {
  const order o = compare_values(f, a, b);
  return {o == order::less || o == order::equal, quiet_flags(f, a, b)};
}
predicate unordered(const format& f, std::uint32_t a, std::uint32_t b) {
  return {compare_values(f, a, b) == order::unordered, quiet_flags(f, a, b)};
}
predicate eq_signaling(const format& f, std::uint32_t a, std::uint32_t b) {
  return {compare_values(f, a, b) == order::equal, signaling_flags(f, a, b)};
}
predicate lt(const format& f, std::uint32_t a, std::uint32_t b) {
  return {compare_values(f, a, b) == order::less, signaling_flags(f, a, b)};
}
predicate le(const format& f, std::uint32_t a, std::uint32_t b) {
  const order o = compare_values(f, a, b);
  return {o == order::less || o == order::equal, signaling_flags(f, a, b)};
}

rounded minimum(const format& f, std::uint32_t a, std::uint32_t b) {
  if (is_nan(f, a) || is_nan(f, b)) return propagate_nan(f, a, b);
  return {pick(f, a, b, true), flags::none};
}
rounded maximum(const format& f, std::uint32_t a, std::uint32_t b) {
  if (is_nan(f, a) || is_nan(f, b)) return propagate_nan(f, a, b);
  return {pick(f, a, b, false), flags::none};
}
rounded minimum_number(const format& f, std::uint32_t a, std::uint32_t b) { return pick_number(f, a, b, true); }
rounded maximum_number(const format& f, std::uint32_t a, std::uint32_t b) { return pick_number(f, a, b, false); }

}  // namespace num
