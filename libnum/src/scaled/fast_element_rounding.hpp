// Internal: element rounding on 64-bit integers, inlined into the block
// loop. The same decisions as round_exact (libnum/src/core/round_exact.cpp) for
// values of at most 62 significant bits, specialised to the small element
// formats: no 128-bit arithmetic and no call per element. The oracle tests
// run both this and the generic path (values it does not take fall back).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "element_rounding.hpp"

namespace num::scaled_detail {

/// An element format's parameters, derived once per call.
struct element_params {
  int precision = 0, emin = 0, emax = 0, bias = 0;
  std::uint64_t max_significand = 0;  ///< at emax, as a p-bit integer
  std::uint32_t sign_bit = 0;
  bool int8 = false;

  explicit element_params(element_type t)
      : sign_bit(std::uint32_t{1} << (element_bits(t) - 1)), int8(t == element_type::int8) {
    if (int8) return;
    const format g = *element_value_grid(t);
    precision = g.precision;
    emin = g.emin;
    emax = g.emax;
    bias = g.bias();
    max_significand = g.max_significand();
  }
};

namespace fast_detail {

// |v| cut at 2^shift units of 2^exponent (shift > 0): kept part and what the
// discarded fraction f looks like (as round_exact's cut).
struct cut64 {
  std::uint64_t kept = 0;
  bool half = false, rest = false;
  std::uint64_t top = 0;  // floor(f · 2^r)
};

inline cut64 cut_at(std::uint64_t m, bool sticky, int shift, int r) {
  cut64 c;
  if (shift <= 0) {
    c.kept = m << -shift;
    c.rest = sticky;
    return c;
  }
  c.kept = shift >= 64 ? 0 : m >> shift;
  c.half = shift - 1 < 64 && ((m >> (shift - 1)) & 1) != 0;
  const std::uint64_t low = shift - 1 >= 64 ? m : m & ((std::uint64_t{1} << (shift - 1)) - 1);
  c.rest = low != 0 || sticky;
  const std::uint64_t mask_r = r >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << r) - 1;
  if (shift >= r) {
    c.top = shift - r >= 64 ? 0 : (m >> (shift - r)) & mask_r;
  } else {
    c.top = (m << (r - shift)) & mask_r;
  }
  return c;
}

inline std::uint64_t apply(const round_spec& spec, bool negative, const cut64& c, std::uint32_t word) {
  const bool inexact = c.half || c.rest;
  bool up = false;
  switch (spec.mode) {
    case rounding::nearest_even: up = c.half && (c.rest || (c.kept & 1) != 0); break;
    case rounding::nearest_away: up = c.half; break;
    case rounding::toward_zero: break;
    case rounding::toward_positive: up = !negative && inexact; break;
    case rounding::toward_negative: up = negative && inexact; break;
    case rounding::to_odd: return inexact ? (c.kept | 1) : c.kept;
    case rounding::stochastic:
      up = c.top + random_draw(word, spec.random_bits) >= (std::uint64_t{1} << spec.random_bits);
      break;
  }
  return c.kept + (up ? 1 : 0);
}

}  // namespace fast_detail

/// |v| = (m + t) · 2^exponent, t = 0 or (sticky) t in (0, 1).
struct bracket {
  std::uint64_t m = 0;
  int exponent = 0;
  bool sticky = false;
};

/// |x| / (d · 2^k) as a bracket without 128-bit division: exact for a power
/// of two; else the double quotient y = RN(|x| / D) (D has at most 28 bits,
/// so D and x are exact doubles and y is normal) and the exact remainder
/// |x| - y·D from an FMA, whose sign says on which side of y the true
/// quotient lies: (y's 53-bit significand, or one less, + sticky).
inline bracket quotient_bracket(float x, divisor by) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x) & 0x7FFFFFFFu;
  const std::uint32_t field = bits >> 23;
  bracket b;
  b.m = field == 0 ? bits : (bits & 0x7FFFFFu) | 0x800000u;
  b.exponent = field == 0 ? -149 : static_cast<int>(field) - 150;
  if (by.odd == 1) {
    b.exponent -= by.exponent;
  } else if (b.m != 0) {
    const double d = by.value;
    const double ax = std::bit_cast<float>(bits);
    const double y = ax / d;
    const double remainder = std::fma(-y, d, ax);
    const std::uint64_t ybits = std::bit_cast<std::uint64_t>(y);
    b.m = (ybits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
    b.exponent = static_cast<int>(ybits >> 52) - 1075;
    if (remainder < 0) --b.m;
    b.sticky = remainder != 0;
  }
  return b;
}

