// The AVX2 element rounding under an fp32 block scale D, for CPUs without
// AVX-512: fp32_scale_avx512.cpp's algorithm (its header comment says why
// it is exact) on four double lanes per register, eight elements a step.
// Hand-written SIMD is the product here; before it, FP8 per-tensor and
// blockwise quantization ran the scalar path on such CPUs, about 80% of an
// fp8-delayed training step of the tutorial conv (perf, AMD EPYC).
//
// AVX2 has no per-instruction rounding: the division and the FMA take the
// MXCSR's, which fp32_kernel_avx2_usable checks is to nearest. Nor has it
// masks, unsigned or 64-bit min/max compares: lane masks are all-ones
// lanes, and every 64-bit quantity compared here lies below 2^63.
#include <cstdint>

#include "libnum/cpu_features.hpp"
#include "fp32_scale_kernel.hpp"

namespace num::scaled_detail {

// Outside the AVX2 region (one stmxcsr each).
bool fp32_kernel_avx2_usable() { return mxcsr_rounds_to_nearest() && !mxcsr_flushes_subnormals(); }

}  // namespace num::scaled_detail

// The AVX2 region opens after every other header (see avx2_region.hpp).
#include "avx2_region.hpp"
#include "mode_dispatch.hpp"

namespace num::scaled_detail {
namespace {

NUMLAB_INLINE __m256i splat64(std::int64_t v) { return _mm256_set1_epi64x(v); }
NUMLAB_INLINE __m256i all_ones() { return _mm256_set1_epi64x(-1); }
NUMLAB_INLINE __m256i is_nonzero64(__m256i v) {
  return _mm256_xor_si256(_mm256_cmpeq_epi64(v, _mm256_setzero_si256()), all_ones());
}
NUMLAB_INLINE __m256i max64(__m256i a, __m256i b) { return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b)); }
NUMLAB_INLINE __m256i min64(__m256i a, __m256i b) { return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b)); }

// Per-lane counts of a run's elements: an all-ones lane is -1, so
// subtracting a lane mask counts its lanes (a scalar popcount per mask and
// a read-modify-write of the caller's counts per step was the kernel's
// longest chain).
struct lane_counts {
  __m256i inexact, saturated, flushed, flushed_sure;

  // (A constructor of its own: GCC compiles an implicit one outside the AVX2 region.)
  NUMLAB_INLINE lane_counts()
      : inexact(_mm256_setzero_si256()),
        saturated(_mm256_setzero_si256()),
        flushed(_mm256_setzero_si256()),
        flushed_sure(_mm256_setzero_si256()) {}

  static NUMLAB_INLINE std::uint64_t total(__m256i v) {
    alignas(32) std::uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3];
  }
  NUMLAB_INLINE void add_to(fp32_segment_counts& counts) const {
    counts.inexact += total(inexact);
    counts.saturated += total(saturated);
    counts.flushed += total(flushed);
    counts.flushed_sure += total(flushed_sure);
  }
};

// The lanes that round away from the kept part, cutting m (>= 1 bit cut,
// counts past 63 cut everything) at `shift` (fp32_scale_avx512.cpp's
// rounds_up on all-ones lanes).
template <rounding Mode>
NUMLAB_INLINE __m256i rounds_up(__m256i m, __m256i sticky, __m256i shift, __m256i negative, __m256i kept,
                                __m256i& inexact) {
  const __m256i one = splat64(1);
  const __m256i s1 = _mm256_sub_epi64(shift, one);
  const __m256i half = is_nonzero64(_mm256_and_si256(_mm256_srlv_epi64(m, s1), one));
  // Bits below the half bit: m << (64 - s1) != 0 (s1 >= 64: all of m).
  const __m256i low = _mm256_sllv_epi64(m, _mm256_sub_epi64(splat64(64), s1));
  const __m256i wide = _mm256_cmpgt_epi64(s1, splat64(63));
  const __m256i rest =
      _mm256_or_si256(_mm256_or_si256(sticky, is_nonzero64(low)), _mm256_and_si256(wide, is_nonzero64(m)));
  inexact = _mm256_or_si256(half, rest);
  if constexpr (Mode == rounding::nearest_even) {
    return _mm256_and_si256(half, _mm256_or_si256(rest, is_nonzero64(_mm256_and_si256(kept, one))));
  } else if constexpr (Mode == rounding::nearest_away) {
    return half;
  } else if constexpr (Mode == rounding::toward_positive) {
    return _mm256_andnot_si256(negative, inexact);
  } else if constexpr (Mode == rounding::toward_negative) {
    return _mm256_and_si256(negative, inexact);
  } else {
    return _mm256_setzero_si256();  // toward_zero; to_odd sets the low bit instead
  }
}

