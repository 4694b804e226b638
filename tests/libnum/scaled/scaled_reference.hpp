// An independent reference for the scaled formats, written from the spec
// text in exact rational arithmetic (GMP mpq_class) and using no libnum
// rounding or codec code:
//  - element values from the encodings of OCP MX v1.0 §5.3 / OFP8 §3
//    (sign, exponent field, mantissa, bias; E4M3's S.1111.111 NaN; INT8 = k/64);
//  - rounding of a rational onto that value table in every libnum mode as
//    DESIGN.md defines them (stochastic: round away iff floor(f·2^r)+R >= 2^r),
//    overflow saturating;
//  - block scales: MX §6.3 (floor(log2 amax) - emax_elem, E8M0 clamp), RCEIL,
//    EVEN, NVFP4's two levels, fp32 amax/max (optionally power of two).
#pragma once

#include <gmpxx.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <libnum/rounding.hpp>
#include <libnum/scaled_format.hpp>
#include <map>
#include <optional>
#include <vector>

namespace scaled_ref {

using rational = mpq_class;

inline rational pow2(int e) {
  rational r = 1;
  if (e >= 0) {
    mpz_mul_2exp(r.get_num_mpz_t(), r.get_num_mpz_t(), static_cast<unsigned>(e));
  } else {
    mpz_mul_2exp(r.get_den_mpz_t(), r.get_den_mpz_t(), static_cast<unsigned>(-e));
  }
  r.canonicalize();
  return r;
}

/// floor(a) as an integer.
inline mpz_class floor_of(const rational& a) {
  mpz_class q;
  mpz_fdiv_q(q.get_mpz_t(), a.get_num_mpz_t(), a.get_den_mpz_t());
  return q;
}

/// The exact value of a finite float.
inline rational of_float(float x) {
  int e = 0;
  const float m = std::frexp(x, &e);
  const auto n = static_cast<std::int64_t>(std::ldexp(m, 24));
  return rational(static_cast<long>(n)) * pow2(e - 24);
}

/// floor(log2 a) for a > 0.
inline int floor_log2(const rational& a) {
  int e =
      static_cast<int>(mpz_sizeinbase(a.get_num_mpz_t(), 2)) - static_cast<int>(mpz_sizeinbase(a.get_den_mpz_t(), 2));
  while (pow2(e) > a) --e;
  while (pow2(e + 1) <= a) ++e;
  return e;
}

/// An element format from the spec's parameters.
struct element_spec {
  int exponent_bits = 0, mantissa_bits = 0, bias = 0;
  bool int8 = false, ocp_e4m3_nan = false, ieee_specials = false;
  int bits() const { return int8 ? 8 : 1 + exponent_bits + mantissa_bits; }
};

inline element_spec spec_of(num::element_type t) {
  switch (t) {
    case num::element_type::e2m1: return {2, 1, 1, false, false, false};
    case num::element_type::e2m3: return {2, 3, 1, false, false, false};
    case num::element_type::e3m2: return {3, 2, 3, false, false, false};
    case num::element_type::e4m3: return {4, 3, 7, false, true, false};
    case num::element_type::e5m2: return {5, 2, 15, false, false, true};
    case num::element_type::int8: return {0, 0, 0, true, false, false};
  }
  return {};
}

/// One positive magnitude of the element table with its code.
struct grid_point {
  rational value;
  std::uint32_t code;
};

/// The non-negative finite magnitudes in code order (which is value order).
inline std::vector<grid_point> magnitudes(const element_spec& s) {
  std::vector<grid_point> out;
  if (s.int8) {
    for (std::uint32_t k = 0; k <= 127; ++k) out.push_back({rational(k) / 64, k});
    return out;
  }
  const std::uint32_t top = std::uint32_t{1} << (s.exponent_bits + s.mantissa_bits);
  for (std::uint32_t code = 0; code < top; ++code) {
    const std::uint32_t e = code >> s.mantissa_bits, m = code & ((1u << s.mantissa_bits) - 1);
    if (s.ocp_e4m3_nan && code == top - 1) break;
    if (s.ieee_specials && e == (1u << s.exponent_bits) - 1) break;
    const rational frac = rational(m) * pow2(-s.mantissa_bits);
    const rational value =
        e == 0 ? rational(frac * pow2(1 - s.bias)) : rational((1 + frac) * pow2(static_cast<int>(e) - s.bias));
    out.push_back({value, code});
  }
  return out;
}

/// magnitudes(s), built once per format.
inline const std::vector<grid_point>& cached_magnitudes(const element_spec& s) {
  static std::map<int, std::vector<grid_point>> cache;
  const int key = s.int8 ? 0 : s.exponent_bits * 16 + s.mantissa_bits;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, magnitudes(s)).first;
  return it->second;
}

