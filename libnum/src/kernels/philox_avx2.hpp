// Internal: philox_blocks.hpp's Philox4x32-10 (philox.hpp) operations on
// AVX2 registers, four counter blocks each: the vectorised generator the
// AVX2 kernels share (the array kernels' stochastic rounding, the scaled
// formats' MX kernel through random_window.hpp). Include it inside a region
// compiled for AVX2 (the including file's `#pragma GCC target` or, under
// clang, its per-file flags), after <immintrin.h>: it is always inlined
// into its caller's instruction set.
#pragma once

#include <cstdint>

#include "philox_blocks.hpp"

namespace num::kernels {
// Internal linkage: each including file keeps its own instruction-set copy.
namespace {

/// philox_blocks' operations on 256-bit registers: four blocks each.
struct philox_avx2_isa {
  using reg = __m256i;
  static constexpr int blocks_per_register = 4;
  /// Register sets philox_draws keeps in flight in the stochastic kernels:
  /// three, not AVX-512's four, because four sets' 16 state registers are
  /// all of AVX2's and spilled; on an AMD EPYC (AVX2) three ran fp16/bf16
  /// r = 32 stochastic rounding 5-24% faster than four, two and one slower.
  static constexpr int sets_in_flight = 3;
  static reg set1(std::uint64_t v) { return _mm256_set1_epi64x(static_cast<long long>(v)); }
  static reg block_order() { return _mm256_setr_epi64x(0, 2, 1, 3); }
  static reg add64(reg a, reg b) { return _mm256_add_epi64(a, b); }
  static reg shift_right64(reg a) { return _mm256_srli_epi64(a, 32); }
  static reg multiply32(reg a, reg b) { return _mm256_mul_epu32(a, b); }
  static reg xor3(reg a, reg b, reg c) { return _mm256_xor_si256(_mm256_xor_si256(a, b), c); }
  static reg low_and_high(reg low, reg high) { return _mm256_blend_epi32(low, _mm256_slli_epi64(high, 32), 0xAA); }
  static reg unpack_low64(reg a, reg b) { return _mm256_unpacklo_epi64(a, b); }
  static reg unpack_high64(reg a, reg b) { return _mm256_unpackhi_epi64(a, b); }
  static void store(std::uint32_t* out, reg v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v); }
  static reg load(const std::uint32_t* in) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in)); }
  /// Eight words w0..w7 as the half-word draws of 16 positions: first =
  /// lo(w0), hi(w0), ..., lo(w3), hi(w3); second the same of w4..w7 (lo(w) =
  /// w << 16, hi(w) = w with its low 16 bits cleared).
  static void split_halves(reg w, reg& first, reg& second) {
    const reg low = _mm256_slli_epi32(w, 16);
    const reg high = _mm256_and_si256(w, _mm256_set1_epi32(static_cast<int>(0xFFFF0000u)));
    const reg pairs_low = _mm256_unpacklo_epi32(low, high);   // w0 w1 | w4 w5
    const reg pairs_high = _mm256_unpackhi_epi32(low, high);  // w2 w3 | w6 w7
    first = _mm256_permute2x128_si256(pairs_low, pairs_high, 0x20);
    second = _mm256_permute2x128_si256(pairs_low, pairs_high, 0x31);
  }
};

}  // namespace
}  // namespace num::kernels
