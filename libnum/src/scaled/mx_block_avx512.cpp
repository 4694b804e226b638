// The AVX-512 MX block kernel: 32 fp32 values as two 16-lane vectors. Each
// lane rounds m · 2^(e - 23) (m the 24-bit significand) at the element's
// quantum with the same decisions as round_exact: kept part, half bit, rest,
// and for stochastic rounding the top 32 bits of the discarded fraction.
#include <bit>
#include <cstdint>

#include "mx_block_kernel.hpp"

#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#ifndef __clang__  // clang gets the same features as per-file flags (libnum/CMakeLists.txt)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,bmi2,popcnt")
#endif

namespace num::scaled_detail {
namespace {

// Lanes that round away from the kept part (round-to-odd is handled apart).
__mmask16 rounds_up(const round_spec& spec, __m512i kept, __mmask16 half, __mmask16 rest, __m512i top32,
                    __mmask16 negative, __m512i words) {
  const __mmask16 inexact = half | rest;
  switch (spec.mode) {
    case rounding::nearest_even: {
      const __mmask16 odd = _mm512_test_epi32_mask(kept, _mm512_set1_epi32(1));
      return half & (rest | odd);
    }
    case rounding::nearest_away: return half;
    case rounding::toward_zero:
    case rounding::to_odd: return 0;
    case rounding::toward_positive: return static_cast<__mmask16>(~negative & inexact);
    case rounding::toward_negative: return negative & inexact;
    case rounding::stochastic: {
      const int r = spec.random_bits;
      if (r == 32) {  // floor(f·2^32) + R >= 2^32: the 32-bit sum carries
        const __m512i sum = _mm512_add_epi32(top32, words);
        return _mm512_cmplt_epu32_mask(sum, top32);
      }
      const __m512i shift = _mm512_set1_epi32(32 - r);
      const __m512i sum = _mm512_add_epi32(_mm512_srlv_epi32(top32, shift), _mm512_srlv_epi32(words, shift));
      return _mm512_cmpge_epu32_mask(sum, _mm512_set1_epi32(1 << r));
    }
  }
  return 0;
}

struct lane_result {
  __m512i code;
  __mmask16 inexact, overflow, tiny, flushed, flushed_small;
};

// The bit-level cut of m at a per-lane shift s >= 1 (counts >= 32 give 0,
// as the vpsrlvd/vpsllvd instructions do).
struct lane_cut {
  __m512i kept;
  __mmask16 half, rest;
  __m512i top32;  // floor(f · 2^32) of the discarded fraction f
};

lane_cut cut(__m512i m, __m512i s) {
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i s1 = _mm512_sub_epi32(s, one);
  lane_cut c;
  c.kept = _mm512_srlv_epi32(m, s);
  c.half = _mm512_test_epi32_mask(_mm512_srlv_epi32(m, s1), one);
  const __m512i low = _mm512_sub_epi32(_mm512_sllv_epi32(one, s1), one);  // all ones when s - 1 >= 32
  c.rest = _mm512_test_epi32_mask(m, low);
  const __m512i thirty_two = _mm512_set1_epi32(32);
  const __mmask16 within = _mm512_cmple_epi32_mask(s, thirty_two);
  c.top32 = _mm512_mask_blend_epi32(within, _mm512_srlv_epi32(m, _mm512_sub_epi32(s, thirty_two)),
                                    _mm512_sllv_epi32(m, _mm512_sub_epi32(thirty_two, s)));
  return c;
}

lane_result round_lanes(const mx_kernel_setup& k, __m512i x, int w, __m512i words) {
  const __m512i magnitude = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFFFFFF));
  const __mmask16 negative = _mm512_movepi32_mask(x);
  const __mmask16 nonzero = _mm512_test_epi32_mask(magnitude, magnitude);
  const __m512i biased = _mm512_srli_epi32(magnitude, 23);
  const __m512i m =
      _mm512_or_si512(_mm512_and_si512(magnitude, _mm512_set1_epi32(0x7FFFFF)), _mm512_set1_epi32(0x800000));
  const __m512i e = _mm512_sub_epi32(biased, _mm512_set1_epi32(127 + w));  // exponent of x / 2^w
  const __m512i emin = _mm512_set1_epi32(k.emin);
  const __m512i e_or_emin = _mm512_max_epi32(e, emin);
  const int normal_shift = 23 - (k.precision - 1);
  const __m512i s = _mm512_add_epi32(_mm512_set1_epi32(normal_shift), _mm512_sub_epi32(e_or_emin, e));
  const lane_cut c = cut(m, s);
  const __mmask16 inexact = (c.half | c.rest) & nonzero;
  __m512i kept = c.kept;
  if (k.spec.mode == rounding::to_odd) {
    kept = _mm512_mask_or_epi32(kept, inexact, kept, _mm512_set1_epi32(1));
  } else {
    kept = _mm512_mask_add_epi32(kept, rounds_up(k.spec, kept, c.half, c.rest, c.top32, negative, words), kept,
                                 _mm512_set1_epi32(1));
  }
  // code = (max(e, emin) + bias - 1) · 2^(p-1) + kept: exact for the normal
  // and subnormal ranges alike, and a carry into the next binade lands on
  // the next exponent's code.
  __m512i code = _mm512_add_epi32(
      _mm512_sllv_epi32(_mm512_add_epi32(e_or_emin, _mm512_set1_epi32(k.bias - 1)), _mm512_set1_epi32(k.precision - 1)),
      kept);
  code = _mm512_maskz_mov_epi32(nonzero, code);
  const __m512i max_code = _mm512_set1_epi32(static_cast<int>(k.max_code));
  lane_result out;
  out.overflow = _mm512_cmpgt_epu32_mask(code, max_code);
  code = _mm512_min_epu32(code, max_code);
  out.inexact = inexact | out.overflow;
  // Tiny after rounding: below 2^emin and not carried there by rounding at
  // the normal quantum with an unbounded exponent (only e = emin - 1 can carry).
  const __mmask16 below = _mm512_cmplt_epi32_mask(e, emin) & inexact;
  const __mmask16 may_carry = below & _mm512_cmpeq_epi32_mask(e, _mm512_set1_epi32(k.emin - 1));
  out.tiny = below;
  if (may_carry != 0) {
    const lane_cut u = cut(m, _mm512_set1_epi32(normal_shift));
    __m512i unbounded = u.kept;
    if (k.spec.mode == rounding::to_odd) {
      unbounded = _mm512_or_epi32(unbounded, _mm512_set1_epi32(1));
    } else {
      unbounded = _mm512_mask_add_epi32(unbounded, rounds_up(k.spec, u.kept, u.half, u.rest, u.top32, negative, words),
                                        unbounded, _mm512_set1_epi32(1));
    }
    const __mmask16 carried = _mm512_test_epi32_mask(unbounded, _mm512_set1_epi32(1 << k.precision)) & may_carry;
    out.tiny = below & static_cast<__mmask16>(~carried);
  }
  out.flushed = nonzero & _mm512_cmpeq_epi32_mask(code, _mm512_setzero_si512());
  // A flushed |x| whose own scale 2^(floor(log2|x|) - emax) is below E8M0's
  // 2^-127 needs the scalar check.
  out.flushed_small = out.flushed & _mm512_cmplt_epi32_mask(biased, _mm512_set1_epi32(k.emax));
  out.code = _mm512_mask_or_epi32(code, negative, code, _mm512_set1_epi32(1 << (k.element_bits - 1)));
  return out;
}

}  // namespace

