// The AVX-512 path of the array kernels: vcvtps2ph (zmm) where it gives the
// core's answer, vcvtneps2bf16 on blocks without subnormal inputs (where
// AVX512-BF16 exists), fp64 inputs to fp16/bf16 nearest-even through a
// round-to-odd fp32, and the lane algorithm on 16-lane vectors with a
// vectorised Philox4x32-10 for stochastic rounding.
#include <cstddef>
#include <cstdint>

#include "kernel_plan.hpp"
#include "libnum/cpu_features.hpp"

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which its
// -Wuninitialized reports once inlined (GCC bug 105593); nothing here reads
// an undefined value.
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#ifndef __clang__  // clang gets the same features as per-file flags (libnum/CMakeLists.txt)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,f16c,fma,bmi2")
#endif

#define NUMLAB_LANES 16

#include "philox_avx512.hpp"

namespace num::kernels {
namespace {

using philox_isa = philox_avx512_isa;

typedef std::uint32_t u32x16 __attribute__((vector_size(64)));

// vcvtps2ph of fp32 patterns holding fp16 values (exact in any mode).
// Per-lane shifts where a count of 32 or more gives 0 (vpsllvd / vpsrlvd).
inline __attribute__((always_inline)) u32x16 shift_left_or_zero(u32x16 v, u32x16 count) {
  return reinterpret_cast<u32x16>(_mm512_sllv_epi32(reinterpret_cast<__m512i>(v), reinterpret_cast<__m512i>(count)));
}
inline __attribute__((always_inline)) u32x16 shift_right_or_zero(u32x16 v, u32x16 count) {
  return reinterpret_cast<u32x16>(_mm512_srlv_epi32(reinterpret_cast<__m512i>(v), reinterpret_cast<__m512i>(count)));
}

constexpr bool exact_fp16_encode_available = true;
inline __attribute__((always_inline)) u32x16 exact_fp16_encode(u32x16 value) {
  const __m256i h = _mm512_cvtps_ph(reinterpret_cast<__m512>(value), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  return reinterpret_cast<u32x16>(_mm512_cvtepu16_epi32(h));
}

// The 16 fp16 encodings of fp32 patterns holding fp16 values, stored.
inline __attribute__((always_inline)) void store_fp16_codes(std::uint16_t* out, u32x16 value) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                      _mm512_cvtps_ph(reinterpret_cast<__m512>(value), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
}

// Whether any lane of v exceeds limit's, unsigned (one compare into a mask
// register, where the generic any_lane's reduction over lanes compiles to
// lane extracts).
inline __attribute__((always_inline)) bool any_lane_above(u32x16 v, u32x16 limit) {
  return _mm512_cmpgt_epu32_mask(reinterpret_cast<__m512i>(v), reinterpret_cast<__m512i>(limit)) != 0;
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
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(in + i), Imm);
    watch.see(reinterpret_cast<u16v>(h));
    if (values) {
      _mm512_storeu_ps(out_values + i, _mm512_cvtph_ps(h));
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_codes + i), h);
    }
  }
  if (i < c.n) {
    const auto tail = static_cast<__mmask16>((1u << (c.n - i)) - 1);
    const __m256i h = _mm512_cvtps_ph(_mm512_maskz_loadu_ps(tail, in + i), Imm);
    watch.see(reinterpret_cast<u16v>(h));  // the masked-off lanes hold +0
    if (values) {
      _mm512_mask_storeu_ps(static_cast<float*>(c.out) + i, tail, _mm512_cvtph_ps(h));
    } else {
      _mm256_mask_storeu_epi16(static_cast<std::uint16_t*>(c.out) + i, tail, h);
    }
  }
  return watch.reached(0x7C00);
}

// bf16 nearest-even by integer rounding of the pattern (right for
// subnormals); NaNs keep their top payload, quieted.
NUMLAB_INLINE __m512i bf16_nearest_integer(__m512i x) {
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
  const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7FFF)), lsb), 16);
  const __m512i quieted = _mm512_or_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x40));
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(x, _mm512_set1_epi32(0x7FFFFFFF)),
                                                _mm512_set1_epi32(0x7F800000));
  return _mm512_mask_blend_epi32(nan, rounded, quieted);
}

// Lanes holding fp32 subnormals (exponent field zero, fraction nonzero): the
// cheap test on the exponent first, the fraction only where it fires.
NUMLAB_INLINE __mmask16 subnormal_lanes(__m512i x) {
  const __mmask16 small = _mm512_testn_epi32_mask(x, _mm512_set1_epi32(0x7F800000));
  return small == 0 ? small : _mm512_mask_test_epi32_mask(small, x, _mm512_set1_epi32(0x007FFFFF));
}

