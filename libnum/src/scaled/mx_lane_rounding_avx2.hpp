// Internal: the AVX2 MX kernel's element rounding, eight lanes at a time
// (mx_block_avx2.cpp): each lane's element code under its block's scale,
// with the same decisions as round_exact (libnum/src/core/round_exact.cpp)
// and the same arithmetic as the AVX-512 kernel's mx_lane_rounding
// (mx_lane_rounding_avx512.hpp), saturated, signed, and with its flags. The
// masks are vectors of all-ones lanes (AVX2 has no mask registers). Include
// after avx2_region.hpp and element_fields_avx2.hpp.
#pragma once

#include <cstdint>

#include "mx_block_kernel.hpp"
#include "kernels/random_word_bits.hpp"

namespace num::scaled_detail {
namespace {

/// Eight lanes' element codes (sign in the element's top bit; INT8's two's
/// complement byte) and which lanes were inexact, saturated, and flushed to
/// zero though nonzero (all-ones lanes); nearest_even8 and round8<true>
/// also give each lane's element value (signed, saturated, in units of the
/// block scale), which the fused dequantization uses instead of decoding
/// the code.
struct mx_lanes8 {
  __m256i code, inexact, overflow, flushed;
  __m256 value{};
};

/// The rounding of one element format and mode; its constants are members
/// (not read through the setup) so that byte stores cannot make the
/// compiler reload them.
template <rounding Mode>
class mx_lane_rounding8 {
 public:
  explicit mx_lane_rounding8(const mx_kernel_setup& k)
      : normal_shift_minus_one_(splat8(static_cast<std::uint32_t>(23 - k.precision))),
        max_code_(splat8(k.max_code)),
        top_bits_(splat8(kernels::random_word_top_bits(k.spec.random_bits))),
        precision_shift_(_mm_cvtsi32_si128(k.precision - 1)),
        sign_shift_(_mm_cvtsi32_si128(32 - k.element_bits)),
        sign_bit_(splat8(1u << (k.element_bits - 1))),
        emin_bits_(splat8(static_cast<std::uint32_t>(127 + k.emin) << 23)),
        c_offset_(splat8(static_cast<std::uint32_t>(24 - k.precision) << 23)),
        normal_shift_count_(_mm_cvtsi32_si128(24 - k.precision)),
        c_field_offset_(splat8(static_cast<std::uint32_t>(127 + k.emin + 24 - k.precision) << (k.precision - 1))),
        emin_field_(splat8(static_cast<std::uint32_t>(127 + k.emin))),
        cut_base_(splat8(static_cast<std::uint32_t>(23 - k.precision + 127 + k.emin))),
        int8_negative_limit_(splat8(k.int8_symmetric ? 127 : 128)),
        max_value_(_mm256_set1_ps(k.max_value)),
        fields_(k.element_bits, k.precision - 1, k.bias),
        one_(opaque8(splat8(1))),
        all_ones_(opaque8(splat8(0xFFFFFFFFu))),
        fraction_bits_(opaque8(splat8(0x7FFFFF))),
        hidden_bit_(opaque8(splat8(0x800000))),
        exponent_bits_(opaque8(splat8(0x7F800000))),
        sign_flip_(opaque8(splat8(0x80000000u))),
        not_sign_(opaque8(splat8(0x7FFFFFFFu))) {}

