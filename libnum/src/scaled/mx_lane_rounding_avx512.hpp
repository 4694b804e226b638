// Internal: the MX kernel's element rounding, sixteen lanes at a time
// (mx_block_avx512.cpp): each lane's element code under its block's scale,
// with the same decisions as round_exact (libnum/src/core/round_exact.cpp),
// saturated, signed, and with its flags. Include after avx512_region.hpp
// and element_fields_avx512.hpp.
#pragma once

#include <cstdint>

#include "mx_block_kernel.hpp"
#include "kernels/random_word_bits.hpp"

namespace num::scaled_detail {
namespace {

/// Sixteen lanes' element codes (sign in the element's top bit) and which
/// lanes were inexact, saturated, and flushed to zero though nonzero. The
/// Fused roundings give each lane's element value instead of its code
/// (signed, saturated, in units of the block scale), which the fused
/// dequantization multiplies by X where the others decode the code.
struct mx_lanes {
  __m512i code;
  __mmask16 inexact, overflow, flushed;
  __m512 value{};
};

/// The rounding of one element format and mode; its constants are members
/// (not read through the setup) so that byte stores cannot make the
/// compiler reload them.
template <rounding Mode>
class mx_lane_rounding {
 public:
  explicit mx_lane_rounding(const mx_kernel_setup& k)
      : normal_shift_minus_one_(splat(static_cast<std::uint32_t>(23 - k.precision))),
        max_code_(splat(k.max_code)),
        top_bits_(splat(kernels::random_word_top_bits(k.spec.random_bits))),
        precision_shift_(_mm_cvtsi32_si128(k.precision - 1)),
        sign_shift_(_mm_cvtsi32_si128(32 - k.element_bits)),
        sign_bit_(splat(1u << (k.element_bits - 1))),
        emin_bits_(splat(static_cast<std::uint32_t>(127 + k.emin) << 23)),
        c_offset_(splat(static_cast<std::uint32_t>(24 - k.precision) << 23)),
        normal_shift_count_(_mm_cvtsi32_si128(24 - k.precision)),
        c_field_offset_(splat(static_cast<std::uint32_t>(127 + k.emin + 24 - k.precision) << (k.precision - 1))),
        int8_negative_limit_(splat(k.int8_symmetric ? 127 : 128)),
        max_value_(_mm512_set1_ps(k.max_value)),
        quantum_field_offset_(splat(static_cast<std::uint32_t>(104 + k.emin))),
        fields_(k.element_bits, k.precision - 1, k.bias),
        one_(opaque(splat(1))),
        thirty_two_(opaque(splat(32))),
        fraction_bits_(opaque(splat(0x7FFFFF))),
        hidden_bit_(opaque(splat(0x800000))) {}

  // Sixteen lanes: x (fp32 patterns), a = |x|, emin_field = the fp32
  // exponent field of the element's 2^emin under the block's scale.
  //
  // With Fused, the lane's value instead of its code: kept quanta of
  // 2^(E - 150 + s) in x's units, that is of 2^(E + s + 104 + emin -
  // emin_field - 127) in units of X (emin_field = 127 + emin + X's
  // exponent). That field is at least 128 - p + emin (>= 110: s cuts at
  // least down to the element's subnormal quantum) and at most emax + 129 -
  // p (x <= amax < 2^(emax + 1) · X), a zero lane's (kept 0) included, so
  // the product is an exact power-of-two scaling. Saturated lanes are those
  // whose value exceeds the element's largest, flushed ones those that keep
  // nothing, as the code would say (codes order as their values).
  template <bool Fused = false>
  NUMLAB_INLINE mx_lanes round16(__m512i x, __m512i a, __m512i emin_field, __m512i words) const {
    const cut_lanes c = cut16(x, a, emin_field, words);
    if constexpr (Fused) {
      const __m512i quantum_field =
          _mm512_sub_epi32(_mm512_add_epi32(_mm512_add_epi32(c.biased, c.s), quantum_field_offset_), emin_field);
      const __m512 value = _mm512_mul_round_ps(_mm512_cvtepi32_ps(c.kept),
                                               _mm512_castsi512_ps(_mm512_slli_epi32(quantum_field, 23)),
                                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);  // exact
      return finish_value(x, value, _mm512_mask_testn_epi32_mask(c.nonzero, c.kept, c.kept), c.inexact);
    }
    // code = (max(E, E_emin) - E_emin) · 2^(p-1) + kept: the subnormal and
    // normal ranges alike (emin + bias = 1), a carry reaching the next binade.
    const __m512i field = _mm512_sub_epi32(_mm512_max_epi32(c.biased, emin_field), emin_field);
    return finish(x, _mm512_maskz_add_epi32(c.nonzero, _mm512_sll_epi32(field, precision_shift_), c.kept), c.nonzero,
                  c.inexact);
  }