bool mx_block_avx512(const mx_kernel_setup& k, const float* in, const std::uint32_t* words, std::uint8_t* codes,
                     std::uint32_t& scale_code, scaled_result& result) {
  const __m512i x0 = _mm512_loadu_si512(in);
  const __m512i x1 = _mm512_loadu_si512(in + 16);
  const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
  const __m512i a0 = _mm512_and_si512(x0, abs_mask), a1 = _mm512_and_si512(x1, abs_mask);
  const __m512i inf = _mm512_set1_epi32(0x7F800000), min_normal = _mm512_set1_epi32(0x00800000);
  // NaN/inf, or nonzero fp32 subnormals: the scalar path.
  if ((_mm512_cmpge_epu32_mask(a0, inf) | _mm512_cmpge_epu32_mask(a1, inf)) != 0) return false;
  if ((_mm512_test_epi32_mask(a0, a0) & _mm512_cmplt_epu32_mask(a0, min_normal)) != 0) return false;
  if ((_mm512_test_epi32_mask(a1, a1) & _mm512_cmplt_epu32_mask(a1, min_normal)) != 0) return false;
  const std::uint32_t amax = _mm512_reduce_max_epu32(_mm512_max_epu32(a0, a1));
  if (amax == 0) return false;
  // MX §6.3: X = 2^(floor(log2 amax) - emax_elem).
  const int w = static_cast<int>(amax >> 23) - 127 - k.emax;
  if (w < -127) return false;
  const __m512i w0 = words != nullptr ? _mm512_loadu_si512(words) : _mm512_setzero_si512();
  const __m512i w1 = words != nullptr ? _mm512_loadu_si512(words + 16) : _mm512_setzero_si512();
  const lane_result r0 = round_lanes(k, x0, w, w0);
  const lane_result r1 = round_lanes(k, x1, w, w1);
  if ((r0.flushed_small | r1.flushed_small) != 0) return false;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(codes), _mm512_cvtepi32_epi8(r0.code));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + 16), _mm512_cvtepi32_epi8(r1.code));
  scale_code = static_cast<std::uint32_t>(w + 127);
  scaled_counts& c = result.counts;
  c.elements += 32;
  c.blocks += 1;
  c.inexact += static_cast<std::uint64_t>(std::popcount(r0.inexact) + std::popcount(r1.inexact));
  c.saturated += static_cast<std::uint64_t>(std::popcount(r0.overflow) + std::popcount(r1.overflow));
  c.block_underflow += static_cast<std::uint64_t>(std::popcount(r0.flushed) + std::popcount(r1.flushed));
  if ((r0.inexact | r1.inexact) != 0) result.raised |= flags::inexact;
  if ((r0.overflow | r1.overflow) != 0) result.raised |= flags::overflow;
  if ((r0.tiny | r1.tiny) != 0) result.raised |= flags::underflow;
  return true;
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