  // Every mode but nearest-even (which nearest_even8 rounds), on the
  // integers of y = |x| / X (`y`: the caller's |x| · (1/X) as for
  // nearest_even8, or INT8's int8_quotient8; x normal or zero): the same
  // decisions as the AVX-512 kernel's round16, which cuts x's significand
  // under X's 2^emin. y is exact where normal; where it is below 2^-126
  // (subnormal, or 0: a zero x, FTZ, DAZ) its exponent field 0 puts the cut
  // far above its bits, so it keeps nothing, its fraction's top 32 bits are
  // 0 (no word rounds it up: it lies below 2^-110 quanta) and it is inexact
  // exactly where x is nonzero: whatever its significand bits, the lane
  // rounds as the scalar path does.
  //
  // With Fused (the fused dequantization), the lane's value instead of its
  // code: kept quanta of 2^(E_y - 150 + s), whose exponent field
  // E_y + s - 23 lies in [106, 254] for every lane (a zero or subnormal y
  // included, whose kept is 0), so the product is an exact power-of-two
  // scaling; saturated lanes are those whose value exceeds the element's
  // largest, flushed ones those that keep nothing (a lane in the element's
  // normal range keeps its hidden bit), as the code would say.
  template <bool Fused = false>
  NUMLAB_INLINE mx_lanes8 round8(__m256i x, __m256i a, __m256i y, __m256i words) const {
    const cut_lanes8 c = cut8(x, a, y, words);
    mx_lanes8 out;
    if constexpr (Fused) {
      const __m256i quantum_field = _mm256_add_epi32(c.biased, _mm256_sub_epi32(c.s, splat8(23)));
      const __m256 quantum = _mm256_castsi256_ps(_mm256_slli_epi32(quantum_field, 23));
      const __m256 value = _mm256_mul_ps(_mm256_cvtepi32_ps(c.kept), quantum);
      out.overflow = _mm256_castps_si256(_mm256_cmp_ps(value, max_value_, _CMP_GT_OQ));
      out.flushed = _mm256_andnot_si256(c.zero_lane, _mm256_cmpeq_epi32(c.kept, _mm256_setzero_si256()));
      out.value = _mm256_or_ps(_mm256_min_ps(value, max_value_), _mm256_castsi256_ps(_mm256_and_si256(x, sign_flip_)));
      out.inexact = _mm256_or_si256(c.inexact, out.overflow);
      return out;
    }
    // code = (max(E, E_emin) - E_emin) · 2^(p-1) + kept: the subnormal and
    // normal ranges alike (emin + bias = 1), a carry reaching the next binade.
    const __m256i field = _mm256_sub_epi32(_mm256_max_epi32(c.biased, emin_field_), emin_field_);
    const __m256i code = _mm256_add_epi32(_mm256_sll_epi32(field, precision_shift_), c.kept);
    out.overflow = _mm256_cmpgt_epi32(code, max_code_);
    out.flushed = _mm256_andnot_si256(c.zero_lane, _mm256_cmpeq_epi32(code, _mm256_setzero_si256()));
    out.inexact = _mm256_or_si256(c.inexact, out.overflow);
    out.code = with_sign(x, _mm256_min_epi32(code, max_code_));
    return out;
  }

  // MX INT8's y = |x| / X for int8_round8, from X's biased exponent field
  // (mx_scale8::exponent: INT8's emax is 0):
  // |x|'s pattern with X's exponent taken off its field where the quotient
  // stays normal (|x|'s field above X's unbiased exponent), else 0 (y below
  // 2^-126, which round8 takes as such). Not |x| · (1/X): INT8's X reaches
  // 2^127, whose reciprocal is subnormal (DAZ would read it as 0).
  static NUMLAB_INLINE __m256i int8_quotient8(__m256i a, __m256i x_field) {
    const __m256i x_exponent = _mm256_sub_epi32(x_field, splat8(127));
    // (The max with 0 fails a zero lane's field 0 where X < 1.)
    const __m256i normal =
        _mm256_cmpgt_epi32(_mm256_srli_epi32(a, 23), _mm256_max_epi32(x_exponent, _mm256_setzero_si256()));
    return _mm256_and_si256(_mm256_sub_epi32(a, _mm256_slli_epi32(x_exponent, 23)), normal);
  }

  // MX INT8 (§5.3.4 as in scalar's round_int8) in every mode but
  // nearest-even (int8_nearest_even8), as the AVX-512 kernel's int8_round16:
  // INT8 is k · 2^-6 · X, the grid round8 cuts to for p = 7 and emin = 0
  // (mx_setup's INT8 setup), and every |x| lies below 2X, so the kept quanta
  // are k itself. `y` is int8_quotient8's.
  NUMLAB_INLINE mx_lanes8 int8_round8(__m256i x, __m256i a, __m256i y, __m256i words) const {
    const cut_lanes8 c = cut8(x, a, y, words);
    return int8_finish8(x, c.kept, _mm256_xor_si256(c.zero_lane, all_ones_), c.inexact);
  }

