// Internal: the NVFP4 kernel's fast element rounding (nvfp4_avx512.cpp):
// sixteen E2M1 codes from approximate quotients, where no lane lies near a
// rounding boundary. Include after avx512_region.hpp.
//
// Why an approximate quotient is enough. Every decision of the E2M1
// rounding of Q = |x| / D (D = S·s: the E4M3 block scale, at most 4
// significant bits, times the fp32 tensor scale, 24) is a comparison of Q
// with a boundary B of at most 3 significant bits: a midpoint or grid point
// (0.25 .. 8), or the tininess points 0.75, 0.875 and 1. B·D has at most 31
// significant bits and |x| at most 24, so where |x| != B·D the two differ by
// at least the unit of the finer one: Q lies on B exactly or at least about
// 2^-32 (relative) away from it. The quotient y = RN32(|x| · RN32(RN64(1/D)))
// is within 2^-23 (relative), at most 4 fp32 patterns, of Q. A lane whose y
// lies more than 8 patterns from every such B (whose pattern's low 21 bits
// are all zero) therefore rounds as Q does in every mode, is inexact (Q is
// on no grid point), and is tiny exactly where y is below the tininess
// point. A block with a lane nearer than that (about 2^-16 of random lanes,
// every lane of data already on the block's grid) goes to the exact
// comparison path instead, so the results are the same bit for bit.
#pragma once

#include <array>
#include <cstdint>

#include "libnum/rounding.hpp"

namespace num::scaled_detail {
namespace {

/// Sixteen magnitude codes (0..7, 32-bit lanes) and the lanes saturated;
/// `y` holds the approximate quotients' patterns (for the tininess test).
struct nvfp4_quotient_lanes {
  __m512i code;
  __m512i y;
  __mmask16 saturated;
};

/// Whether reciprocal (RN32 of 1/D) is a normal fp32, as the error bound
/// above needs.
NUMLAB_INLINE bool nvfp4_reciprocal_usable(float reciprocal) {
  return __builtin_bit_cast(std::uint32_t, reciprocal) - 0x00800000u < 0x7F000000u;
}

/// The E2M1 values of magnitude codes 0..7 (OCP MX v1.0, FP4 E2M1).
constexpr double e2m1_grid[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

/// E2M1 magnitude codes by the top three significant bits of a quotient y
/// in [0.125, 16): entry j is for the fp32 patterns whose bits 21 and up
/// equal j modulo 32, i.e. (with i = (j + 16) mod 32 < 28) for y in the
/// open interval (v, v + 2^(e - 2)) with e = i / 4 - 3 and v = 2^e (1 + (i
/// mod 4) / 4). Every E2M1 grid point and midpoint is such a v (at most 3
/// significant bits), so every y inside one interval rounds to the same
/// code: the entry is that code (8 where it saturates), rounded to nearest
/// (`nearest`; no tie lies inside) or toward zero.
constexpr std::array<std::uint32_t, 32> e2m1_code_table(bool nearest) {
  std::array<std::uint32_t, 32> table{};
  for (std::uint32_t j = 0; j < 32; ++j) {
    const std::uint32_t i = (j + 16) % 32;
    if (i >= 28) continue;
    double binade = 0.125;  // 2^e
    for (std::uint32_t k = 0; k < i / 4; ++k) binade *= 2;
    const double inside = binade * (1 + (i % 4) / 4.0) + binade / 8;
    std::uint32_t code = 0;
    for (std::uint32_t c = 1; c < 8; ++c) {
      const bool reached = nearest ? inside > (e2m1_grid[c - 1] + e2m1_grid[c]) / 2 : inside >= e2m1_grid[c];
      if (reached) code = c;
    }
    if (inside > (nearest ? 7 : 8)) code = 8;
    table[j] = code;
  }
  return table;
}

/// The E2M1 codes of sixteen |x| under a block's reciprocal decode scale,
/// rounded as Mode rounds (not stochastic). Its constants are opaque members
/// (avx512_region.hpp): GCC 12 otherwise builds each one again in every block.
template <rounding Mode>
class nvfp4_quotient_rounding {
 public:
  static_assert(Mode != rounding::stochastic);
  static constexpr bool nearest_mode = Mode == rounding::nearest_even || Mode == rounding::nearest_away;

  nvfp4_quotient_rounding()
      : cap_(opaque(splat(0x41700000))),  // 15
        least_(opaque(splat(0x3E000000))),  // 0.125
        near_offset_(opaque(splat(8))),
        near_bits_(opaque(splat(0x1FFFF0))),
        seven_(opaque(splat(7))),
        unit_(opaque(splat(1))) {
    alignas(64) static constexpr std::array<std::uint32_t, 32> table = e2m1_code_table(nearest_mode);
    table_low_ = opaque(_mm512_load_si512(table.data()));
    table_high_ = opaque(_mm512_load_si512(table.data() + 16));
  }

  /// The codes of sixteen |x| (a, with x's signs for the directed modes);
  /// false, with nothing computed that counts, where a lane of `a` lies
  /// near a boundary and the block needs the exact path.
  NUMLAB_INLINE bool codes(__m512i x, __m512i a, float reciprocal, nvfp4_quotient_lanes& out) const {
    constexpr int nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    // y, capped at 15 (everything from 8 up saturates; 15 is near no boundary).
    const __m512i y = _mm512_min_epu32(
        _mm512_castps_si512(_mm512_mul_round_ps(_mm512_castsi512_ps(a), _mm512_set1_ps(reciprocal), nearest)), cap_);
    // Near: y >= 0.125 (every boundary is >= 0.25) and within 8 patterns of
    // a multiple of 2^21 (a pattern with 3 significant bits).
    const __mmask16 large = _mm512_cmpge_epu32_mask(y, least_);
    if (_mm512_mask_testn_epi32_mask(large, _mm512_add_epi32(y, near_offset_), near_bits_) != 0) return false;
    // No lane lies near a boundary, so its top three significant bits decide
    // its code (e2m1_code_table); below 0.125 every code is 0 as at 0.125.
    // The permutation reads the index's low five bits only.
    __m512i code =
        _mm512_permutex2var_epi32(table_low_, _mm512_srli_epi32(_mm512_max_epu32(y, least_), 21), table_high_);
    // Every nonzero lane is inexact here: the directed modes round the
    // truncated magnitude up where the sign says so, to-odd makes it odd.
    const __mmask16 nonzero = _mm512_test_epi32_mask(a, a);
    if constexpr (Mode == rounding::toward_positive) {
      code = _mm512_mask_add_epi32(code, nonzero & ~_mm512_movepi32_mask(x), code, unit_);
    } else if constexpr (Mode == rounding::toward_negative) {
      code = _mm512_mask_add_epi32(code, nonzero & _mm512_movepi32_mask(x), code, unit_);
    } else if constexpr (Mode == rounding::to_odd) {
      code = _mm512_mask_or_epi32(code, nonzero, code, unit_);
    }
    out.saturated = _mm512_cmpgt_epu32_mask(code, seven_);
    out.code = _mm512_min_epu32(code, seven_);
    out.y = y;
    return true;
  }

 private:
  const __m512i cap_, least_, near_offset_, near_bits_, seven_, unit_;
  __m512i table_low_, table_high_;  // e2m1_code_table(nearest_mode)
};

}  // namespace
}  // namespace num::scaled_detail