/// |v| = (m + t) · 2^exponent with t = 0, or t in (0, 1) when sticky; m < 2^62,
/// and m >= 2^40 when sticky. Rounds v once into the element format with
/// saturation on overflow. Returns false (leaving `out` alone) for what it does
/// not handle: INT8 values of magnitude >= 2, and non-saturating overflow.
inline bool round_element_fast(const element_params& g, bool negative, std::uint64_t m, int exponent, bool sticky,
                               const round_spec& spec, std::uint32_t word, bool int8_symmetric, element_result& out) {
  using fast_detail::apply;
  using fast_detail::cut_at;
  const int r = spec.random_bits;
  if (m == 0 && !sticky) {
    out = {};
    out.zero = true;
    out.code = negative && !g.int8 ? g.sign_bit : 0;
    return true;
  }
  const int lead = exponent + static_cast<int>(std::bit_width(m)) - 1;  // (m == 0 only with sticky: not produced)
  if (g.int8) {
    if (lead >= 1) return false;
    const fast_detail::cut64 c = cut_at(m, sticky, -6 - exponent, r);
    std::uint64_t k = apply(spec, negative, c, word);
    out = {};
    out.raised = (c.half || c.rest) ? flags::inexact : flags::none;
    const std::uint64_t limit = negative && !int8_symmetric ? 128 : 127;
    if (k > limit) {
      k = limit;
      out.saturated = true;
      out.raised = flags::overflow | flags::inexact;
    }
    out.zero = k == 0;
    out.code =
        static_cast<std::uint32_t>(negative ? (0u - static_cast<std::uint32_t>(k)) : static_cast<std::uint32_t>(k)) &
        0xFFu;
    return true;
  }
  const int p = g.precision;
  if (lead > g.emax) {
    if (spec.overflow != overflow_mode::saturate) return false;
    out = {};
    out.saturated = true;
    out.raised = flags::overflow | flags::inexact;
    out.code = (negative ? g.sign_bit : 0) | (static_cast<std::uint32_t>(g.emax + g.bias) << (p - 1)) |
               static_cast<std::uint32_t>(g.max_significand & ((std::uint64_t{1} << (p - 1)) - 1));
    return true;
  }
  int quantum = lead >= g.emin ? lead - (p - 1) : g.emin - (p - 1);
  const fast_detail::cut64 c = cut_at(m, sticky, quantum - exponent, r);
  std::uint64_t kept = apply(spec, negative, c, word);
  if ((kept >> p) != 0) {
    kept >>= 1;
    ++quantum;
  }
  out = {};
  const bool inexact = c.half || c.rest;
  out.raised = inexact ? flags::inexact : flags::none;
  if (lead < g.emin && inexact) {
    bool tiny = true;
    if (spec.tiny == tininess::after_rounding) {
      const fast_detail::cut64 u = cut_at(m, sticky, lead - (p - 1) - exponent, r);
      const bool carried = (apply(spec, negative, u, word) >> p) != 0;
      tiny = !(carried && lead + 1 >= g.emin);
    }
    if (tiny) out.raised |= flags::underflow;
  }
  const std::uint32_t sign = negative ? g.sign_bit : 0;
  if (kept == 0) {
    out.zero = true;
    out.code = sign;
    return true;
  }
  const int width = static_cast<int>(std::bit_width(kept));
  const int result_lead = quantum + width - 1;
  const std::uint64_t normalized = kept << (p - width);
  if (result_lead > g.emax || (result_lead == g.emax && normalized > g.max_significand)) {
    if (spec.overflow != overflow_mode::saturate) return false;
    out.saturated = true;
    out.raised |= flags::overflow | flags::inexact;
    out.code = sign | (static_cast<std::uint32_t>(g.emax + g.bias) << (p - 1)) |
               static_cast<std::uint32_t>(g.max_significand & ((std::uint64_t{1} << (p - 1)) - 1));
    return true;
  }
  if (result_lead >= g.emin) {
    out.code = sign | (static_cast<std::uint32_t>(result_lead + g.bias) << (p - 1)) |
               static_cast<std::uint32_t>(normalized & ((std::uint64_t{1} << (p - 1)) - 1));
  } else {
    out.code = sign | static_cast<std::uint32_t>(kept);
  }
  return true;
}

}  // namespace num::scaled_detail
