#include "transpose.hpp"

#include <immintrin.h>

#include <algorithm>

#include <libnum/array.hpp>
#include <libnum/cpu_features.hpp>

namespace lab::detail {
namespace {

// Tiles of this many rows and columns keep the lines of dst being written in
// the L1 cache while src is read along its rows.
constexpr std::size_t tile = 64, block = 8;

bool avx2_runs() {
  static const bool yes =
      num::resolve_simd_path(num::simd_path::automatic) != num::simd_path::scalar && num::host_cpu().avx2;
  return yes;
}

void transpose_scalar(const float* src, std::size_t ld, std::size_t r0, std::size_t r1, std::size_t c0,
                      std::size_t c1, std::size_t rows, float* dst) {
  for (std::size_t r = r0; r < r1; ++r)
    for (std::size_t c = c0; c < c1; ++c) dst[c * rows + r] = src[r * ld + c];
}

// One 8 x 8 block: rows r..r+7, columns c..c+7 of src into dst (shuffles
// move bits, so every pattern, NaN payloads included, comes out as it went in).
[[gnu::target("avx2"), gnu::always_inline]] inline void transpose_block_avx2(const float* src, std::size_t ld,
                                                                             float* dst, std::size_t ldd) {
  __m256 r[block], t[block];
  for (std::size_t i = 0; i < block; ++i) r[i] = _mm256_loadu_ps(src + i * ld);
  for (std::size_t i = 0; i < block; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (std::size_t i = 0; i < block; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (std::size_t i = 0; i < 4; ++i) {
    _mm256_storeu_ps(dst + i * ldd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(dst + (i + 4) * ldd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}

[[gnu::target("avx2")]] void transpose_tile_avx2(const float* src, std::size_t ld, std::size_t r0, std::size_t r1,
                                                 std::size_t c0, std::size_t c1, std::size_t rows, float* dst) {
  const std::size_t r_whole = r0 + (r1 - r0) / block * block, c_whole = c0 + (c1 - c0) / block * block;
  for (std::size_t r = r0; r < r_whole; r += block)
    for (std::size_t c = c0; c < c_whole; c += block)
      transpose_block_avx2(src + r * ld + c, ld, dst + c * rows + r, rows);
  // The edges: the columns past the last whole block, then the rows.
  transpose_scalar(src, ld, r0, r_whole, c_whole, c1, rows, dst);
  transpose_scalar(src, ld, r_whole, r1, c0, c1, rows, dst);
}

}  // namespace

void transpose(const float* src, std::size_t ld, std::size_t rows, std::size_t cols, float* dst) {
  const bool avx2 = avx2_runs();
  for (std::size_t r0 = 0; r0 < rows; r0 += tile)
    for (std::size_t c0 = 0; c0 < cols; c0 += tile) {
      const std::size_t r1 = std::min(rows, r0 + tile), c1 = std::min(cols, c0 + tile);
      if (avx2)
        transpose_tile_avx2(src, ld, r0, r1, c0, c1, rows, dst);
      else
        transpose_scalar(src, ld, r0, r1, c0, c1, rows, dst);
    }
}

}  // namespace lab::detail
