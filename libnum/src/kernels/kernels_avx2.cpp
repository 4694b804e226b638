// The AVX2 + F16C path of the array kernels: vcvtps2ph where it gives the
// core's answer, an integer bf16 nearest-even, and the lane algorithm on
// 8-lane vectors with a vectorised Philox4x32-10 for stochastic rounding
// (fp32 and fp64 inputs to fp16/bf16 through kernel_stochastic16.hpp); fp64
// inputs to fp16/bf16 nearest-even through an fp32 rounded to odd on the
// integer patterns (kernel_f64_nearest16.hpp).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "kernel_plan.hpp"

#ifndef __clang__  // clang gets the same features as per-file flags (libnum/CMakeLists.txt)
#pragma GCC push_options
#pragma GCC target("avx2,f16c,fma,bmi2")
#endif

#define NUMLAB_LANES 8

#include "philox_avx2.hpp"

namespace num::kernels {
namespace {

using philox_isa = philox_avx2_isa;

typedef std::uint32_t u32x8 __attribute__((vector_size(32)));

// Per-lane shifts where a count of 32 or more gives 0 (vpsllvd / vpsrlvd).
inline __attribute__((always_inline)) u32x8 shift_left_or_zero(u32x8 v, u32x8 count) {
  return reinterpret_cast<u32x8>(_mm256_sllv_epi32(reinterpret_cast<__m256i>(v), reinterpret_cast<__m256i>(count)));
}
inline __attribute__((always_inline)) u32x8 shift_right_or_zero(u32x8 v, u32x8 count) {
  return reinterpret_cast<u32x8>(_mm256_srlv_epi32(reinterpret_cast<__m256i>(v), reinterpret_cast<__m256i>(count)));
}

constexpr bool exact_fp16_encode_available = true;
// vcvtps2ph of fp32 patterns holding fp16 values (exact in any mode).
inline __attribute__((always_inline)) u32x8 exact_fp16_encode(u32x8 value) {
  const __m128i h = _mm256_cvtps_ph(reinterpret_cast<__m256>(value), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  return reinterpret_cast<u32x8>(_mm256_cvtepu16_epi32(h));
}

// The 8 fp16 encodings of fp32 patterns holding fp16 values, stored.
inline __attribute__((always_inline)) void store_fp16_codes(std::uint16_t* out, u32x8 value) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                   _mm256_cvtps_ph(reinterpret_cast<__m256>(value), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
}

// Whether any lane of v exceeds limit's, unsigned (one compare and one
// vptest, where the generic any_lane's reduction over lanes compiles to
// lane extracts).
inline __attribute__((always_inline)) bool any_lane_above(u32x8 v, u32x8 limit) {
  const auto above = reinterpret_cast<__m256i>(v > limit);
  return !_mm256_testz_si256(above, above);
}

}  // namespace
}  // namespace num::kernels

#include "kernel_draws.hpp"
#include "kernel_fp16_immediate.hpp"
#include "kernel_lanes.hpp"
#include "kernel_stochastic16.hpp"
#include "kernel_f64_nearest16.hpp"

namespace num::kernels {
namespace {

// vcvtps2ph with rounding immediate Imm (what the core gives for fp16 in
// ne/rd/ru/rz, NaNs included); round_f32 converts back with vcvtph2ps.
// Returns whether a result is NaN or infinite (only when Watch).
template <int Imm, bool Watch>
bool fp16_chunk(const kernel_plan& plan, const chunk& c) {
  // Locals, so the compiler need not reload them after each store.
  const auto* in = static_cast<const float*>(c.in);
  auto* out_values = static_cast<float*>(c.out);
  auto* out_codes = static_cast<std::uint16_t*>(c.out);
  const std::size_t n = c.n;
  const bool values = plan.op == operation::round_f32;
  code16_watch<Watch> watch;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), Imm);
    watch.see(reinterpret_cast<u16v>(h));
    if (values) {
      _mm256_storeu_ps(out_values + i, _mm256_cvtph_ps(h));
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out_codes + i), h);
    }
  }
  if (i < c.n) {
    const std::size_t k = c.n - i;
    float buffer[8] = {};
    __builtin_memcpy(buffer, in + i, 4 * k);
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(buffer), Imm);
    watch.see(reinterpret_cast<u16v>(h));  // the lanes past the end hold +0
    if (values) {
      _mm256_storeu_ps(buffer, _mm256_cvtph_ps(h));
      __builtin_memcpy(static_cast<float*>(c.out) + i, buffer, 4 * k);
    } else {
      __builtin_memcpy(static_cast<std::uint16_t*>(c.out) + i, &h, 2 * k);
    }
  }
  return watch.reached(0x7C00);
}

