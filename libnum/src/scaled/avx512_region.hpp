// Internal: opens the AVX-512 region of a scaled-format kernel file
// (mx_block_avx512.cpp, nvfp4_avx512.cpp). Include it once, after the
// file's other headers; the file closes the region at its end with
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

}  // namespace
}  // namespace num::scaled_detail
