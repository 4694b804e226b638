// The single rounding step every libnum operation ends with, out of line
// (its body is core/rounding_step.hpp), and rounding to an integral value.
#include "core/rounding_step.hpp"

namespace num {

rounded round_exact(const exact_value& x, const format& f, const round_spec& spec,
                    std::uint32_t random_word) {
  return round_exact_per_tininess(x, f, spec, random_word).under(spec.tiny);
}

integral_rounding round_to_integer(const exact_value& x, const round_spec& spec,
                                   std::uint32_t random_word) {
  if (x.is_zero()) return {0, false};
  const rounding_step::cut c = rounding_step::cut_at(x, -x.exponent, spec.random_bits);
  return {rounding_step::apply_rounding(spec, x.negative, c, random_word), c.inexact()};
}

}  // namespace num
