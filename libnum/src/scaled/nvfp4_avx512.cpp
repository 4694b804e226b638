// The AVX-512 NVFP4 block kernel: one 16-lane vector per block.
//
// Each block's scale and element roundings are decided without dividing any
// element. The block scale S = RNE_E4M3(amax / (6·s)) comes from one
// correctly rounded double division y = RN(amax / (6·s)): a half-grid point
// of E4M3 (at most 5 significant bits) times 6·s has at most 31 bits, so an
// amax that is not exactly on one lies at least 2^-32 (relative) from it,
// far beyond y's error of 2^-53; y therefore rounds as the exact quotient
// does. The elements then need only comparisons: with D = S·s (exact in
// double), x / D reaches E2M1 code k iff |x| reaches the k-th threshold
// (a midpoint or grid point times D, at most 31 bits, exact in double),
// converted to the fp32 pattern that |x| must reach: rounded up for "at
// least", rounded down plus one ulp for "more than". A binary search over
// the eight thresholds gives the code; comparisons on the patterns as
// integers do not depend on the MXCSR. That exact path is the fallback:
// most blocks round from an approximate quotient instead
// (nvfp4_quotient_avx512.hpp), at about 30 vector operations per block
// against the exact path's 50, and go to the exact path only where a lane
// lies within a few fp32 patterns of a boundary. Counts go to per-lane
// counters (lane_counts_avx512.hpp).
#include <array>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "libnum/cpu_features.hpp"
#include "kernels/random_word_bits.hpp"
#include "nvfp4_block_kernel.hpp"

// The AVX-512 region opens after every other header (see avx512_region.hpp).
#include "avx512_region.hpp"
#include "lane_counts_avx512.hpp"
#include "lane_max_avx512.hpp"
#include "nvfp4_quotient_avx512.hpp"
#include "nvfp4_scale_avx512.hpp"
#include "nvfp4_stochastic_avx512.hpp"
#include "random_window.hpp"

namespace num::scaled_detail {
namespace {

constexpr int nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
constexpr int upward = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
constexpr int downward = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;

// Eight thresholds t_1..t_7 (code k is reached iff |x| / D reaches t_k) and
// the saturation threshold, each reached "at least" or "more than".
struct threshold_rule {
  double t[8];
  std::uint8_t more_than;  ///< bit k-1: threshold k is "more than"
};
// Nearest-even: a tie goes to the even code (more than for odd k); 7 ties to 8: saturates.
constexpr threshold_rule nearest_even_rule{{0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5, 7}, 0b01010101};
constexpr threshold_rule nearest_away_rule{{0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5, 7}, 0};
// Magnitude toward zero: the grid points; saturation at 8 (the next binade).
constexpr threshold_rule magnitude_down_rule{{0.5, 1, 1.5, 2, 3, 4, 6, 8}, 0};
// Magnitude away from zero: anything above the code below; saturation above 6.
constexpr threshold_rule magnitude_up_rule{{0, 0.5, 1, 1.5, 2, 3, 4, 6}, 0xFF};

// The fp32 patterns |x| must reach for each threshold times D.
NUMLAB_INLINE __m256i thresholds(const threshold_rule& rule, __m512d d) {
  const __m512d product = _mm512_mul_pd(_mm512_loadu_pd(rule.t), d);  // exact: <= 31 bits
  const __m256i up = _mm256_castps_si256(_mm512_cvt_roundpd_ps(product, upward));
  const __m256i down = _mm256_castps_si256(_mm512_cvt_roundpd_ps(product, downward));
  return _mm256_mask_blend_epi32(rule.more_than, up, _mm256_add_epi32(down, _mm256_set1_epi32(1)));
}

// The fp32 patterns of the grid values times D where exact, else a pattern
// no |x| has (all ones): |x| equals its code's entry iff it was exact.
NUMLAB_INLINE __m512i exact_grid(__m512d d) {
  const __m512d product = _mm512_mul_pd(_mm512_loadu_pd(e2m1_grid), d);
  const __m256i up = _mm256_castps_si256(_mm512_cvt_roundpd_ps(product, upward));
  const __m256i down = _mm256_castps_si256(_mm512_cvt_roundpd_ps(product, downward));
  const __mmask8 exact = _mm256_cmpeq_epi32_mask(up, down);
  return _mm512_castsi256_si512(_mm256_mask_blend_epi32(exact, _mm256_set1_epi32(-1), up));
}

// The pattern |x| must stay below to be tiny after rounding: x / D below
// `kappa` ("at least" or "more than" as for thresholds).
std::uint32_t below_pattern(double kappa, bool more_than, double d) {
  const __m128d product = _mm_set_sd(kappa * d);
  if (more_than) {
    return __builtin_bit_cast(std::uint32_t, _mm_cvtss_f32(_mm_cvt_roundsd_ss(_mm_setzero_ps(), product, downward))) +
           1;
  }
  return __builtin_bit_cast(std::uint32_t, _mm_cvtss_f32(_mm_cvt_roundsd_ss(_mm_setzero_ps(), product, upward)));
}

template <rounding Mode>
class nvfp4_blocks {
 public:
  static constexpr bool directed = Mode == rounding::toward_positive || Mode == rounding::toward_negative;

