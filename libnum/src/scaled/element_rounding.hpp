// Internal: the single rounding of x / scale into an element format, on
// libnum's exact rounding core (round_exact), and element decoding.
#pragma once

#include <cstdint>

#include "core/exact_value.hpp"
#include "libnum/rounding.hpp"
#include "libnum/scaled_format.hpp"

namespace num::scaled_detail {

/// A positive dyadic divisor d · 2^k with d odd (d = 1: a power of two).
struct divisor {
  std::uint64_t odd = 1;
  int exponent = 0;
  double value = 1.0;  ///< d · 2^k (exact: d < 2^40 and k within double's range)
};
/// d · 2^k written with an odd d (d > 0).
divisor make_divisor(std::uint64_t d, int k);
/// A finite positive float as a divisor.
divisor divisor_of(float positive);
/// The product of two divisors (odd parts must multiply below 2^40).
divisor operator*(divisor a, divisor b);

/// The exact quotient x / (d · 2^k) of a finite float, with at least 64
/// significant bits and a sticky bit when d does not divide (exact_value's contract).
exact_value exact_quotient(float x, divisor by);

/// One element conversion.
struct element_result {
  std::uint32_t code = 0;  ///< element encoding in the low element_bits bits
  flags raised = flags::none;
  bool saturated = false;  ///< the finite value exceeded the element range
  bool zero = false;       ///< the result is ±0
};

/// q rounded once into element type t as spec says; overflow saturates to
/// ±max for formats without inf/NaN (callers reject other overflow modes
/// for them) and follows spec.overflow for E4M3/E5M2.
element_result round_element(element_type t, const exact_value& q, const round_spec& spec, std::uint32_t random_word,
                             bool int8_symmetric);

/// A NaN or ±inf input converted into E4M3/E5M2 as libnum's from_float does.
element_result special_element(element_type t, float x, const round_spec& spec);

/// The element's fp32-free exact value as a double (every element value is one).
double decode_element(element_type t, std::uint32_t code);

}  // namespace num::scaled_detail