  // MX INT8 (§5.3.4 as in scalar's round_int8) in every mode but
  // nearest-even (int8_nearest_even16): INT8 is k · 2^-6 · X, which is the
  // grid round16 cuts to for an element of p = 7 and emin = 0 (mx_setup's
  // INT8 setup), whose quantum 2^-6 · X holds below 2^emin · X = X too. Every
  // |x| lies below 2X (the scale rules give X >= 2^floor(log2 amax)), in
  // the binade of 2^emin or under it, so the kept quanta are k itself.
  NUMLAB_INLINE mx_lanes int8_round16(__m512i x, __m512i a, __m512i emin_field, __m512i words) const {
    const cut_lanes c = cut16(x, a, emin_field, words);
    return int8_finish(x, c.kept, c.nonzero, c.inexact);
  }

  // Nearest-even on the fp32 unit: y = |x| / X (pattern y_bits; exact where
  // x is nonzero and the exponent field stays >= 1, "valid"). Adding C = 2^(23 + quantum
  // exponent), a power of two above y whose ulp is the element's quantum at
  // y (the normal or the subnormal one), rounds y at that quantum in one
  // correctly rounded fp32 addition, and the sum's pattern minus C's is the
  // kept significand in quanta (the sum stays below 2C). Lanes that are not
  // valid lie below 2^-126 · X, far under half the smallest subnormal
  // element: they round to zero. With Fused, the lane's value (`rounded`,
  // 0 where not valid) instead of its code, whose encoding it is.
  template <bool Fused = false>
  NUMLAB_INLINE mx_lanes nearest_even16(__m512i x, __m512i y_bits) const {
    const __mmask16 nonzero = _mm512_test_epi32_mask(x, splat(0x7FFFFFFF));
    const __mmask16 valid = _mm512_mask_cmpgt_epi32_mask(nonzero, y_bits, splat(0x7FFFFF));
    const __m512i quantum_field = _mm512_and_si512(_mm512_max_epi32(y_bits, emin_bits_), splat(0x7F800000));
    const __m512i c_bits = _mm512_add_epi32(quantum_field, c_offset_);
    const __m512 c = _mm512_castsi512_ps(c_bits);
    const __m512 y = _mm512_castsi512_ps(y_bits);
    const __m512 sum = _mm512_add_round_ps(y, c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512i kept = _mm512_sub_epi32(_mm512_castps_si512(sum), c_bits);
    const __m512 rounded = _mm512_sub_round_ps(sum, c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);  // exact
    const __mmask16 inexact = _mm512_mask_cmp_ps_mask(valid, rounded, y, _CMP_NEQ_UQ) | (nonzero & ~valid);
    if constexpr (Fused) {
      const __mmask16 kept_some = _mm512_mask_cmp_ps_mask(valid, rounded, _mm512_setzero_ps(), _CMP_NEQ_UQ);
      return finish_value(x, _mm512_maskz_mov_ps(valid, rounded), nonzero & ~kept_some, inexact);
    }
    // code = kept + (max(E_y, E_emin) - E_emin) · 2^(p-1), from C's field.
    const __m512i field = _mm512_sub_epi32(_mm512_srl_epi32(c_bits, normal_shift_count_), c_field_offset_);
    return finish(x, _mm512_maskz_add_epi32(valid, field, kept), nonzero, inexact);
  }

  // MX INT8 (§5.3.4 as in scalar's round_int8): y = |x| / X · 2^6 rounded to
  // an integer by adding C = 2^23 (whose ulp is 1), saturated to 127, or to
  // 128 for negative x (-2 = -128 · 2^-6) unless symmetric; the code is the
  // two's complement byte. INT8 raises no underflow.
  NUMLAB_INLINE mx_lanes int8_nearest_even16(__m512i x, __m512i y_bits) const {
    const __mmask16 nonzero = _mm512_test_epi32_mask(x, splat(0x7FFFFFFF));
    const __mmask16 valid = _mm512_mask_cmpgt_epi32_mask(nonzero, y_bits, splat(0x7FFFFF));
    const __m512i c_bits = splat(0x4B000000);  // 2^23
    const __m512 c = _mm512_castsi512_ps(c_bits);
    const __m512 y = _mm512_castsi512_ps(y_bits);
    const __m512 sum = _mm512_add_round_ps(y, c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512i kept = _mm512_maskz_sub_epi32(valid, _mm512_castps_si512(sum), c_bits);
    const __m512 rounded = _mm512_sub_round_ps(sum, c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);  // exact
    return int8_finish(x, kept, nonzero, _mm512_mask_cmp_ps_mask(valid, rounded, y, _CMP_NEQ_UQ) | (nonzero & ~valid));
  }

  // A lane's floating-point element code (as finish() leaves it) to its
  // value, exactly the value dequantize()'s table holds (the kernel makes no
  // inf or NaN codes); INT8 codes decode with int8_value.
  NUMLAB_INLINE __m512 decode16(__m512i code) const { return fields_.value(code); }

 private:
  // round16's cut of x's significand under the block's 2^emin: the kept
  // quanta rounded as Mode rounds, which lanes were inexact and nonzero, x's
  // exponent field and the bits cut (s).
  struct cut_lanes {
    __m512i kept, biased, s;
    __mmask16 inexact, nonzero;
  };
  NUMLAB_INLINE cut_lanes cut16(__m512i x, __m512i a, __m512i emin_field, __m512i words) const {
    const __m512i one = one_;
    const __m512i biased = _mm512_srli_epi32(a, 23);
    const __mmask16 nonzero = _mm512_test_epi32_mask(a, a);
    // m = hidden bit | fraction (inputs are normal or zero here); 0 in zero lanes.
    const __m512i m = _mm512_maskz_ternarylogic_epi32(nonzero, a, fraction_bits_, hidden_bit_, 0xEA);
    // Bits cut off: 24 - p in the element's normal range, one more per
    // binade below it (s - 1 computed first: the half bit's position).
    const __m512i s1 = _mm512_max_epi32(
        normal_shift_minus_one_, _mm512_add_epi32(normal_shift_minus_one_, _mm512_sub_epi32(emin_field, biased)));
    const __m512i s = _mm512_add_epi32(s1, one);
    const __m512i truncated = _mm512_srlv_epi32(m, s);  // counts >= 32 give 0
    const __mmask16 inexact = _mm512_cmpneq_epi32_mask(_mm512_sllv_epi32(truncated, s), m);
    __m512i kept = truncated;
    if constexpr (Mode == rounding::nearest_even) {
      // (m + half - 1 + lowest kept bit) >> s; with s - 1 >= 32 the half is
      // 0 and the shift still gives 0.
      const __m512i half = _mm512_sllv_epi32(one, s1);
      const __m512i odd = _mm512_and_si512(truncated, one);
      kept = _mm512_srlv_epi32(_mm512_add_epi32(_mm512_add_epi32(m, odd), _mm512_sub_epi32(half, one)), s);
    } else if constexpr (Mode == rounding::nearest_away) {
      kept = _mm512_srlv_epi32(_mm512_add_epi32(m, _mm512_sllv_epi32(one, s1)), s);
    } else if constexpr (Mode == rounding::to_odd) {
      kept = _mm512_mask_or_epi32(truncated, inexact, truncated, one);
    } else if constexpr (Mode == rounding::toward_positive) {
      kept = _mm512_mask_add_epi32(truncated, inexact & ~_mm512_movepi32_mask(x), truncated, one);
    } else if constexpr (Mode == rounding::toward_negative) {
      kept = _mm512_mask_add_epi32(truncated, inexact & _mm512_movepi32_mask(x), truncated, one);
    } else if constexpr (Mode == rounding::stochastic) {
      // The discarded fraction left-aligned in 32 bits (one shift gives it,
      // the other 0); up iff its top r bits + the word's carry out of 2^r.
      const __m512i fraction = _mm512_or_si512(_mm512_sllv_epi32(m, _mm512_sub_epi32(thirty_two_, s)),
                                               _mm512_srlv_epi32(m, _mm512_sub_epi32(s, thirty_two_)));
      const __mmask16 up = _mm512_cmpgt_epu32_mask(_mm512_and_si512(words, top_bits_),
                                                   _mm512_ternarylogic_epi32(fraction, top_bits_, top_bits_, 0x3F));
      kept = _mm512_mask_add_epi32(truncated, up, truncated, one);
    }
    return {kept, biased, s, inexact, nonzero};
  }

  // INT8's saturation (to 127, or to 128 for negative x unless symmetric),
  // counts and two's complement byte, from the kept magnitude k.
  NUMLAB_INLINE mx_lanes int8_finish(__m512i x, __m512i kept, __mmask16 nonzero, __mmask16 inexact) const {
    const __mmask16 negative = _mm512_movepi32_mask(x);
    const __m512i limit = _mm512_mask_mov_epi32(splat(127), negative, int8_negative_limit_);
    mx_lanes out;
    out.overflow = _mm512_cmpgt_epu32_mask(kept, limit);
    kept = _mm512_min_epu32(kept, limit);
    out.inexact = inexact | out.overflow;
    out.flushed = _mm512_mask_testn_epi32_mask(nonzero, kept, kept);
    out.code = _mm512_mask_sub_epi32(kept, negative, _mm512_setzero_si512(), kept);  // the store keeps the low byte
    return out;
  }

  // Saturation, counts and the sign, from the magnitude code (0 in zero lanes).
  NUMLAB_INLINE mx_lanes finish(__m512i x, __m512i code, __mmask16 nonzero, __mmask16 inexact) const {
    mx_lanes out;
    out.overflow = _mm512_cmpgt_epu32_mask(code, max_code_);
    out.flushed = _mm512_mask_testn_epi32_mask(nonzero, code, code);
    code = _mm512_min_epu32(code, max_code_);
    out.inexact = inexact | out.overflow;
    // Sign: fp32's sign bit moved to the element's top bit.
    out.code = _mm512_ternarylogic_epi32(code, _mm512_srl_epi32(x, sign_shift_), sign_bit_, 0xF8);
    return out;
  }

  // The Fused roundings' finish(): from the lane's unsigned element value.
  NUMLAB_INLINE mx_lanes finish_value(__m512i x, __m512 value, __mmask16 flushed, __mmask16 inexact) const {
    mx_lanes out;
    out.overflow = _mm512_cmp_ps_mask(value, max_value_, _CMP_GT_OQ);
    out.flushed = flushed;
    out.inexact = inexact | out.overflow;
    // min(value, max) with x's sign bit.
    out.value = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
        _mm512_castps_si512(_mm512_min_ps(value, max_value_)), x, splat(0x80000000u), 0xF8));
    return out;
  }

  const __m512i normal_shift_minus_one_, max_code_, top_bits_;
  const __m128i precision_shift_, sign_shift_;
  const __m512i sign_bit_;
  const __m512i emin_bits_, c_offset_;  // nearest_even16's
  const __m128i normal_shift_count_;
  const __m512i c_field_offset_;
  const __m512i int8_negative_limit_;
  const __m512 max_value_;               // the element's largest finite value (max_code's)
  const __m512i quantum_field_offset_;   // round16<true>'s 104 + emin
  const element_fields fields_;  // decode16's
  // round16's literal constants, opaque (avx512_region.hpp) so that GCC
  // keeps them instead of building each again in every block.
  const __m512i one_, thirty_two_, fraction_bits_, hidden_bit_;
};

}  // namespace
}  // namespace num::scaled_detail
