// The CPU's own conversions as an oracle: F16C's vcvtps2ph (all four rounding
// immediates) and vcvtph2ps, and AVX512-BF16's vcvtneps2bf16. Each function
// is compiled for its instruction set only (target attribute) and must be
// called only where the CPU reports it (has_f16c / has_avx512bf16).
#pragma once

#include <libnum/cpu_features.hpp>
#include <immintrin.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <libnum/convert.hpp>
#include <libnum/format.hpp>
#include <libnum/rounding.hpp>

namespace hardware {

inline bool has_f16c() { return num::host_cpu().f16c; }
inline bool has_avx512bf16() {
  return num::host_cpu().avx512f && num::host_cpu().avx512bf16 && num::host_cpu().avx512vl;
}

/// The rounding modes vcvtps2ph implements.
inline constexpr num::rounding f16c_modes[] = {num::rounding::nearest_even, num::rounding::toward_negative,
                                               num::rounding::toward_positive, num::rounding::toward_zero};

/// vcvtps2ph of four floats with the immediate for `mode` (exceptions suppressed).
__attribute__((target("f16c"))) inline void fp32_to_fp16(const float* in, std::uint16_t* out, num::rounding mode) {
  const __m128 x = _mm_loadu_ps(in);
  __m128i r;
  switch (mode) {
    case num::rounding::toward_negative: r = _mm_cvtps_ph(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); break;
    case num::rounding::toward_positive: r = _mm_cvtps_ph(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); break;
    case num::rounding::toward_zero: r = _mm_cvtps_ph(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); break;
    default: r = _mm_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); break;
  }
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), r);
}

/// vcvtph2ps of four fp16 patterns.
__attribute__((target("f16c"))) inline void fp16_to_fp32(const std::uint16_t* in, float* out) {
  _mm_storeu_ps(out, _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in))));
}

/// vcvtneps2bf16 of sixteen floats (nearest-even; fp32 subnormal inputs are
/// flushed to zero by the instruction).
__attribute__((target("avx512f,avx512bf16,avx512vl"))) inline void fp32_to_bf16(const float* in,
                                                                               std::uint16_t* out) {
  const __m256bh r = _mm512_cvtneps_pbh(_mm512_loadu_ps(in));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), reinterpret_cast<const __m256i&>(r));
}

/// Agreement of libnum with an instruction over a set of inputs. NaN results
/// that agree in being NaN and in sign but differ in payload are counted
/// apart (docs/NUMERICS.md, NaNs).
struct tally {
  std::uint64_t cases = 0, mismatches = 0, nan_payload_differences = 0;
  std::vector<std::string> examples;

  void record(std::uint32_t input, std::uint32_t got, std::uint32_t want, bool both_nan_same_sign) {
    ++cases;
    if (got == want) return;
    if (both_nan_same_sign) {
      ++nan_payload_differences;
      return;
    }
    if (++mismatches <= 10) {
      char text[96];
      std::snprintf(text, sizeof text, "input 0x%08x: libnum 0x%x, hardware 0x%x", input, got, want);
      examples.emplace_back(text);
    }
  }
  void merge(const tally& other) {
    cases += other.cases;
    mismatches += other.mismatches;
    nan_payload_differences += other.nan_payload_differences;
    examples.insert(examples.end(), other.examples.begin(), other.examples.end());
  }
};

inline bool fp16_nan(std::uint32_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0; }
inline bool bf16_nan(std::uint32_t h) { return (h & 0x7F80) == 0x7F80 && (h & 0x7F) != 0; }

/// libnum's fp32 -> fp16 in `mode` against vcvtps2ph on the float patterns
/// first, first + stride, ... (count of them).
inline tally compare_fp16_conversion(std::uint64_t first, std::uint64_t count, std::uint64_t stride,
                                     num::rounding mode) {
  tally t;
  float in[4];
  std::uint16_t out[4];
  for (std::uint64_t i = 0; i < count; i += 4) {
    for (int k = 0; k < 4; ++k) in[k] = std::bit_cast<float>(static_cast<std::uint32_t>(first + (i + k) * stride));
    fp32_to_fp16(in, out, mode);
    for (int k = 0; k < 4 && i + k < count; ++k) {
      const std::uint32_t got = num::from_float(num::binary16, in[k], {mode}).bits;
      t.record(std::bit_cast<std::uint32_t>(in[k]), got, out[k],
               fp16_nan(got) && fp16_nan(out[k]) && ((got ^ out[k]) & 0x8000) == 0);
    }
  }
  return t;
}

/// libnum's nearest-even fp32 -> bf16 against vcvtneps2bf16 on the same
/// kind of pattern sequence, skipping fp32 subnormals (the instruction flushes them).
inline tally compare_bf16_conversion(std::uint64_t first, std::uint64_t count, std::uint64_t stride) {
  tally t;
  float in[16];
  std::uint16_t out[16];
  for (std::uint64_t i = 0; i < count; i += 16) {
    int n = 0;
    for (std::uint64_t k = i; k < i + 16 && k < count; ++k) {
      const float x = std::bit_cast<float>(static_cast<std::uint32_t>(first + k * stride));
      if (std::fpclassify(x) != FP_SUBNORMAL) in[n++] = x;
    }
    for (int k = n; k < 16; ++k) in[k] = 0;
    fp32_to_bf16(in, out);
    for (int k = 0; k < n; ++k) {
      const std::uint32_t got = num::from_float(num::bfloat16_format, in[k], {}).bits;
      t.record(std::bit_cast<std::uint32_t>(in[k]), got, out[k],
               bf16_nan(got) && bf16_nan(out[k]) && ((got ^ out[k]) & 0x8000) == 0);
    }
  }
  return t;
}

}  // namespace hardware
