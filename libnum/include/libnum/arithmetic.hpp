// Correctly rounded arithmetic on encoded values of one format (docs/NUMERICS.md).
//
// Each function computes the exact result and rounds it once into format f as
// `spec` says; `random_word` feeds stochastic rounding (ignored otherwise).
// Which NaN a NaN result is follows spec.nans (rounding.hpp, nan_convention):
// by default a quiet NaN carrying the first NaN operand's sign and payload,
// +qNaN for an invalid operation. A signalling NaN operand raises invalid.
// Results and flags follow IEEE 754-2019 (and Berkeley SoftFloat where IEEE
// leaves a choice, e.g. fma(0, inf, qNaN) raises invalid).
#pragma once

#include <cstdint>

#include "format.hpp"
#include "rounding.hpp"

namespace num {

/// a + b.
rounded add(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
            std::uint32_t random_word = 0);
/// a - b.
rounded sub(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
            std::uint32_t random_word = 0);
/// a * b.
rounded mul(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
            std::uint32_t random_word = 0);
/// a / b (divide-by-zero for finite nonzero / 0).
rounded div(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
            std::uint32_t random_word = 0);
/// a * b + c with a single rounding.
rounded fma(const format& f, std::uint32_t a, std::uint32_t b, std::uint32_t c,
            const round_spec& spec, std::uint32_t random_word = 0);
/// Square root (invalid for negative nonzero a; sqrt(-0) = -0).
rounded sqrt(const format& f, std::uint32_t a, const round_spec& spec,
             std::uint32_t random_word = 0);

/// The operations above with the flags under both tininess rules at once
/// (spec.tiny is not read): add(f, a, b, spec) is
/// add_per_tininess(f, a, b, spec).under(spec.tiny), and so on. For callers
/// that need both, such as `numlab certify`, one call instead of two.
rounded_per_tininess add_per_tininess(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                                      std::uint32_t random_word = 0);
rounded_per_tininess sub_per_tininess(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                                      std::uint32_t random_word = 0);
rounded_per_tininess mul_per_tininess(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                                      std::uint32_t random_word = 0);
rounded_per_tininess div_per_tininess(const format& f, std::uint32_t a, std::uint32_t b, const round_spec& spec,
                                      std::uint32_t random_word = 0);
rounded_per_tininess fma_per_tininess(const format& f, std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                      const round_spec& spec, std::uint32_t random_word = 0);
rounded_per_tininess sqrt_per_tininess(const format& f, std::uint32_t a, const round_spec& spec,
                                       std::uint32_t random_word = 0);

/// -a and |a|: sign-bit operations, exact, no flags (NaNs too).
std::uint32_t negate(const format& f, std::uint32_t a);
std::uint32_t abs(const format& f, std::uint32_t a);

/// A quiet NaN for an operation on a and b (either a NaN) under convention c,
/// with invalid raised if either is signalling.
rounded propagate_nan(const format& f, std::uint32_t a, std::uint32_t b,
                      nan_convention c = nan_convention::first_operand);

}  // namespace num