  // With `values` set, blocks' dequantized values go there (from in[0] on)
  // instead of their codes.
  nvfp4_blocks(const round_spec& spec, float tensor_scale, random_window* random, std::uint64_t first_word,
               bool packed_fp4, float* values = nullptr)
      : values_(values),
        value_table_(_mm512_setr_ps(0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f, -0.0f, -0.5f, -1.0f, -1.5f, -2.0f,
                                    -3.0f, -4.0f, -6.0f)),
        packed_fp4_(packed_fp4),
        block_bytes_(packed_fp4 ? 8 : 16),
        random_(random),
        first_word_(first_word),
        top_bits_(_mm512_set1_epi64(kernels::random_word_top_bits(spec.random_bits))),
        s_(tensor_scale),
        six_s_(6.0 * static_cast<double>(tensor_scale)),
        after_rounding_(spec.tiny == tininess::after_rounding) {
    // A flushed |x| counts as block underflow iff |x| > 6·s·2^-10 (its own
    // block's scale would not be zero, see scaled_quantize.cpp).
    own_nonzero_ = splat(below_pattern(1.0, true, six_s_ * 0x1p-10));
  }

  // One block of `count` elements (a row's partial last block where fewer
  // than 16; the lanes past it hold zeros, which change neither the amax
  // nor any count); false (nothing written) when it needs the scalar path.
  NUMLAB_INLINE bool block(const float* in, std::uint8_t* codes, std::uint32_t& scale, std::size_t index,
                           std::size_t count = 16) {
    present_ = static_cast<__mmask16>((1u << count) - 1);
    const __m512i x = count == 16 ? _mm512_loadu_si512(in) : _mm512_maskz_loadu_epi32(present_, in);
    const __m512i a = _mm512_and_si512(x, splat(0x7FFFFFFF));
    __m512i amax = _mm512_max_epu32(a, _mm512_shuffle_i32x4(a, a, 0x4E));
    amax = _mm512_max_epu32(amax, _mm512_shuffle_i32x4(amax, amax, 0xB1));
    amax = _mm512_max_epu32(amax, _mm512_shuffle_epi32(amax, _MM_PERM_BADC));
    amax = _mm512_max_epu32(amax, _mm512_shuffle_epi32(amax, _MM_PERM_CDAB));
    const auto amax_bits = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm512_castsi512_si128(amax)));
    if (amax_bits >= 0x7F800000u) return false;
    const block_scale_result scale_of =
        amax_bits == 0 ? block_scale_result{}
                       : e4m3_block_scale(static_cast<double>(__builtin_bit_cast(float, amax_bits)), six_s_);
    scale = scale_of.code;
    aim_values(index, static_cast<float>(scale_of.value));
    if (scale_of.value == 0) {
      if (amax_bits != 0) ++scale_underflow_;
      zero_scale_elements(x, a, codes);
      present_ = 0xFFFF;
      return true;
    }
    if (scale_of.overflowed) ++scale_overflow_;
    const double d = scale_of.value * static_cast<double>(s_);  // exact: 4 x 24 bits
    if (!quotient_elements(x, a, reciprocal_of(d), codes)) elements(x, a, d, codes, index);
    present_ = 0xFFFF;
    return true;
  }

