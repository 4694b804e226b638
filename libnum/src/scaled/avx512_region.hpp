// Internal: opens the AVX-512 region of a scaled-format kernel file
// (mx_block_avx512.cpp, nvfp4_avx512.cpp). Include it once, after the
// file's other headers (a library function defined or instantiated inside
// the region would be compiled for AVX-512, and the linker may pick that
// copy for every caller; for the same reason the region calls no std::
// templates, only builtins); the file closes the region at its end with
//   #ifndef __clang__
//   #pragma GCC pop_options
//   #endif
// Nothing in such a file runs before quantize() has checked the CPU.
#pragma once

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which its
// -Wuninitialized reports once inlined (GCC bug 105593); nothing here reads
// an undefined value.
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#ifndef __clang__  // clang gets the same features as per-file flags (libnum/CMakeLists.txt)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,bmi2,popcnt")
#endif

#define NUMLAB_INLINE inline __attribute__((always_inline))

namespace num::scaled_detail {
namespace {

/// v in every 32-bit lane.
NUMLAB_INLINE __m512i splat(std::uint32_t v) { return _mm512_set1_epi32(static_cast<int>(v)); }

/// v, as a value the compiler cannot see through. A kernel's constant kept
/// as a member stays in a register or is read from the object; built from a
/// literal and visible, GCC 12 builds it again from an immediate (a move and
/// a broadcast) in every block instead (bench/RESULTS.md, issue 15, session 12).
NUMLAB_INLINE __m512i opaque(__m512i v) {
  __asm__("" : "+v"(v));
  return v;
}

/// Stores sixteen element codes (one per 32-bit lane, below 2^8): a byte
/// each, or (packed FP4, codes below 16) two per byte, element 2k in the low
/// nibble, as element_layout::packed lays them out. Returns the bytes written.
NUMLAB_INLINE std::size_t store_codes16(std::uint8_t* out, __m512i codes, bool packed_fp4) {
  if (packed_fp4) {
    // Lanes 2k and 2k+1 as one 64-bit lane: the odd code moved up to bits 4..7.
    const __m512i pairs = _mm512_or_si512(codes, _mm512_srli_epi64(codes, 28));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm512_cvtepi64_epi8(pairs));
    return 8;
  }
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtepi32_epi8(codes));
  return 16;
}

/// store_codes16 for the lanes in `present` only (a row's partial last
/// block; packed FP4 takes an even count of lanes, as rows start on bytes).
/// Returns the bytes a full store would have written.
NUMLAB_INLINE std::size_t store_codes16_masked(std::uint8_t* out, __m512i codes, __mmask16 present, bool packed_fp4) {
  if (packed_fp4) {
    const __m512i pairs = _mm512_or_si512(codes, _mm512_srli_epi64(codes, 28));
    // Byte k holds lanes 2k and 2k + 1.
    const auto bytes = static_cast<__mmask16>(_pext_u32(present, 0x5555u));
    _mm_mask_storeu_epi8(out, bytes, _mm512_cvtepi64_epi8(pairs));
    return 8;
  }
  _mm_mask_storeu_epi8(out, present, _mm512_cvtepi32_epi8(codes));
  return 16;
}

}  // namespace
}  // namespace num::scaled_detail