// Full blocks of 16 with plain loads and stores (masked stores are slow on
// some cores), the tail masked. `convert(x)` gives the 16 results. Returns
// whether a result is NaN or infinite (only when Watch).
template <bool Watch, class Convert>
NUMLAB_INLINE bool bf16_blocks(const chunk& c, bool values, Convert convert) {
  // Locals, so the compiler need not reload them after each store.
  const auto* in = static_cast<const float*>(c.in);
  auto* out_values = static_cast<float*>(c.out);
  auto* out_codes = static_cast<std::uint16_t*>(c.out);
  const std::size_t n = c.n;
  code16_watch<Watch> watch;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i code = convert(_mm512_loadu_si512(in + i));
    watch.see(reinterpret_cast<u16v>(code));
    if (values) {
      _mm512_storeu_si512(out_values + i, _mm512_slli_epi32(_mm512_cvtepu16_epi32(code), 16));
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_codes + i), code);
    }
  }
  if (i < c.n) {
    const auto tail = static_cast<__mmask16>((1u << (c.n - i)) - 1);
    const __m256i code = convert(_mm512_maskz_loadu_epi32(tail, in + i));
    watch.see(reinterpret_cast<u16v>(code));  // the masked-off lanes hold +0
    if (values) {
      _mm512_mask_storeu_epi32(static_cast<float*>(c.out) + i, tail, _mm512_slli_epi32(_mm512_cvtepu16_epi32(code), 16));
    } else {
      _mm256_mask_storeu_epi16(static_cast<std::uint16_t*>(c.out) + i, tail, code);
    }
  }
  return watch.reached(0x7F80);
}

template <bool Watch>
bool bf16_integer_chunk(const chunk& c, bool values) {
  return bf16_blocks<Watch>(
      c, values, [](__m512i x) __attribute__((always_inline)) { return _mm512_cvtepi32_epi16(bf16_nearest_integer(x)); });
}

#define NUMLAB_BF16_TARGET "avx512f,avx512bw,avx512dq,avx512vl,avx512bf16,avx2,f16c,fma,bmi2"

// vcvtneps2bf16 flushes subnormal inputs, so blocks holding any go the
// integer way (the same loop as bf16_blocks, spelt out because the
// instruction needs a wider target than the template's).
__attribute__((target(NUMLAB_BF16_TARGET), always_inline)) inline __m256i bf16_hardware(__m512i x) {
  if (subnormal_lanes(x) != 0) return _mm512_cvtepi32_epi16(bf16_nearest_integer(x));
  return reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(_mm512_castsi512_ps(x)));
}

template <bool Watch>
__attribute__((target(NUMLAB_BF16_TARGET))) bool bf16_hardware_chunk(const chunk& c, bool values) {
  // Locals, so the compiler need not reload them after each store.
  const auto* in = static_cast<const float*>(c.in);
  auto* out_values = static_cast<float*>(c.out);
  auto* out_codes = static_cast<std::uint16_t*>(c.out);
  const std::size_t n = c.n;
  code16_watch<Watch> watch;
  std::size_t i = 0;
  // Codes: four vectors per subnormal test, one branch on their joint
  // exponent test (one per vector held 16M elements at 0.82-0.90x the bare
  // instruction's memory speed, 0.93-0.94x this way); a group holding a
  // small lane goes vector by vector through bf16_hardware. fp32 values
  // measured 6% slower this way, so they keep the loop below.
  for (; !values && i + 64 <= n; i += 64) {
    const __m512i exponent = _mm512_set1_epi32(0x7F800000);
    __m512i x[4];
    __mmask16 small = 0;
    for (int k = 0; k < 4; ++k) {
      x[k] = _mm512_loadu_si512(in + i + 16 * k);
      small |= _mm512_testn_epi32_mask(x[k], exponent);
    }
    __m256i codes[4];
    if (small == 0) {
      for (int k = 0; k < 4; ++k) codes[k] = reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(_mm512_castsi512_ps(x[k])));
    } else {
      for (int k = 0; k < 4; ++k) codes[k] = bf16_hardware(x[k]);
    }
    for (int k = 0; k < 4; ++k) {
      watch.see(reinterpret_cast<u16v>(codes[k]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_codes + i + 16 * k), codes[k]);
    }
  }
  for (; i + 16 <= n; i += 16) {
    const __m256i code = bf16_hardware(_mm512_loadu_si512(in + i));
    watch.see(reinterpret_cast<u16v>(code));
    if (values) {
      _mm512_storeu_si512(out_values + i, _mm512_slli_epi32(_mm512_cvtepu16_epi32(code), 16));
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_codes + i), code);
    }
  }
  const bool tail_non_finite =
      i < n && bf16_integer_chunk<Watch>({in + i, static_cast<unsigned char*>(c.out) + i * (values ? 4 : 2), n - i, 0},
                                         values);
  return watch.reached(0x7F80) || tail_non_finite;
}