  // Sixteen blocks at once: their amaxes gathered into one vector (lane j =
  // block j) and their scales computed in its lanes; blocks the kernel does
  // not take are appended to `left` (numbered from `first`).
  NUMLAB_INLINE void group(const float* in, std::uint8_t* codes, std::uint32_t* scales, std::size_t first,
                           left_blocks& left) {
    __m512i a[16];
    for (int j = 0; j < 16; ++j) a[j] = _mm512_and_si512(_mm512_loadu_si512(in + 16 * j), splat(0x7FFFFFFF));
    const __m512i amax = transposed_max(a);
    const __mmask16 bad = _mm512_cmpge_epu32_mask(amax, splat(0x7F800000));
    const __mmask16 empty = _mm512_cmpeq_epi32_mask(amax, _mm512_setzero_si512());
    // Bad and empty lanes compute on 1.0 instead (their results are not used).
    const __m512 amax_f = _mm512_castsi512_ps(_mm512_mask_blend_epi32(bad | empty, amax, splat(0x3F800000)));
    alignas(64) double d[16];
    alignas(64) float reciprocal[16];   // RN32(RN64(1 / D)), for quotient_elements
    alignas(64) float block_scale[16];  // S as a float (0 where zero)
    __m256i code_half[2];
    __mmask8 zero[2], over[2];
    for (int h = 0; h < 2; ++h) {
      const __m512d am =
          _mm512_cvtps_pd(h == 0 ? _mm512_castps512_ps256(amax_f)
                                 : _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(amax_f), 1)));
      const __m512d r = e4m3_block_scales(am, six_s_, zero[h], over[h], code_half[h]);
      const __m512d dh = _mm512_mul_pd(r, _mm512_set1_pd(static_cast<double>(s_)));
      _mm512_store_pd(d + 8 * h, dh);
      if constexpr (Mode != rounding::stochastic) {
        _mm256_store_ps(reciprocal + 8 * h,
                        _mm512_cvt_roundpd_ps(_mm512_div_round_pd(_mm512_set1_pd(1.0), dh, nearest), nearest));
      }
      _mm256_store_ps(block_scale + 8 * h, _mm512_maskz_cvtpd_ps(static_cast<__mmask8>(~zero[h]), r));
    }
    // Blocks whose scale is zero (all zeros, or E4M3 underflow): code 0.
    const auto zero_scale = static_cast<__mmask16>((empty | zero[0] | (zero[1] << 8)) & ~bad);
    const auto overflowed = static_cast<__mmask16>((over[0] | (over[1] << 8)) & ~bad);
    scale_overflow_ += static_cast<std::uint64_t>(__builtin_popcount(static_cast<std::uint32_t>(overflowed)));
    scale_underflow_ +=
        static_cast<std::uint64_t>(__builtin_popcount(static_cast<std::uint32_t>(zero_scale & ~empty)));
    _mm512_mask_storeu_epi32(
        scales, static_cast<__mmask16>(~bad),
        _mm512_maskz_mov_epi32(static_cast<__mmask16>(~zero_scale),
                               _mm512_inserti64x4(_mm512_castsi256_si512(code_half[0]), code_half[1], 1)));
    for (int j = 0; j < 16; ++j) {
      if ((bad >> j) & 1) {
        left.add(first + static_cast<std::size_t>(j));
        continue;
      }
      aim_values(first + static_cast<std::size_t>(j), block_scale[j]);
      if ((zero_scale >> j) & 1) {
        zero_scale_elements(_mm512_loadu_si512(in + 16 * j), a[j], codes + block_bytes_ * static_cast<std::size_t>(j));
        continue;
      }
      const __m512i x = _mm512_loadu_si512(in + 16 * j);
      std::uint8_t* block_codes = codes + block_bytes_ * static_cast<std::size_t>(j);
      if (!quotient_elements(x, a[j], reciprocal[j], block_codes)) {
        elements(x, a[j], d[j], block_codes, first + static_cast<std::size_t>(j));
      }
    }
  }

  // The lanes of the blocks to come (a 2-D block narrower than 16 columns);
  // the lanes past them are loaded as zeros.
  void take_lanes(__mmask16 present) { present_ = present; }

  // RN32(RN64(1 / d)), quotient_elements' reciprocal decode scale.
  static float reciprocal_of(double d) {
    return _mm_cvtss_f32(_mm_cvt_roundsd_ss(_mm_setzero_ps(), _mm_div_round_sd(_mm_set_sd(1.0), _mm_set_sd(d), nearest),
                                            nearest));
  }

  // The fast path of elements() (nvfp4_quotient_avx512.hpp) for every mode
  // but stochastic: false, with nothing written or counted, where the block
  // needs the exact one.
  NUMLAB_INLINE bool quotient_elements(__m512i x, __m512i a, float reciprocal, std::uint8_t* codes) {
    if constexpr (Mode == rounding::stochastic) {
      return false;
    } else {
      nvfp4_quotient_lanes lanes;
      if (!nvfp4_reciprocal_usable(reciprocal) || !quotient_.codes(x, a, reciprocal, lanes)) return false;
      const __mmask16 inexact = _mm512_test_epi32_mask(a, a);
      tally(x, a, lanes.code, inexact, lanes.saturated, codes);
      if (!underflow_ && inexact != 0) {
        // Tiny: y below 1, or after rounding below the point from which
        // rounding carries to 1 (any_tiny's limits; y lies on none of them).
        __m512i limit = splat(0x3F800000);
        if (after_rounding_) {
          if constexpr (Mode == rounding::nearest_even || Mode == rounding::nearest_away) {
            limit = splat(0x3F600000);  // 0.875
          } else if constexpr (directed) {
            const __mmask16 up = Mode == rounding::toward_positive ? ~_mm512_movepi32_mask(x) : _mm512_movepi32_mask(x);
            limit = _mm512_mask_mov_epi32(limit, up, splat(0x3F400000));  // 0.75
          }
        }
        if (_mm512_mask_cmplt_epu32_mask(inexact, lanes.y, limit) != 0) underflow_ = true;
      }
      return true;
    }
  }

  // The elements of block `index` of the run with D = S·s (exact in double).
  NUMLAB_INLINE void elements(__m512i x, __m512i a, double d, std::uint8_t* codes, std::size_t index) {
    if constexpr (Mode == rounding::stochastic) {
      stochastic_elements(x, a, d, codes, random_->at(first_word_ + 16 * index));
      return;
    }
    const __m512d dv = _mm512_set1_pd(d);

    // The threshold table: lanes 0..7, and for the directed modes the
    // magnitude-up table in lanes 8..15, chosen per lane by `base`.
    __m512i table;
    __m512i base = _mm512_setzero_si512();
    if constexpr (directed) {
      table = _mm512_inserti64x4(_mm512_castsi256_si512(thresholds(magnitude_down_rule, dv)),
                                 thresholds(magnitude_up_rule, dv), 1);
      const __m512i negative = _mm512_srai_epi32(x, 31);
      base = Mode == rounding::toward_positive ? _mm512_andnot_si512(negative, splat(8))
                                               : _mm512_and_si512(negative, splat(8));
    } else if constexpr (Mode == rounding::nearest_even) {
      table = _mm512_castsi256_si512(thresholds(nearest_even_rule, dv));
    } else if constexpr (Mode == rounding::nearest_away) {
      table = _mm512_castsi256_si512(thresholds(nearest_away_rule, dv));
    } else {  // toward_zero, to_odd (the truncated code, made odd where inexact)
      table = _mm512_castsi256_si512(thresholds(magnitude_down_rule, dv));
    }
    // Binary search for the number of thresholds |x| reaches.
    __m512i code = _mm512_maskz_mov_epi32(
        _mm512_cmpge_epu32_mask(a, _mm512_permutexvar_epi32(_mm512_add_epi32(base, splat(3)), table)), splat(4));
    code = _mm512_mask_add_epi32(
        code,
        _mm512_cmpge_epu32_mask(
            a, _mm512_permutexvar_epi32(_mm512_add_epi32(_mm512_add_epi32(code, base), splat(1)), table)),
        code, splat(2));
    code = _mm512_mask_add_epi32(
        code, _mm512_cmpge_epu32_mask(a, _mm512_permutexvar_epi32(_mm512_add_epi32(code, base), table)), code,
        splat(1));
    const __mmask16 saturated =
        _mm512_cmpge_epu32_mask(a, _mm512_permutexvar_epi32(_mm512_add_epi32(base, splat(7)), table));
    __mmask16 inexact = _mm512_cmpneq_epi32_mask(a, _mm512_permutexvar_epi32(code, exact_grid(dv)));
    if constexpr (Mode == rounding::to_odd) code = _mm512_mask_or_epi32(code, inexact, code, splat(1));
    inexact |= saturated;
    tally(x, a, code, inexact, saturated, codes);
    if (!underflow_ && inexact != 0) underflow_ = any_tiny(a, inexact, base, d);
  }

  void add_to(scaled_result& result) const {
    scaled_counts& c = result.counts;
    const std::uint64_t inexact = inexact_ + inexact_lanes_.total(),
                        saturated = saturated_ + saturated_lanes_.total(),
                        block_underflow = block_underflow_ + block_underflow_lanes_.total();
    c.elements += elements_;
    c.blocks += blocks_;
    c.inexact += inexact;
    c.saturated += saturated;
    c.block_underflow += block_underflow;
    c.underflow_to_zero += flushed_ + flushed_lanes_.total() - block_underflow;
    c.scale_overflow += scale_overflow_;
    c.scale_underflow += scale_underflow_;
    if (inexact != 0) result.raised |= flags::inexact;
    if (saturated != 0) result.raised |= flags::overflow;
    if (underflow_) result.raised |= flags::underflow;
  }

 private:
  // Stores a block's codes (magnitude codes 0..7 in 32-bit lanes) with their
  // signs, and counts its inexact, saturated and flushed elements.
  NUMLAB_INLINE void tally(__m512i x, __m512i a, __m512i code, __mmask16 inexact, __mmask16 saturated,
                           std::uint8_t* codes) {
    const __mmask16 nonzero = _mm512_test_epi32_mask(a, a);
    const __mmask16 flushed = _mm512_mask_testn_epi32_mask(nonzero, code, code);
    const __mmask16 block_flushed = _mm512_mask_cmpge_epu32_mask(flushed, a, own_nonzero_);
    const __m512i signed_code = _mm512_ternarylogic_epi32(code, _mm512_srli_epi32(x, 28), sign_to_code_, 0xF8);
    if (out_ != nullptr) {
      // dequantize()'s two fp32 products: value × S (exact), then × s.
      const __m512 v = _mm512_mul_ps(_mm512_mul_ps(_mm512_permutexvar_ps(signed_code, value_table_), out_scale_),
                                     _mm512_set1_ps(s_));
      _mm512_mask_storeu_ps(out_, present_, v);
    } else if (present_ == 0xFFFF) {
      store_codes16(codes, signed_code, packed_fp4_);
    } else {
      store_codes16_masked(codes, signed_code, present_, packed_fp4_);
    }
    elements_ += static_cast<std::uint64_t>(__builtin_popcount(static_cast<std::uint32_t>(present_)));
    inexact_lanes_.add(inexact);
    saturated_lanes_.add(saturated);
    flushed_lanes_.add(flushed);
    block_underflow_lanes_.add(block_flushed);
    // The lane counters hold up to 2^32 - 1 blocks.
    if ((++blocks_ & 0x7FFFFFFF) == 0) {
      inexact_ += inexact_lanes_.take();
      saturated_ += saturated_lanes_.take();
      flushed_ += flushed_lanes_.take();
      block_underflow_ += block_underflow_lanes_.take();
    }
  }

  // Where values are wanted, the next block's go to block `index`'s place,
  // decoded under the block scale S.
  NUMLAB_INLINE void aim_values(std::size_t index, float block_scale) {
    if (values_ == nullptr) return;
    out_ = values_ + 16 * index;
    out_scale_ = _mm512_set1_ps(block_scale);
  }

  // A block whose scale is zero (all its elements zero, or its E4M3 scale
  // rounded to zero) decodes to zero whatever its codes: each element keeps
  // only its sign, and each nonzero one is inexact and underflows.
  NUMLAB_INLINE void zero_scale_elements(__m512i x, __m512i a, std::uint8_t* codes) {
    const __mmask16 nonzero = _mm512_test_epi32_mask(a, a);
    if (nonzero != 0) underflow_ = true;
    tally(x, a, _mm512_setzero_si512(), nonzero, 0, codes);
  }

  // Stochastic rounding from the fraction's top bits, each half of the
  // block the fast way where it can (nvfp4_stochastic_avx512.hpp).
  NUMLAB_INLINE void stochastic_elements(__m512i x, __m512i a, double d, std::uint8_t* codes,
                                         const std::uint32_t* words) {
    const __m512d dv = _mm512_set1_pd(d), rv = _mm512_set1_pd(nvfp4_reciprocal64(d));
    nvfp4_stochastic_lanes half[2];
    for (int h = 0; h < 2; ++h) {
      const __m256i a_half = h == 0 ? _mm512_castsi512_si256(a) : _mm512_extracti64x4_epi64(a, 1);
      const __m512i word = _mm512_cvtepu32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 8 * h)));
      if (!nvfp4_stochastic_half<false>(a_half, dv, rv, word, top_bits_, !underflow_, after_rounding_, half[h])) {
        nvfp4_stochastic_half<true>(a_half, dv, rv, word, top_bits_, !underflow_, after_rounding_, half[h]);
      }
    }
    const __m512i code = _mm512_inserti64x4(_mm512_castsi256_si512(half[0].code), half[1].code, 1);
    const auto inexact = static_cast<__mmask16>(half[0].inexact | (half[1].inexact << 8));
    const auto saturated = static_cast<__mmask16>(half[0].saturated | (half[1].saturated << 8));
    if ((half[0].tiny | half[1].tiny) != 0) underflow_ = true;
    tally(x, a, code, inexact, saturated, codes);
  }

  // Whether an inexact lane is tiny: x / D below 1 (before rounding), or
  // below the point from which rounding with an unbounded exponent carries
  // to 1 = 2^emin (after rounding; see round_exact's tininess rule).
  bool any_tiny(__m512i a, __mmask16 inexact, __m512i base, double d) const {
    std::uint32_t below = below_pattern(1.0, false, d);
    std::uint32_t below_up = below;
    if (after_rounding_) {
      if constexpr (Mode == rounding::nearest_even || Mode == rounding::nearest_away) {
        below = below_pattern(0.875, false, d);  // 0.875 ties to 1 in both
      }
      below_up = below_pattern(0.75, true, d);  // rounding up carries above 0.75
    }
    const __mmask16 up_lanes = _mm512_test_epi32_mask(base, base);
    const __m512i limit = _mm512_mask_blend_epi32(up_lanes, splat(below), splat(below_up));
    return _mm512_mask_cmplt_epu32_mask(inexact, a, limit) != 0;
  }

  float* const values_;  // where set, values instead of codes
  const __m512 value_table_;  // E2M1's value of each signed code
  float* out_ = nullptr;      // the current block's values
  __m512 out_scale_ = _mm512_setzero_ps();
  const bool packed_fp4_;
  const std::size_t block_bytes_;  // the bytes of one block's codes
  random_window* random_;          // stochastic rounding only
  const std::uint64_t first_word_;
  const __m512i top_bits_;  // the random bits that count, in 64-bit lanes
  const float s_;
  const double six_s_;
  const bool after_rounding_;
  __m512i own_nonzero_;
  const __m512i sign_to_code_ = opaque(splat(8));  // tally()'s (opaque: see avx512_region.hpp)
  struct no_quotient_rounding {};
  [[no_unique_address]] std::conditional_t<Mode == rounding::stochastic, no_quotient_rounding,
                                           nvfp4_quotient_rounding<Mode>>
      quotient_;
  __mmask16 present_ = 0xFFFF;  // the lanes of the block being quantized
  // Counts: the lane counters' totals taken so far, then the lane counters.
  // (flushed: every nonzero element that became zero; those not counted as
  // block underflow underflowed to zero.)
  std::uint64_t blocks_ = 0, elements_ = 0, inexact_ = 0, saturated_ = 0, flushed_ = 0, block_underflow_ = 0,
                scale_underflow_ = 0, scale_overflow_ = 0;
  lane_counts inexact_lanes_, saturated_lanes_, flushed_lanes_, block_underflow_lanes_;
  bool underflow_ = false;
};