// bf16 nearest-even by integer rounding of the pattern (right for
// subnormals, unlike vcvtneps2bf16); NaNs keep their top payload, quieted.
NUMLAB_INLINE u32v bf16_nearest(u32v x) {
  const u32v rounded = (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
  return (x & 0x7FFFFFFFu) > 0x7F800000u ? (x >> 16) | 0x40u : rounded;
}

// Returns whether a result is NaN or infinite (only when Watch).
template <bool Watch>
bool bf16_chunk(const kernel_plan& plan, const chunk& c) {
  const auto* in = static_cast<const float*>(c.in);
  const bool values = plan.op == operation::round_f32;
  code16_watch<Watch> watch;
  auto store = [&](std::size_t i, u32v code, std::size_t k) __attribute__((always_inline)) {
    watch.see(__builtin_convertvector(code, u16v));  // lanes past the end hold +0
    if (values) {
      const u32v v = code << 16;
      __builtin_memcpy(static_cast<float*>(c.out) + i, &v, 4 * k);
    } else {
      store_codes(static_cast<std::uint16_t*>(c.out) + i, code, 2, k);
    }
  };
  std::size_t i = 0;
  for (; i + lanes <= c.n; i += lanes) store(i, bf16_nearest(load_vector<u32v>(in + i)), lanes);
  if (i < c.n) {
    u32v x{};
    __builtin_memcpy(&x, in + i, 4 * (c.n - i));
    store(i, bf16_nearest(x), c.n - i);
  }
  return watch.reached(0x7F80);
}

// The 16-bit nearest-even conversion of fp32 inputs (either shortcut).
template <bool Watch>
bool fp32_nearest_16bit(const kernel_plan& plan, const chunk& c) {
  if (plan.target == binary16) return fp16_chunk<_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC, Watch>(plan, c);
  return bf16_chunk<Watch>(plan, c);
}

// Four fp64 values (patterns) rounded to odd into fp32, as fp32 patterns in
// the low halves of the 64-bit lanes (zeros excepted, below). On the integer
// patterns: AVX2 has no static rounding for vcvtpd2ps, and neither MXCSR's
// rounding mode nor its flush-to-zero may change a result.
NUMLAB_INLINE __m256i f64_to_odd_patterns(__m256i x) {
  const __m256i sign_bit = _mm256_set1_epi64x(INT64_MIN);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi64x(1);
  const __m256i a = _mm256_andnot_si256(sign_bit, x);
  // The fp32 normal range: the top 23 fraction bits under the re-biased
  // exponent; the 29 cut bits give the odd bit (cmpeq's -1 plus one is 0).
  const __m256i normal = _mm256_sub_epi64(_mm256_srli_epi64(a, 29), _mm256_set1_epi64x(std::int64_t{1023 - 127} << 23));
  const __m256i normal_exact = _mm256_cmpeq_epi64(_mm256_and_si256(a, _mm256_set1_epi64x(0x1FFFFFFF)), zero);
  __m256i p = _mm256_or_si256(normal, _mm256_add_epi64(normal_exact, one));
  // Below 2^-126 (zero included) and from 2^128 up (infinities and NaNs
  // included) are rare: one test finds them.
  const __m256i below = _mm256_cmpgt_epi64(_mm256_set1_epi64x(std::int64_t{1023 - 126} << 52), a);
  const __m256i large = _mm256_cmpgt_epi64(a, _mm256_set1_epi64x(0x47EFFFFFFFFFFFFF));
  const __m256i rare = _mm256_or_si256(below, large);
  if (!_mm256_testz_si256(rare, rare)) {
    // fp32 subnormals: the significand, hidden bit included, in units of
    // 2^-149, a shift of 926 - E (at least 30; vpsrlvq gives 0 from 64 on,
    // and fp64 subnormals, whose hidden bit is wrong, shift out whole). Zero
    // takes this way too and comes out as 2^-149 (its hidden bit is cut):
    // not its rounding to odd, but both targets round it to a zero of the
    // same sign, so it needs no case of its own.
    const __m256i significand = _mm256_or_si256(_mm256_and_si256(a, _mm256_set1_epi64x(0xFFFFFFFFFFFFF)),
                                                _mm256_set1_epi64x(std::int64_t{1} << 52));
    const __m256i shift = _mm256_sub_epi64(_mm256_set1_epi64x(926), _mm256_srli_epi64(a, 52));
    const __m256i small = _mm256_srlv_epi64(significand, shift);
    const __m256i small_exact = _mm256_cmpeq_epi64(_mm256_sllv_epi64(small, shift), significand);
    p = _mm256_blendv_epi8(p, _mm256_or_si256(small, _mm256_add_epi64(small_exact, one)), below);
    // Finite values from 2^128 truncate to fp32's largest; infinities stay;
    // NaNs keep their top 23 payload bits, quieted (as vcvtpd2ps does).
    const __m256i infinity = _mm256_set1_epi64x(0x7FF0000000000000);
    __m256i huge = _mm256_blendv_epi8(_mm256_set1_epi64x(0x7F7FFFFF), _mm256_set1_epi64x(0x7F800000),
                                      _mm256_cmpeq_epi64(a, infinity));
    const __m256i nan = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi64(a, 29), _mm256_set1_epi64x(0x7FFFFF)),
                                        _mm256_set1_epi64x(0x7FC00000));
    huge = _mm256_blendv_epi8(huge, nan, _mm256_cmpgt_epi64(a, infinity));
    p = _mm256_blendv_epi8(p, huge, large);
  }
  return _mm256_or_si256(p, _mm256_srli_epi64(_mm256_and_si256(x, sign_bit), 32));
}

