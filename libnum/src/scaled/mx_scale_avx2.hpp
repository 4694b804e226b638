// Internal: the AVX2 MX kernel's block scales (mx_block_avx2.cpp): the E8M0
// scale of a block from its amax under each MX rule, as block_scale.cpp's
// scale_for gives it, and which blocks the kernel leaves to the scalar path
// for their scale or their tiny lanes. Include after avx2_region.hpp.
#pragma once

#include <cstdint>

#include "mx_block_kernel.hpp"

namespace num::scaled_detail {
namespace {

/// A block's scale, from its amax: X's biased fp32 exponent field (E_amax
/// plus the rule's binade up; E_X = exponent - emax), the E8M0 code
/// (clamped at 0), X as an fp32 pattern (for values; for code 0 the fp32
/// subnormal 2^-127) and 1/X's (floating-point elements only: INT8's code
/// may reach 254, whose 1/X is subnormal, and INT8 divides by X through the
/// exponent field instead).
struct mx_scale8 {
  int exponent = 0;
  std::uint32_t code = 0, x_bits = 0, inv_x_bits = 0;
};

/// The scale rule of one element format, and the bound below which nonzero
/// inputs go to the scalar path.
class mx_scale_rule8 {
 public:
  explicit mx_scale_rule8(const mx_kernel_setup& k)
      : small_limit_(splat8((static_cast<std::uint32_t>(k.emax > 1 ? k.emax : 1) << 23) - 2)),
        emax_(k.emax),
        rule_(k.rule),
        max_fraction_(k.max_fraction),
        even_half_(1u << (23 - k.precision)) {}

  // A block's scale (scale_of) from its four vectors of |x|: false where the
  // scalar path takes the block (also for lanes of small_lanes()).
  NUMLAB_INLINE bool scale_of_block(const __m256i* a, mx_scale8& s) const {
    // The block amax in every lane (a butterfly of maxima); magnitudes
    // order as their patterns, below 2^31, so signed maxima do.
    __m256i amax = _mm256_max_epi32(_mm256_max_epi32(a[0], a[1]), _mm256_max_epi32(a[2], a[3]));
    amax = _mm256_max_epi32(amax, _mm256_permute2x128_si256(amax, amax, 0x01));
    amax = _mm256_max_epi32(amax, _mm256_shuffle_epi32(amax, 0x4E));
    amax = _mm256_max_epi32(amax, _mm256_shuffle_epi32(amax, 0xB1));
    const __m256i small = small_lanes(a);
    return _mm256_testz_si256(small, small) && scale_of(static_cast<std::uint32_t>(_mm256_cvtsi256_si32(amax)), s);
  }

  // The scale rule (MX §6.3: X = 2^(floor(log2 amax) - emax_elem); RCEIL one
  // binade more where amax exceeds max_elem · 2^(E_X - 127), i.e. max_elem's
  // fraction under amax's exponent; EVEN where amax rounded (ties away) to p
  // bits carries into the next binade) from a finite amax's pattern; an
  // all-zero block gets X = 2^-127 (code 0). False for NaN/inf and a scale
  // above E8M0's largest finite one (INT8's emax 0 rounded up one binade
  // from fp32's top), which the scalar path clamps and counts.
  NUMLAB_INLINE bool scale_of(std::uint32_t amax_bits, mx_scale8& s) const {
    if (amax_bits >= 0x7F800000u) return false;
    int up = 0;
    if (rule_ == scale_rule::mx_rceil) {
      up = amax_bits > ((amax_bits & 0x7F800000u) | max_fraction_) ? 1 : 0;
    } else if (rule_ == scale_rule::mx_even) {
      up = static_cast<int>(((amax_bits + even_half_) >> 23) - (amax_bits >> 23));
    }
    s.exponent = static_cast<int>(amax_bits >> 23) + up;
    const int scale_field = s.exponent - emax_;
    if (scale_field > 254) return false;
    s.code = static_cast<std::uint32_t>(scale_field < 0 ? 0 : scale_field);
    s.x_bits = s.code == 0 ? 0x00400000u : s.code << 23;
    s.inv_x_bits = (254 - s.code) << 23;
    return true;
  }

  // Lanes holding nonzero values below 2^(emax - 127) (fp32 subnormals
  // included), which the scalar path takes: a - 1 wraps zero to the top.
  NUMLAB_INLINE __m256i small_lane_mask(__m256i a) const {
    const __m256i least = _mm256_sub_epi32(a, splat8(1));
    return _mm256_cmpeq_epi32(_mm256_min_epu32(least, small_limit_), least);
  }
  // small_lane_mask of a block's four vectors at once (nonzero where any lane is small).
  NUMLAB_INLINE __m256i small_lanes(const __m256i* a) const {
    const __m256i one = splat8(1);
    const __m256i least = _mm256_min_epu32(_mm256_min_epu32(_mm256_sub_epi32(a[0], one), _mm256_sub_epi32(a[1], one)),
                                           _mm256_min_epu32(_mm256_sub_epi32(a[2], one), _mm256_sub_epi32(a[3], one)));
    return _mm256_cmpeq_epi32(_mm256_min_epu32(least, small_limit_), least);
  }

 private:
  const __m256i small_limit_;  // (a - 1) <= this: nonzero and below 2^(emax - 127)
  const int emax_;
  const scale_rule rule_;
  const std::uint32_t max_fraction_, even_half_;  // RCEIL's and EVEN's
};

}  // namespace
}  // namespace num::scaled_detail