template <rounding Mode>
class fp32_elements4 {
 public:
  explicit fp32_elements4(const fp32_kernel_setup& k)
      : p_(k.precision),
        emin_(splat64(k.emin)),
        max_code_(splat64(k.max_code)),
        bound_(_mm256_set1_pd(k.lone_scale_fits_above)),
        after_rounding_(k.spec.tiny == tininess::after_rounding) {}

  // Four elements: their codes (sign included) in 64-bit lanes.
  NUMLAB_INLINE __m256i four(__m128 x, __m256d d, lane_counts& counts, bool& underflow) {
    const __m256d xd = _mm256_cvtps_pd(x);
    const __m256i negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), _mm256_castpd_si256(xd));
    const __m256d ax = _mm256_castsi256_pd(_mm256_and_si256(_mm256_castpd_si256(xd), splat64(0x7FFFFFFFFFFFFFFF)));
    const __m256i nonzero = _mm256_castpd_si256(_mm256_cmp_pd(ax, _mm256_setzero_pd(), _CMP_NEQ_OQ));
    const __m256d y = _mm256_div_pd(ax, d);
    const __m256d remainder = _mm256_fnmadd_pd(y, d, ax);  // exact
    const __m256i y_bits = _mm256_castpd_si256(y);
    const __m256i one = splat64(1), hidden = splat64(std::int64_t{1} << 52);
    __m256i m = _mm256_or_si256(_mm256_and_si256(y_bits, splat64(0xFFFFFFFFFFFFF)), hidden);
    // One less where the quotient lies below y (an all-ones lane is -1).
    m = _mm256_add_epi64(m, _mm256_castpd_si256(_mm256_cmp_pd(remainder, _mm256_setzero_pd(), _CMP_LT_OQ)));
    const __m256i sticky = _mm256_castpd_si256(_mm256_cmp_pd(remainder, _mm256_setzero_pd(), _CMP_NEQ_OQ));
    const __m256i y_exponent = _mm256_sub_epi64(_mm256_srli_epi64(y_bits, 52), splat64(1023));
    // The quotient's leading exponent (one less where m lost its top bit).
    const __m256i lead = _mm256_add_epi64(y_exponent, _mm256_cmpgt_epi64(hidden, m));
    const __m256i bounded = max64(lead, emin_);
    // m's unit is 2^(y_exponent - 52); the quantum 2^(bounded - (p - 1)).
    const __m256i shift = _mm256_add_epi64(_mm256_sub_epi64(bounded, y_exponent), splat64(52 - (p_ - 1)));
    __m256i kept = _mm256_srlv_epi64(m, shift);
    __m256i inexact;
    const __m256i up = rounds_up<Mode>(m, sticky, shift, negative, kept, inexact);
    inexact = _mm256_and_si256(inexact, nonzero);
    if constexpr (Mode == rounding::to_odd) {
      kept = _mm256_or_si256(kept, _mm256_and_si256(inexact, one));
    } else {
      kept = _mm256_sub_epi64(kept, up);
    }
    // code = (max(lead, emin) - emin) · 2^(p-1) + kept, a carry landing on the next binade.
    __m256i code = _mm256_add_epi64(_mm256_sll_epi64(_mm256_sub_epi64(bounded, emin_), _mm_cvtsi32_si128(p_ - 1)), kept);
    code = _mm256_and_si256(code, nonzero);
    const __m256i saturated = _mm256_cmpgt_epi64(code, max_code_);
    code = min64(code, max_code_);
    const __m256i flushed = _mm256_and_si256(nonzero, _mm256_cmpeq_epi64(code, _mm256_setzero_si256()));
    counts.inexact = _mm256_sub_epi64(counts.inexact, _mm256_or_si256(inexact, saturated));
    counts.saturated = _mm256_sub_epi64(counts.saturated, saturated);
    counts.flushed = _mm256_sub_epi64(counts.flushed, flushed);
    counts.flushed_sure = _mm256_sub_epi64(
        counts.flushed_sure, _mm256_and_si256(flushed, _mm256_castpd_si256(_mm256_cmp_pd(ax, bound_, _CMP_GT_OQ))));
    if (!underflow && !_mm256_testz_si256(inexact, inexact)) {
      underflow = any_tiny(m, sticky, lead, y_exponent, negative, inexact);
    }
    return _mm256_or_si256(code, _mm256_and_si256(negative, splat64(0x80)));
  }

 private:
  // Inexact lanes below 2^emin are tiny; after rounding, not those that
  // rounding at p bits with an unbounded exponent carries up to 2^emin (only
  // lead = emin - 1 can).
  NUMLAB_INLINE bool any_tiny(__m256i m, __m256i sticky, __m256i lead, __m256i y_exponent, __m256i negative,
                              __m256i inexact) const {
    const __m256i tiny = _mm256_and_si256(inexact, _mm256_cmpgt_epi64(emin_, lead));
    if (_mm256_testz_si256(tiny, tiny) || !after_rounding_) return !_mm256_testz_si256(tiny, tiny);
    const __m256i shift = _mm256_add_epi64(_mm256_sub_epi64(lead, y_exponent), splat64(52 - (p_ - 1)));
    const __m256i kept = _mm256_srlv_epi64(m, shift);
    __m256i unused;
    __m256i up = rounds_up<Mode>(m, sticky, shift, negative, kept, unused);
    if constexpr (Mode == rounding::to_odd) up = _mm256_setzero_si256();  // to odd never carries into a new binade
    const __m256i carried =
        _mm256_and_si256(_mm256_and_si256(up, _mm256_cmpeq_epi64(kept, splat64((std::int64_t{1} << p_) - 1))),
                         _mm256_cmpeq_epi64(lead, _mm256_sub_epi64(emin_, splat64(1))));
    const __m256i left = _mm256_andnot_si256(carried, tiny);
    return !_mm256_testz_si256(left, left);
  }

  const int p_;
  const __m256i emin_, max_code_;
  const __m256d bound_;
  const bool after_rounding_;
};