// Eight fp64 values rounded to odd into fp32, in order.
NUMLAB_INLINE __m256i f64_to_odd8(const double* in) {
  const __m256i low = f64_to_odd_patterns(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in)));
  const __m256i high = f64_to_odd_patterns(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 4)));
  // The low 32 bits of each 64-bit lane: in 128-bit halves low01 high01 |
  // low23 high23, then the middle 64-bit pairs swapped.
  const __m256 packed = _mm256_shuffle_ps(_mm256_castsi256_ps(low), _mm256_castsi256_ps(high), _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_permute4x64_epi64(_mm256_castps_si256(packed), _MM_SHUFFLE(3, 1, 2, 0));
}

// The k fp64 values at in rounded to odd into odd (kernel_f64_nearest16.hpp);
// a last partial group of 8 reads only its k values (the rest as +0).
void f64_to_odd(const double* in, float* odd, std::size_t k) {
  std::size_t i = 0;
  for (; i + 8 <= k; i += 8) _mm256_store_si256(reinterpret_cast<__m256i*>(odd + i), f64_to_odd8(in + i));
  if (i < k) {
    double rest[8] = {};
    __builtin_memcpy(rest, in + i, 8 * (k - i));
    _mm256_store_si256(reinterpret_cast<__m256i*>(odd + i), f64_to_odd8(rest));
  }
}

template <bool Watch>
bool f64_nearest_16bit_chunk(const kernel_plan& plan, const chunk& c) {
  return f64_nearest_16bit_stretches(plan, c, f64_to_odd, fp32_nearest_16bit<Watch>);
}

}  // namespace

tally run_avx2(const kernel_plan& plan, const chunk& c) {
  tally t;
  switch (plan.shortcut) {
    case hardware_shortcut::fp16_convert:
      with_fp16_immediate(plan, [&](auto imm) {
        constexpr int i = decltype(imm)::value;
        t.non_finite = plan.want_non_finite ? fp16_chunk<i, true>(plan, c) : fp16_chunk<i, false>(plan, c);
      });
      return t;
    case hardware_shortcut::bf16_nearest:
      t.non_finite = plan.want_non_finite ? bf16_chunk<true>(plan, c) : bf16_chunk<false>(plan, c);
      return t;
    case hardware_shortcut::stochastic_16bit: return run_stochastic16(plan, c);
    case hardware_shortcut::f64_nearest_16bit:
      t.non_finite = plan.want_non_finite ? f64_nearest_16bit_chunk<true>(plan, c) : f64_nearest_16bit_chunk<false>(plan, c);
      return t;
    case hardware_shortcut::none: break;
  }
  return run_lanes(plan, c);
}

// num::any_non_finite: as any_non_finite_avx512, with eight lanes; the last
// partial vector through vpmaskmovd (its other lanes read as zero and touch
// no memory).
bool any_non_finite_avx2(const float* in, std::size_t n) {
  const __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF);
  auto largest = [&](__m256i m, const float* at) __attribute__((always_inline)) {
    return _mm256_max_epu32(m, _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)), magnitude));
  };
  __m256i m0 = _mm256_setzero_si256(), m1 = m0, m2 = m0, m3 = m0;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    m0 = largest(m0, in + i);
    m1 = largest(m1, in + i + 8);
    m2 = largest(m2, in + i + 16);
    m3 = largest(m3, in + i + 24);
  }
  for (; i + 8 <= n; i += 8) m0 = largest(m0, in + i);
  if (i < n) {
    const __m256i lanes_left = _mm256_set1_epi32(static_cast<int>(n - i));
    const __m256i tail = _mm256_cmpgt_epi32(lanes_left, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256i x = _mm256_maskload_epi32(reinterpret_cast<const int*>(in + i), tail);
    m1 = _mm256_max_epu32(m1, _mm256_and_si256(x, magnitude));
  }
  const __m256i m = _mm256_max_epu32(_mm256_max_epu32(m0, m1), _mm256_max_epu32(m2, m3));
  // Every lane is at most 0x7FFFFFFF, so a signed compare orders them.
  const __m256i bad = _mm256_cmpgt_epi32(m, _mm256_set1_epi32(0x7F7FFFFF));
  return !_mm256_testz_si256(bad, bad);
}

}  // namespace num::kernels

#ifndef __clang__
#pragma GCC pop_options
#endif
