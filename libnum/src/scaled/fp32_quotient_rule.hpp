// Internal: the fast way of the fp32-scale kernels (fp32_quotient_avx512.hpp,
// fp32_quotient_avx2.hpp): E4M3 or E5M2 codes of |x| / D from an approximate
// fp32 quotient, where no lane lies near a rounding boundary. This holds
// what does not depend on the instruction set: the argument, and its
// constants as fp32 patterns.
//
// Why an approximate quotient is enough (the argument of
// nvfp4_quotient_avx512.hpp, for any element precision p). Every decision
// of the rounding of Q = |x| / D is a comparison of Q with a boundary B of
// at most p + 1 significant bits: a grid point (exactness), a midpoint, the
// saturation midpoint (E4M3 464, E5M2 61440) or a tininess point (2^emin,
// (1 - 2^-p) · 2^emin, (1 - 2^-(p+1)) · 2^emin). B's fp32 pattern is a
// multiple of 2^(23 - p). The quotient y = RN32(|x| · RN32(RN64(1/D))) is
// within 2^-23 (relative), at most 4 fp32 patterns, of Q. A lane whose y
// lies more than 8 patterns from every multiple of 2^(23 - p) therefore
// lies on the same side of every boundary as Q, and Q lies on none: the
// lane rounds as Q does in every mode (nearest-away as nearest-even: no
// ties), is inexact, and is tiny exactly where y is below the mode's
// tininess point. Lanes of y below a quarter of the smallest subnormal lie
// far from every boundary (those below 2^-126 too, whatever fp32's
// subnormal quotient lost). A vector with a lane nearer than that (about
// 2^-14 of random vectors; every lane of data on the element grid) goes to
// the exact way instead, so the results are the same bit for bit.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "libnum/rounding.hpp"

namespace num::scaled_detail {

/// The fast way's constants for one element format and mode, as fp32
/// patterns where they are compared with y; made once per call (of()),
/// not per row segment.
struct fp32_quotient_rule {
  std::uint32_t cap = 0;             ///< 2^(emax + 2), which saturates in every mode, off the boundaries
  std::uint32_t least = 0;           ///< a quarter of the smallest subnormal: below it no boundary is near
  std::uint32_t near_bits = 0;       ///< y + 8 near a boundary: these bits all zero
  std::uint32_t emin_bits = 0;       ///< 2^emin
  std::uint32_t c_offset = 0;        ///< C = 2^(max(E_y, emin) + 24 - p): its exponent field's offset
  std::uint32_t c_field_offset = 0;  ///< code = quanta above C + C >> (24 - p) - this
  int normal_shift = 0;              ///< 24 - p
  std::uint32_t tiny_below = 0;      ///< tiny where y is below this (magnitude-up lanes: tiny_below_up)
  std::uint32_t tiny_below_up = 0;
  float sure_above = 0;  ///< the largest fp32 at most lone_scale_fits_above (NaN: none)

  /// The element's precision p, emin, bias and largest finite magnitude
  /// code; the rounding; fp32_kernel_setup's lone_scale_fits_above.
  static fp32_quotient_rule of(int p, int emin, int bias, std::uint32_t max_code, const round_spec& spec,
                               double lone_scale_fits_above) {
    fp32_quotient_rule r;
    const int emax = static_cast<int>(max_code >> (p - 1)) - bias;
    // Half a boundary spacing off the boundaries' multiples of 2^(23 - p).
    r.cap = (static_cast<std::uint32_t>(127 + emax + 2) << 23) + (1u << (22 - p));
    r.least = static_cast<std::uint32_t>(127 + emin - p - 1) << 23;
    r.near_bits = ((1u << (23 - p)) - 1) & ~0xFu;
    r.emin_bits = static_cast<std::uint32_t>(127 + emin) << 23;
    r.c_offset = static_cast<std::uint32_t>(24 - p) << 23;
    r.c_field_offset = static_cast<std::uint32_t>(127 + emin + 24 - p) << (p - 1);
    r.normal_shift = 24 - p;
    // After rounding, tiny below the point from which rounding at p bits
    // with an unbounded exponent carries to 2^emin: (1 - 2^-(p+1)) · 2^emin
    // for the nearest modes, (1 - 2^-p) · 2^emin where the magnitude rounds
    // up; toward zero and to odd never carry. Before rounding: 2^emin.
    const bool after = spec.tiny == tininess::after_rounding;
    const bool nearest = spec.mode == rounding::nearest_even || spec.mode == rounding::nearest_away;
    r.tiny_below = after && nearest ? r.emin_bits - (1u << (23 - p)) : r.emin_bits;
    r.tiny_below_up = after ? r.emin_bits - (1u << (24 - p)) : r.emin_bits;
    r.sure_above = static_cast<float>(lone_scale_fits_above);
    if (static_cast<double>(r.sure_above) > lone_scale_fits_above)
      r.sure_above = std::nextafter(r.sure_above, -std::numeric_limits<float>::infinity());
    return r;
  }

  /// Whether reciprocal (RN32 of 1/D) is a normal fp32, as the error bound
  /// above needs.
  static bool usable(float reciprocal) {
    return std::bit_cast<std::uint32_t>(reciprocal) - 0x00800000u < 0x7F000000u;
  }
};

}  // namespace num::scaled_detail
