// Internal: Philox4x32-10 (philox.hpp) for sixteen consecutive counter
// blocks on AVX-512, the one vectorised generator the AVX-512 kernels share
// (the array kernels' stochastic rounding, the scaled formats' MX kernel).
// Include it inside a region compiled for AVX-512F (the including file's
// `#pragma GCC target` or, under clang, its per-file flags), after
// <immintrin.h>: it is always inlined into its caller's instruction set.
#pragma once

#include <cstdint>

namespace num::kernels {
// Internal linkage: each including file keeps its own instruction-set copy.
namespace {

/// Words 4·first_block .. 4·first_block + 63 of random_stream(seed, stream),
/// in order, into out[0..64). Eight blocks per register, one per 64-bit lane
/// (only each lane's low 32 bits matter: vpmuludq reads just those); the two
/// registers' rounds interleave, so one's multiply latency hides behind the
/// other's work.
inline __attribute__((always_inline)) void philox_sixteen_blocks(std::uint64_t seed, std::uint64_t stream,
                                                                 std::uint64_t first_block, std::uint32_t* out) {
  constexpr int sets = 2;
  __m512i x0[sets], x1[sets], x2[sets], x3[sets];
  for (int s = 0; s < sets; ++s) {
    // Lane l holds block first_block + 8s + {0, 4, 1, 5, 2, 6, 3, 7}[l] so
    // that the unpacks below leave the blocks in order.
    x0[s] = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(first_block + 8 * s)),
                             _mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7));
    x1[s] = _mm512_srli_epi64(x0[s], 32);
    x2[s] = _mm512_set1_epi64(static_cast<long long>(stream & 0xFFFFFFFFu));
    x3[s] = _mm512_set1_epi64(static_cast<long long>(stream >> 32));
  }
  const __m512i m0 = _mm512_set1_epi64(0xD2511F53);
  const __m512i m1 = _mm512_set1_epi64(0xCD9E8D57);
  auto k0 = static_cast<std::uint32_t>(seed);
  auto k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const __m512i key0 = _mm512_set1_epi64(k0);
    const __m512i key1 = _mm512_set1_epi64(k1);
    for (int s = 0; s < sets; ++s) {
      const __m512i p0 = _mm512_mul_epu32(x0[s], m0);
      const __m512i p1 = _mm512_mul_epu32(x2[s], m1);
      x0[s] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), x1[s], key0, 0x96);
      x1[s] = p1;
      x2[s] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), x3[s], key1, 0x96);
      x3[s] = p0;
    }
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  for (int s = 0; s < sets; ++s) {
    const __m512i w01 = _mm512_mask_blend_epi32(0xAAAA, x0[s], _mm512_slli_epi64(x1[s], 32));
    const __m512i w23 = _mm512_mask_blend_epi32(0xAAAA, x2[s], _mm512_slli_epi64(x3[s], 32));
    _mm512_storeu_si512(out + 32 * s, _mm512_unpacklo_epi64(w01, w23));
    _mm512_storeu_si512(out + 32 * s + 16, _mm512_unpackhi_epi64(w01, w23));
  }
}

}  // namespace
}  // namespace num::kernels