template <rounding Mode>
void run_blocks(const nvfp4_kernel_setup& k, const nvfp4_run& run, scaled_result& result, left_blocks& left) {
  std::optional<random_window> random;
  if constexpr (Mode == rounding::stochastic) random.emplace(k.seed, k.stream, run.first_word);
  nvfp4_blocks<Mode> kernel(k.spec, k.tensor_scale, random ? &*random : nullptr, run.first_word, k.packed_fp4,
                            run.values);
  const std::size_t block_bytes = k.packed_fp4 ? 8 : 16;
  // Locals, so the compiler need not reload them after each store.
  const float* in = run.in;
  std::uint8_t* codes = run.codes;
  std::uint32_t* scales = run.scales;
  const std::size_t blocks = run.blocks;
  std::size_t b = 0;
  for (; b + 16 <= blocks; b += 16) kernel.group(in + 16 * b, codes + block_bytes * b, scales + b, b, left);
  for (; b < blocks; ++b) {
    if (!kernel.block(in + 16 * b, codes + block_bytes * b, scales[b], b)) left.add(b);
  }
  if (run.tail != 0 && !kernel.block(in + 16 * b, codes + block_bytes * b, scales[b], b, run.tail)) left.add(b);
  kernel.add_to(result);
}

// One 2-D block: each row of 16 elements through the 1x16 kernel's element
// rounding with the block's D (the kernel counts a row as a block: the
// block itself is the caller's to count).
template <rounding Mode>
void run_tile(const nvfp4_kernel_setup& k, const nvfp4_tile& tile, scaled_result& result) {
  scaled_result rows;
  const std::size_t code_stride = k.packed_fp4 ? tile.stride / 2 : tile.stride;
  const auto present = static_cast<__mmask16>((1u << tile.cols) - 1);
  const float reciprocal = nvfp4_blocks<Mode>::reciprocal_of(tile.d);
  for (std::size_t r = 0; r < tile.rows; ++r) {
    const std::uint64_t first_word = tile.first_word + r * tile.stride;
    std::optional<random_window> random;
    if constexpr (Mode == rounding::stochastic) random.emplace(k.seed, k.stream, first_word);
    nvfp4_blocks<Mode> kernel(k.spec, k.tensor_scale, random ? &*random : nullptr, first_word, k.packed_fp4);
    kernel.take_lanes(present);
    const __m512i x = _mm512_maskz_loadu_epi32(present, tile.in + r * tile.stride);
    const __m512i a = _mm512_and_si512(x, splat(0x7FFFFFFF));
    std::uint8_t* codes = tile.codes + r * code_stride;
    if (!kernel.quotient_elements(x, a, reciprocal, codes)) kernel.elements(x, a, tile.d, codes, 0);
    kernel.add_to(rows);
  }
  scaled_counts& c = result.counts;
  c.elements += rows.counts.elements;
  c.inexact += rows.counts.inexact;
  c.saturated += rows.counts.saturated;
  c.block_underflow += rows.counts.block_underflow;
  c.underflow_to_zero += rows.counts.underflow_to_zero;
  result.raised |= rows.raised;
}

}  // namespace