// The 16-bit nearest-even conversion of fp32 inputs (either shortcut).
template <bool Watch>
bool fp32_nearest_16bit(const kernel_plan& plan, const chunk& c) {
  if (plan.target == binary16) return fp16_chunk<_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC, Watch>(plan, c);
  const bool values = plan.op == operation::round_f32;
  return host_cpu().avx512bf16 ? bf16_hardware_chunk<Watch>(c, values) : bf16_integer_chunk<Watch>(c, values);
}

// fp64 inputs rounded to odd into fp32 by vcvtpd2ps with a static
// toward-zero rounding, the last bit set where that was inexact; then the
// fp32 loops (kernel_f64_nearest16.hpp). NaNs compare unordered and are left
// alone: vcvtpd2ps keeps their top payload, quieted.
void f64_to_odd(const double* in, float* odd, std::size_t k) {
  for (std::size_t i = 0; i < k; i += 8) {
    const auto lanes8 = static_cast<__mmask8>(k - i >= 8 ? 0xFF : (1u << (k - i)) - 1);
    // A masked load only for the last partial group: masked loads of every
    // group ran this memory-bound loop at a third of the plain loads' speed
    // at 16M elements on Zen 5 (16.7 against 5.5 ms for AVX2's integer path).
    const __m512d x = k - i >= 8 ? _mm512_loadu_pd(in + i) : _mm512_maskz_loadu_pd(lanes8, in + i);
    const __m256 truncated = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __mmask8 inexact = _mm512_cmp_pd_mask(_mm512_cvtps_pd(truncated), x, _CMP_NEQ_OQ);
    const __m256i bits = _mm256_castps_si256(truncated);
    _mm256_store_si256(reinterpret_cast<__m256i*>(odd + i), _mm256_mask_or_epi32(bits, inexact, bits, _mm256_set1_epi32(1)));
  }
}

template <bool Watch>
bool f64_nearest_16bit_chunk(const kernel_plan& plan, const chunk& c) {
  return f64_nearest_16bit_stretches(plan, c, f64_to_odd, fp32_nearest_16bit<Watch>);
}

}  // namespace

tally run_avx512(const kernel_plan& plan, const chunk& c) {
  tally t;
  const bool values = plan.op == operation::round_f32;
  switch (plan.shortcut) {
    case hardware_shortcut::fp16_convert:
      with_fp16_immediate(plan, [&](auto imm) {
        constexpr int i = decltype(imm)::value;
        t.non_finite = plan.want_non_finite ? fp16_chunk<i, true>(plan, c) : fp16_chunk<i, false>(plan, c);
      });
      return t;
    case hardware_shortcut::bf16_nearest:
      if (host_cpu().avx512bf16) {
        t.non_finite = plan.want_non_finite ? bf16_hardware_chunk<true>(c, values) : bf16_hardware_chunk<false>(c, values);
      } else {
        t.non_finite = plan.want_non_finite ? bf16_integer_chunk<true>(c, values) : bf16_integer_chunk<false>(c, values);
      }
      return t;
    case hardware_shortcut::stochastic_16bit: return run_stochastic16(plan, c);
    case hardware_shortcut::f64_nearest_16bit:
      t.non_finite = plan.want_non_finite ? f64_nearest_16bit_chunk<true>(plan, c) : f64_nearest_16bit_chunk<false>(plan, c);
      return t;
    case hardware_shortcut::none: break;
  }
  return run_lanes(plan, c);
}

// num::any_non_finite: the largest magnitude pattern over the array (a NaN
// or an infinity is a pattern from 0x7F800000 up), four running maxima so
// that the loads, not the dependency of one maximum, set the pace; the last
// partial vector through a masked load (its other lanes read as zero).
bool any_non_finite_avx512(const float* in, std::size_t n) {
  const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF);
  auto largest = [&](__m512i m, const float* at) __attribute__((always_inline)) {
    return _mm512_max_epu32(m, _mm512_and_si512(_mm512_loadu_si512(at), magnitude));
  };
  __m512i m0 = _mm512_setzero_si512(), m1 = m0, m2 = m0, m3 = m0;
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    m0 = largest(m0, in + i);
    m1 = largest(m1, in + i + 16);
    m2 = largest(m2, in + i + 32);
    m3 = largest(m3, in + i + 48);
  }
  for (; i + 16 <= n; i += 16) m0 = largest(m0, in + i);
  if (i < n) {
    const auto tail = static_cast<__mmask16>((1u << (n - i)) - 1);
    m1 = _mm512_max_epu32(m1, _mm512_and_si512(_mm512_maskz_loadu_epi32(tail, in + i), magnitude));
  }
  const __m512i m = _mm512_max_epu32(_mm512_max_epu32(m0, m1), _mm512_max_epu32(m2, m3));
  return _mm512_cmpge_epu32_mask(m, _mm512_set1_epi32(0x7F800000)) != 0;
}

}  // namespace num::kernels

#ifndef __clang__
#pragma GCC pop_options
#endif