// Two quarters' codes (below 2^8 in 64-bit lanes) as eight bytes.
NUMLAB_INLINE __m128i code_bytes(__m256i first, __m256i second) {
  const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const __m128i a = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(first, low_halves));
  const __m128i b = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(second, low_halves));
  const __m128i words = _mm_packs_epi32(a, b);
  return _mm_packus_epi16(words, words);
}

template <rounding Mode>
void run(const fp32_kernel_setup& k, const float* in, std::uint8_t* codes, std::size_t n, double d,
         fp32_segment_counts& counts) {
  fp32_elements4<Mode> kernel(k);
  const __m256d dv = _mm256_set1_pd(d);
  lane_counts lanes;
  bool underflow = counts.underflow;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i first = kernel.four(_mm_loadu_ps(in + i), dv, lanes, underflow);
    const __m256i second = kernel.four(_mm_loadu_ps(in + i + 4), dv, lanes, underflow);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(codes + i), code_bytes(first, second));
  }
  if (i < n) {
    // The tail through buffers: zeros past it change no count.
    alignas(16) float tail[8] = {};
    __builtin_memcpy(tail, in + i, (n - i) * sizeof(float));
    const __m256i first = kernel.four(_mm_load_ps(tail), dv, lanes, underflow);
    const __m256i second = kernel.four(_mm_load_ps(tail + 4), dv, lanes, underflow);
    alignas(16) std::uint8_t bytes[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(bytes), code_bytes(first, second));
    __builtin_memcpy(codes + i, bytes, n - i);
  }
  lanes.add_to(counts);
  counts.underflow = underflow;
}

}  // namespace

void fp32_scaled_elements_avx2(const fp32_kernel_setup& k, const float* in, std::uint8_t* codes, std::size_t n,
                               double d, fp32_segment_counts& counts) {
  // Stochastic rounding is not taken: the caller runs it scalar.
  if (k.spec.mode == rounding::stochastic) return;
  with_mode(k.spec.mode, [&](auto mode) {
    if constexpr (mode.value != rounding::stochastic) run<mode.value>(k, in, codes, n, d, counts);
  });
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