  // Nearest-even on the fp32 unit, as the AVX-512 kernel's nearest_even16:
  // y = |x| / X, here |x| · (1/X) in fp32 (`inv_x`, a normal power of two:
  // X's code is at most 253 for every floating-point element, whose emax is
  // at least 2), exact wherever y is normal. Adding C = 2^(23 + quantum
  // exponent), a power of two above y whose ulp is the element's quantum at
  // y (the normal or the subnormal one), rounds y at that quantum in one
  // correctly rounded fp32 addition, and the sum's pattern minus C's is the
  // kept significand in quanta. Where y is below 2^-126 (subnormal, or
  // flushed to zero by FTZ or DAZ) it lies far under half the smallest
  // element quantum and rounds to zero; such a lane is inexact as a nonzero
  // x whose code is 0 (flushed), so FTZ and DAZ change nothing. A zero x
  // gives y = 0, code 0, exact: no lane needs a mask of its own. The
  // multiplication and additions take the MXCSR's rounding, which the
  // dispatch has checked is to nearest (mx_avx2_usable).
  NUMLAB_INLINE mx_lanes8 nearest_even8(__m256i x, __m256i a, __m256 inv_x) const {
    const __m256 y = _mm256_mul_ps(_mm256_castsi256_ps(a), inv_x);
    const __m256i y_bits = _mm256_castps_si256(y);
    const __m256i quantum_field = _mm256_and_si256(_mm256_max_epi32(y_bits, emin_bits_), exponent_bits_);
    const __m256i c_bits = _mm256_add_epi32(quantum_field, c_offset_);
    const __m256 c = _mm256_castsi256_ps(c_bits);
    const __m256 sum = _mm256_add_ps(y, c);
    const __m256i kept = _mm256_sub_epi32(_mm256_castps_si256(sum), c_bits);
    const __m256 rounded = _mm256_sub_ps(sum, c);  // exact
    const __m256i changed = _mm256_castps_si256(_mm256_cmp_ps(rounded, y, _CMP_NEQ_UQ));
    mx_lanes8 out;
    // The code is the element's encoding of `rounded`, and encodings order
    // as their values: code > max_code iff rounded > max_value, code 0 iff
    // rounded 0. Read off `rounded`, the counts leave the code's arithmetic
    // to the code path alone (the fused dequantization needs only values).
    out.overflow = _mm256_castps_si256(_mm256_cmp_ps(rounded, max_value_, _CMP_GT_OQ));
    const __m256i zero = _mm256_setzero_si256();
    out.flushed = _mm256_andnot_si256(_mm256_cmpeq_epi32(a, zero),
                                      _mm256_castps_si256(_mm256_cmp_ps(rounded, _mm256_setzero_ps(), _CMP_EQ_OQ)));
    out.inexact = _mm256_or_si256(_mm256_or_si256(changed, out.flushed), out.overflow);
    out.value = _mm256_or_ps(_mm256_min_ps(rounded, max_value_), _mm256_castsi256_ps(_mm256_and_si256(x, sign_flip_)));
    // code = kept + (max(E_y, E_emin) - E_emin) · 2^(p-1), from C's field.
    const __m256i field = _mm256_sub_epi32(_mm256_srl_epi32(c_bits, normal_shift_count_), c_field_offset_);
    out.code = with_sign(x, _mm256_min_epi32(_mm256_add_epi32(field, kept), max_code_));
    return out;
  }

  // MX INT8 (§5.3.4 as in scalar's round_int8): y = |x| / X · 2^6 rounded to
  // an integer by adding C = 2^23 (whose ulp is 1), saturated to 127, or to
  // 128 for negative x (-2 = -128 · 2^-6) unless symmetric; the code is the
  // two's complement byte. INT8 raises no underflow.
  NUMLAB_INLINE mx_lanes8 int8_nearest_even8(__m256i x, __m256i a, __m256i y_bits) const {
    const __m256i nonzero = _mm256_cmpgt_epi32(a, _mm256_setzero_si256());
    const __m256i valid = _mm256_and_si256(nonzero, _mm256_cmpgt_epi32(y_bits, fraction_bits_));
    const __m256i y_valid = _mm256_and_si256(y_bits, valid);
    const __m256i c_bits = splat8(0x4B000000);  // 2^23
    const __m256 c = _mm256_castsi256_ps(c_bits);
    const __m256 y = _mm256_castsi256_ps(y_valid);
    const __m256 sum = _mm256_add_ps(y, c);
    const __m256i kept = _mm256_and_si256(_mm256_sub_epi32(_mm256_castps_si256(sum), c_bits), valid);
    const __m256 rounded = _mm256_sub_ps(sum, c);  // exact
    const __m256i changed = _mm256_castps_si256(_mm256_cmp_ps(rounded, y, _CMP_NEQ_UQ));
    return int8_finish8(x, kept, nonzero, _mm256_or_si256(changed, _mm256_andnot_si256(valid, nonzero)));
  }

  // A floating-point element's code (as the roundings leave it) to its value,
  // exactly the value dequantize()'s table holds (the kernel makes no inf or
  // NaN codes); INT8's is int8_value8.
  NUMLAB_INLINE __m256 decode8(__m256i code) const { return fields_.value(code); }

