// Internal: opens the AVX2 region of a scaled-format kernel file
// (mx_block_avx2.cpp), as avx512_region.hpp does for AVX-512: include it
// once, after the file's other headers (a library function defined or
// instantiated inside the region would be compiled for AVX2, and the linker
// may pick that copy for every caller; so the region calls no std::
// templates, only builtins); the file closes the region at its end with
//   #ifndef __clang__
//   #pragma GCC pop_options
//   #endif
// Nothing in such a file runs before quantize() has resolved the path to
// simd_path::avx2 (AVX2, FMA, F16C and BMI2, as the array kernels' AVX2 path).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#ifndef __clang__  // clang gets the same features as per-file flags (libnum/CMakeLists.txt)
#pragma GCC push_options
#pragma GCC target("avx2,f16c,fma,bmi2")
#endif

#define NUMLAB_INLINE inline __attribute__((always_inline))

namespace num::scaled_detail {
namespace {

/// v in every 32-bit lane.
NUMLAB_INLINE __m256i splat8(std::uint32_t v) { return _mm256_set1_epi32(static_cast<int>(v)); }

/// v, as a value the compiler cannot see through, so that a kernel's
/// constant kept as a member is read from the object (a memory operand)
/// instead of built again from an immediate (a move and a broadcast) in
/// every block, as GCC 12 does with a visible literal (the AVX-512 kernels'
/// opaque(), avx512_region.hpp).
NUMLAB_INLINE __m256i opaque8(__m256i v) {
  __asm__("" : "+x"(v));
  return v;
}

/// The lanes where a > b as unsigned 32-bit integers (all ones), from the
/// signed compare with both sign bits flipped: AVX2 has no unsigned compare.
NUMLAB_INLINE __m256i greater_unsigned(__m256i a, __m256i b) {
  const __m256i flip = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  return _mm256_cmpgt_epi32(_mm256_xor_si256(a, flip), _mm256_xor_si256(b, flip));
}

/// A 32-lane mask (bit j for lane j) from four 8-lane masks of all-ones or zero lanes.
NUMLAB_INLINE std::uint32_t lane_bits(__m256i m0, __m256i m1, __m256i m2, __m256i m3) {
  auto bits = [](__m256i m) { return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(m))); };
  return bits(m0) | bits(m1) << 8 | bits(m2) << 16 | bits(m3) << 24;
}

/// An 8-lane mask of all-ones or zero lanes from bits 0..7 of `bits`.
NUMLAB_INLINE __m256i lanes_of_bits(std::uint32_t bits) {
  const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256i b = _mm256_and_si256(splat8(bits), lane_bit);
  return _mm256_cmpeq_epi32(b, lane_bit);
}

/// A block's 32 element codes (one per 32-bit lane, in 0..255: INT8's two's
/// complement already cut to its byte) as 32 bytes in lane order, or
/// (packed FP4, codes below 16) as 16 bytes with element 2k in the low
/// nibble of byte k, as element_layout::packed lays them out. Returns the
/// bytes in the low `bytes(packed_fp4)` of a 256-bit register.
NUMLAB_INLINE __m256i code_bytes32(__m256i c0, __m256i c1, __m256i c2, __m256i c3, bool packed_fp4) {
  // Saturating packs keep the codes (all below 256); they interleave the
  // 128-bit halves, which one permutation of 32-bit groups puts back.
  const __m256i words01 = _mm256_packus_epi32(c0, c1), words23 = _mm256_packus_epi32(c2, c3);
  const __m256i bytes =
      _mm256_permutevar8x32_epi32(_mm256_packus_epi16(words01, words23), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  if (!packed_fp4) return bytes;
  // Byte 2k + 16 · byte 2k+1 in each 16-bit lane, then those packed to bytes.
  const __m256i pairs = _mm256_maddubs_epi16(bytes, _mm256_set1_epi16(0x1001));
  return _mm256_permute4x64_epi64(_mm256_packus_epi16(pairs, pairs), 0x08);
}

/// Stores code_bytes32's bytes (32, or 16 when packed). Returns the bytes written.
NUMLAB_INLINE std::size_t store_code_bytes32(std::uint8_t* out, __m256i bytes, bool packed_fp4) {
  if (packed_fp4) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(bytes));
    return 16;
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), bytes);
  return 32;
}

}  // namespace
}  // namespace num::scaled_detail