void nvfp4_tile_avx512(const nvfp4_kernel_setup& k, const nvfp4_tile& tile, scaled_result& result) {
  switch (k.spec.mode) {
    case rounding::nearest_even: return run_tile<rounding::nearest_even>(k, tile, result);
    case rounding::nearest_away: return run_tile<rounding::nearest_away>(k, tile, result);
    case rounding::toward_zero: return run_tile<rounding::toward_zero>(k, tile, result);
    case rounding::toward_positive: return run_tile<rounding::toward_positive>(k, tile, result);
    case rounding::toward_negative: return run_tile<rounding::toward_negative>(k, tile, result);
    case rounding::to_odd: return run_tile<rounding::to_odd>(k, tile, result);
    case rounding::stochastic: return run_tile<rounding::stochastic>(k, tile, result);
  }
}

bool nvfp4_kernel_usable() { return !mxcsr_flushes_subnormals(); }

void nvfp4_blocks_avx512(const nvfp4_kernel_setup& k, const nvfp4_run& run, scaled_result& result, left_blocks& left) {
  switch (k.spec.mode) {
    case rounding::nearest_even: return run_blocks<rounding::nearest_even>(k, run, result, left);
    case rounding::nearest_away: return run_blocks<rounding::nearest_away>(k, run, result, left);
    case rounding::toward_zero: return run_blocks<rounding::toward_zero>(k, run, result, left);
    case rounding::toward_positive: return run_blocks<rounding::toward_positive>(k, run, result, left);
    case rounding::toward_negative: return run_blocks<rounding::toward_negative>(k, run, result, left);
    case rounding::to_odd: return run_blocks<rounding::to_odd>(k, run, result, left);
    case rounding::stochastic: return run_blocks<rounding::stochastic>(k, run, result, left);
  }
}

