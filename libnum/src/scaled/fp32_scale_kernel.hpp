// Internal: the AVX-512 and AVX2 element rounding of the fp32 scale rules (fp32_amax,
// fp32_amax_pow2, fp32_given) into E4M3 or E5M2 under saturation, in every
// mode: x / D rounded once, D the block's fp32 decode scale. The block loop (amax, scale, NaN/inf blocks) stays in
// scaled_quantize.cpp; this takes the finite elements of one row segment.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fp32_quotient_rule.hpp"
#include "libnum/rounding.hpp"

namespace num::scaled_detail {

/// The element format and rounding.
struct fp32_kernel_setup {
  int precision = 4, emin = -6, bias = 7;
  std::uint32_t max_code = 0x7E;  ///< largest finite magnitude code
  round_spec spec{};
  std::uint64_t seed = 0, stream = 0;  ///< stochastic rounding's random stream
  /// A flushed |x| above this counts as block underflow without more ado
  /// (its own scale surely fits, margin 0); NaN: never.
  double lone_scale_fits_above = 0;
  /// The fast way's constants, from the fields above (fp32_quotient_rule::of).
  fp32_quotient_rule quotient{};
};

/// What one segment's elements did.
struct fp32_segment_counts {
  std::uint64_t inexact = 0, saturated = 0;
  std::uint64_t flushed = 0;        ///< nonzero inputs that became zero
  std::uint64_t flushed_sure = 0;   ///< of them, |x| > lone_scale_fits_above
  bool underflow = false;           ///< the underflow flag
};

/// Whether the kernel can run now: false where the MXCSR treats fp32
/// subnormal inputs as zero (DAZ) or flushes (FTZ).
bool fp32_kernel_usable();

/// Rounds in[0..n) (finite) divided by d into element codes (sign in bit
/// 7), adding to `counts`; under stochastic rounding in[i] takes the word
/// at position first_word + i.
void fp32_scaled_elements_avx512(const fp32_kernel_setup& setup, const float* in, std::uint8_t* codes, std::size_t n,
                                 double d, fp32_segment_counts& counts, std::uint64_t first_word);

/// Whether the AVX2 kernel can run now: the MXCSR rounds to nearest (its
/// division and FMA take the MXCSR's rounding) and neither flushes nor
/// treats subnormals as zero.
bool fp32_kernel_avx2_usable();

/// fp32_scaled_elements_avx512 on AVX2 (fp32_scale_avx2.cpp), bit for bit.
void fp32_scaled_elements_avx2(const fp32_kernel_setup& setup, const float* in, std::uint8_t* codes, std::size_t n,
                               double d, fp32_segment_counts& counts, std::uint64_t first_word);

}  // namespace num::scaled_detail
