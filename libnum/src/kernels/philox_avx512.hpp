// Internal: philox_blocks.hpp's Philox4x32-10 (philox.hpp) operations on
// AVX-512 registers, eight counter blocks each: the one vectorised generator
// the AVX-512 kernels share (the array kernels' stochastic rounding, the
// scaled formats' MX and NVFP4 kernels through random_window.hpp).
// Include it inside a region compiled for AVX-512F (the including file's
// `#pragma GCC target` or, under clang, its per-file flags), after
// <immintrin.h>: it is always inlined into its caller's instruction set.
#pragma once

#include <cstdint>

#include "philox_blocks.hpp"

namespace num::kernels {
// Internal linkage: each including file keeps its own instruction-set copy.
namespace {

/// philox_blocks' operations on 512-bit registers: eight blocks each.
struct philox_avx512_isa {
  using reg = __m512i;
  static constexpr int blocks_per_register = 8;
  /// Register sets philox_draws keeps in flight in the stochastic kernels:
  /// four fill 16 of the 32 zmm registers, and their rounds run at the
  /// multiplier's throughput rather than its latency.
  static constexpr int sets_in_flight = 4;
  static reg set1(std::uint64_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); }
  static reg block_order() { return _mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7); }
  static reg add64(reg a, reg b) { return _mm512_add_epi64(a, b); }
  static reg shift_right64(reg a) { return _mm512_srli_epi64(a, 32); }
  static reg multiply32(reg a, reg b) { return _mm512_mul_epu32(a, b); }
  static reg xor3(reg a, reg b, reg c) { return _mm512_ternarylogic_epi64(a, b, c, 0x96); }
  static reg low_and_high(reg low, reg high) {
    return _mm512_mask_blend_epi32(0xAAAA, low, _mm512_slli_epi64(high, 32));
  }
  static reg unpack_low64(reg a, reg b) { return _mm512_unpacklo_epi64(a, b); }
  static reg unpack_high64(reg a, reg b) { return _mm512_unpackhi_epi64(a, b); }
  static void store(std::uint32_t* out, reg v) { _mm512_storeu_si512(out, v); }
  static reg load(const std::uint32_t* in) { return _mm512_loadu_si512(in); }
  /// Sixteen words w0..w15 as the half-word draws of 32 positions: first =
  /// lo(w0), hi(w0), ..., lo(w7), hi(w7); second the same of w8..w15 (lo(w) =
  /// w << 16, hi(w) = w with its low 16 bits cleared).
  static void split_halves(reg w, reg& first, reg& second) {
    const reg low = _mm512_slli_epi32(w, 16);
    const reg high = _mm512_and_si512(w, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u)));
    first = _mm512_permutex2var_epi32(low, _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23),
                                      high);
    second = _mm512_permutex2var_epi32(
        low, _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), high);
  }
};

}  // namespace
}  // namespace num::kernels