/// The element value of a code (nullopt for NaN/inf).
inline std::optional<rational> value_of(const element_spec& s, std::uint32_t code) {
  if (s.int8) return rational(static_cast<std::int8_t>(code & 0xFF)) / 64;
  const std::uint32_t sign = 1u << (s.bits() - 1);
  for (const auto& g : cached_magnitudes(s)) {
    if (g.code == (code & (sign - 1))) return (code & sign) != 0 ? rational(-g.value) : g.value;
  }
  return std::nullopt;
}

struct element_out {
  std::uint32_t code = 0;
  bool saturated = false;
  bool inexact = false;
  bool zero = false;
};

/// v rounded onto the element table as DESIGN.md defines each mode; past the
/// largest value the result saturates. int8_symmetric drops -2.
inline element_out round_to_element(const element_spec& s, const rational& v, num::rounding mode, int r,
                                    std::uint32_t word, bool int8_symmetric = false) {
  const bool negative = v < 0;
  const rational a = negative ? rational(-v) : v;
  std::vector<grid_point> grid = cached_magnitudes(s);
  if (s.int8 && negative && !int8_symmetric) grid.push_back({rational(2), 128});
  // The next value past the largest in the format with unbounded exponent
  // (same spacing as the top binade): 8 for E2M1, 480 for E4M3, 2^16 for E5M2.
  const grid_point& top = grid.back();
  const rational next = top.value + (top.value - grid[grid.size() - 2].value);
  element_out out;
  grid_point lo{0, 0}, hi{0, 0};
  bool exact = false;
  if (a > top.value) {
    lo = top;
    hi = {next, top.code + 1};
  } else {
    std::size_t i = 0;
    while (i + 1 < grid.size() && grid[i + 1].value <= a) ++i;
    lo = grid[i];
    exact = lo.value == a;
    hi = exact ? lo : grid[i + 1];
  }
  grid_point pick = lo;
  if (a >= next) {
    pick = hi;  // every rounding of a reaches next or beyond: overflow
    exact = false;
  } else if (!exact) {
    const rational f = (a - lo.value) / (hi.value - lo.value);
    const rational half(1, 2);
    bool up = false;
    switch (mode) {
      case num::rounding::nearest_even: up = f > half || (f == half && (lo.code & 1) != 0); break;
      case num::rounding::nearest_away: up = f >= half; break;
      case num::rounding::toward_zero: up = false; break;
      case num::rounding::toward_positive: up = !negative; break;
      case num::rounding::toward_negative: up = negative; break;
      case num::rounding::to_odd: up = (lo.code & 1) == 0; break;
      case num::rounding::stochastic: {
        const mpz_class scaled = floor_of(f * pow2(r));
        const std::uint64_t draw = r >= 32 ? word : word >> (32 - r);
        up = scaled + mpz_class(static_cast<unsigned long>(draw)) >= mpz_class(pow2(r).get_num());
        break;
      }
    }
    pick = up ? hi : lo;
  }
  out.inexact = !exact;
  if (pick.value > top.value) {
    pick = top;
    out.saturated = true;
  }
  out.zero = pick.value == 0;
  if (s.int8) {
    const long k = negative ? -static_cast<long>(pick.code) : static_cast<long>(pick.code);
    out.code = static_cast<std::uint32_t>(k) & 0xFFu;
  } else {
    out.code = pick.code | (negative ? 1u << (s.bits() - 1) : 0u);
  }
  return out;
}

/// v rounded to nearest-even into a binary format of precision p with
/// smallest normal exponent emin (fp32: 24, -126): for scales.
inline rational round_binary_nearest_even(const rational& v, int p, int emin) {
  if (v == 0) return 0;
  const int e = std::max(floor_log2(v), emin);
  const rational quantum = pow2(e - (p - 1));
  const rational n = v / quantum;
  mpz_class k = floor_of(n);
  const rational f = n - rational(k);
  if (f > rational(1, 2) || (f == rational(1, 2) && k % 2 != 0)) ++k;
  return rational(k) * quantum;
}

inline float to_float(const rational& v) {
  // Exact: v is an fp32 value here.
  return static_cast<float>(v.get_d());
}

}  // namespace scaled_ref