namespace {
// The largest finite |x| among in[0..n) with NaN and inf masked out lane by
// lane: the slow loop, run only on a tensor holding NaN or inf.
amax_scan scan_finite_amax_masked(const float* in, std::size_t n) {
  __m512i amax = _mm512_setzero_si512();
  const __m512i magnitude = splat(0x7FFFFFFF), infinity = splat(0x7F800000);
  __mmask16 special = 0;
  for (std::size_t i = 0; i < n; i += 16) {
    const auto lanes = static_cast<__mmask16>(n - i >= 16 ? 0xFFFFu : (1u << (n - i)) - 1);
    const __m512i a = _mm512_and_si512(_mm512_maskz_loadu_epi32(lanes, in + i), magnitude);
    const __mmask16 finite = _mm512_cmplt_epu32_mask(a, infinity);
    amax = _mm512_mask_max_epu32(amax, finite, amax, a);
    special |= static_cast<__mmask16>(~finite & lanes);
  }
  return {__builtin_bit_cast(float, _mm512_reduce_max_epu32(amax)), special != 0};
}
}  // namespace

amax_scan scan_amax_avx512(const float* in, std::size_t n) {
  // The common case, a tensor without NaN or inf, needs only the maximum of
  // the |x| patterns (NaN and inf patterns exceed every finite one), and four
  // independent maxima keep enough loads in flight to read at memory speed:
  // the masked single-chain loop read 16M values in 2.0 ms, this one in
  // 1.4 ms.
  const __m512i magnitude = splat(0x7FFFFFFF);
  __m512i amax[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64)
    for (int k = 0; k < 4; ++k)
      amax[k] = _mm512_max_epu32(amax[k], _mm512_and_si512(_mm512_loadu_si512(in + i + 16 * k), magnitude));
  for (; i < n; i += 16) {
    const auto lanes = static_cast<__mmask16>(n - i >= 16 ? 0xFFFFu : (1u << (n - i)) - 1);
    amax[0] = _mm512_max_epu32(amax[0], _mm512_and_si512(_mm512_maskz_loadu_epi32(lanes, in + i), magnitude));
  }
  const std::uint32_t largest = _mm512_reduce_max_epu32(
      _mm512_max_epu32(_mm512_max_epu32(amax[0], amax[1]), _mm512_max_epu32(amax[2], amax[3])));
  if (largest >= 0x7F800000u) return scan_finite_amax_masked(in, n);
  return {__builtin_bit_cast(float, largest), false};
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
