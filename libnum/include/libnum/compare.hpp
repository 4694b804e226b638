// IEEE comparisons, minimum and maximum.
#pragma once

#include <cstdint>

#include "format.hpp"
#include "rounding.hpp"

namespace num {

/// A predicate's truth value and the flags it raised.
struct predicate {
  bool value;
  flags raised;
};

/// Quiet predicates (invalid only for a signalling NaN operand).
predicate eq(const format& f, std::uint32_t a, std::uint32_t b);
predicate lt_quiet(const format& f, std::uint32_t a, std::uint32_t b);
predicate le_quiet(const format& f, std::uint32_t a, std::uint32_t b);
predicate unordered(const format& f, std::uint32_t a, std::uint32_t b);
/// Signalling predicates (invalid for any NaN operand).
predicate eq_signaling(const format& f, std::uint32_t a, std::uint32_t b);
predicate lt(const format& f, std::uint32_t a, std::uint32_t b);
predicate le(const format& f, std::uint32_t a, std::uint32_t b);

/// IEEE 754-2019 minimum / maximum: NaN if either is NaN, -0 < +0.
rounded minimum(const format& f, std::uint32_t a, std::uint32_t b);
rounded maximum(const format& f, std::uint32_t a, std::uint32_t b);
/// IEEE 754-2019 minimumNumber / maximumNumber: a NaN operand is ignored.
rounded minimum_number(const format& f, std::uint32_t a, std::uint32_t b);
rounded maximum_number(const format& f, std::uint32_t a, std::uint32_t b);

}  // namespace num