 private:
  // round8's cut of y's significand under 2^emin: the kept quanta rounded as
  // Mode rounds, which lanes were inexact and zero (all-ones lanes), y's
  // exponent field and the bits cut (s).
  struct cut_lanes8 {
    __m256i kept, inexact, zero_lane, biased, s;
  };
  NUMLAB_INLINE cut_lanes8 cut8(__m256i x, __m256i a, __m256i y, __m256i words) const {
    static_assert(Mode != rounding::nearest_even);
    const __m256i one = one_;
    const __m256i biased = _mm256_srli_epi32(y, 23);
    const __m256i zero_lane = _mm256_cmpeq_epi32(a, _mm256_setzero_si256());
    // m = hidden bit | fraction (a zero y's is 2^23, all of it cut off).
    const __m256i m = _mm256_or_si256(_mm256_and_si256(y, fraction_bits_), hidden_bit_);
    // Bits cut off: 24 - p in the element's normal range, one more per
    // binade below it (s - 1 computed first: the half bit's position).
    const __m256i s1 = _mm256_max_epi32(normal_shift_minus_one_, _mm256_sub_epi32(cut_base_, biased));
    const __m256i s = _mm256_add_epi32(s1, one);
    const __m256i truncated = _mm256_srlv_epi32(m, s);  // counts >= 32 give 0
    const __m256i inexact =
        _mm256_xor_si256(_mm256_or_si256(_mm256_cmpeq_epi32(_mm256_sllv_epi32(truncated, s), m), zero_lane), all_ones_);
    __m256i kept = truncated;
    if constexpr (Mode == rounding::nearest_away) {
      // (m + half) >> s; with s - 1 >= 32 the half is 0 and the shift gives 0.
      kept = _mm256_srlv_epi32(_mm256_add_epi32(m, _mm256_sllv_epi32(one, s1)), s);
    } else if constexpr (Mode == rounding::to_odd) {
      kept = _mm256_or_si256(truncated, _mm256_and_si256(inexact, one));
    } else if constexpr (Mode == rounding::toward_positive) {
      // An all-ones lane is -1: subtracting it adds one.
      kept = _mm256_sub_epi32(truncated, _mm256_andnot_si256(_mm256_srai_epi32(x, 31), inexact));
    } else if constexpr (Mode == rounding::toward_negative) {
      kept = _mm256_sub_epi32(truncated, _mm256_and_si256(_mm256_srai_epi32(x, 31), inexact));
    } else if constexpr (Mode == rounding::stochastic) {
      // The discarded fraction f left-aligned in 32 bits (one shift gives
      // it, the other 0); up iff the word's top r bits W exceed ~f, i.e.
      // W + f's top r bits carry out of 2^r (W's low bits are zero, so f's
      // need no mask; the AVX-512 kernel's mask is equivalent).
      const __m256i thirty_two = splat8(32);
      const __m256i fraction = _mm256_or_si256(_mm256_sllv_epi32(m, _mm256_sub_epi32(thirty_two, s)),
                                               _mm256_srlv_epi32(m, _mm256_sub_epi32(s, thirty_two)));
      const __m256i up = _mm256_cmpgt_epi32(_mm256_xor_si256(_mm256_and_si256(words, top_bits_), sign_flip_),
                                            _mm256_xor_si256(fraction, not_sign_));
      kept = _mm256_sub_epi32(truncated, up);
    }
    return {kept, inexact, zero_lane, biased, s};
  }

  // INT8's saturation (to 127, or to 128 for negative x unless symmetric),
  // counts and two's complement byte, from the kept magnitude k (`nonzero`:
  // all-ones lanes where x is nonzero).
  NUMLAB_INLINE mx_lanes8 int8_finish8(__m256i x, __m256i kept, __m256i nonzero, __m256i inexact) const {
    const __m256i negative = _mm256_srai_epi32(x, 31);
    const __m256i limit = _mm256_blendv_epi8(splat8(127), int8_negative_limit_, negative);
    mx_lanes8 out;
    out.overflow = _mm256_cmpgt_epi32(kept, limit);
    kept = _mm256_min_epi32(kept, limit);
    out.inexact = _mm256_or_si256(inexact, out.overflow);
    out.flushed = _mm256_and_si256(nonzero, _mm256_cmpeq_epi32(kept, _mm256_setzero_si256()));
    // kept or -kept as (kept ^ negative) - negative, cut to its byte.
    out.code = _mm256_and_si256(_mm256_sub_epi32(_mm256_xor_si256(kept, negative), negative), splat8(0xFF));
    return out;
  }

  // The code with x's sign: fp32's sign bit moved to the element's top bit.
  NUMLAB_INLINE __m256i with_sign(__m256i x, __m256i code) const {
    return _mm256_or_si256(code, _mm256_and_si256(_mm256_srl_epi32(x, sign_shift_), sign_bit_));
  }

  const __m256i normal_shift_minus_one_, max_code_, top_bits_;
  const __m128i precision_shift_, sign_shift_;
  const __m256i sign_bit_;
  const __m256i emin_bits_, c_offset_;  // nearest_even8's
  const __m128i normal_shift_count_;
  const __m256i c_field_offset_;
  const __m256i emin_field_, cut_base_;  // round8's: y's field of 2^emin, and 23 - p plus it
  const __m256i int8_negative_limit_;
  const __m256 max_value_;  // the element's largest finite value (max_code's)
  const element_fields8 fields_;  // decode8's
  // Literal constants, opaque (avx2_region.hpp).
  const __m256i one_, all_ones_, fraction_bits_, hidden_bit_, exponent_bits_, sign_flip_, not_sign_;
};

}  // namespace
}  // namespace num::scaled_detail
