#include "lab/hadamard.hpp"

#include <immintrin.h>

#include <algorithm>

#include <libnum/array.hpp>
#include <libnum/philox.hpp>

namespace lab {

std::array<float, hadamard_size> hadamard_signs(std::uint64_t seed) {
  constexpr std::uint64_t stream = 0x48414441;  // "HADA"
  const num::random_stream random(seed, stream);
  std::array<float, hadamard_size> signs{};
  for (std::size_t i = 0; i < hadamard_size; ++i) signs[i] = (random.word(i) & 1u) != 0 ? -1.0f : 1.0f;
  return signs;
}

namespace {

// One run of 16 values, as the header says: in[0..16) transformed into
// x[0..16) (x may be in).
void transform_run(const float* in, float* x, const float* signs) {
  for (std::size_t i = 0; i < hadamard_size; ++i) x[i] = in[i] * signs[i];
  for (std::size_t h = 1; h < hadamard_size; h *= 2)
    for (std::size_t i = 0; i < hadamard_size; i += 2 * h)
      for (std::size_t j = i; j < i + h; ++j) {
        const float a = x[j], b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
  for (std::size_t i = 0; i < hadamard_size; ++i) x[i] *= 0.25f;
}

// The same run in one AVX-512 register: at stage h, lane j's partner is lane
// j ^ h; the lower lane of a pair gets lower + upper and the upper lane
// lower - upper, the very operations (operand order included) of
// transform_run, so the results are identical. Written by hand because the
// compiler does not vectorise the butterflies.
__attribute__((target("avx512f"))) void transform_runs_avx512(const float* in, float* x, std::size_t runs,
                                                              const float* signs) {
  const __m512 sign = _mm512_loadu_ps(signs), quarter = _mm512_set1_ps(0.25f);
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i partner[4];
  __mmask16 upper[4];
  for (int stage = 0; stage < 4; ++stage) {
    const __m512i h = _mm512_set1_epi32(1 << stage);
    partner[stage] = _mm512_xor_si512(lane, h);
    upper[stage] = _mm512_test_epi32_mask(lane, h);
  }
  for (std::size_t run = 0; run < runs; ++run, in += hadamard_size, x += hadamard_size) {
    __m512 v = _mm512_mul_ps(_mm512_loadu_ps(in), sign);
    for (int stage = 0; stage < 4; ++stage) {
      // The zero-masking form: the plain one trips GCC 12's -Wmaybe-uninitialized.
      const __m512 other = _mm512_maskz_permutexvar_ps(__mmask16{0xFFFF}, partner[stage], v);
      v = _mm512_mask_blend_ps(upper[stage], _mm512_add_ps(v, other), _mm512_sub_ps(other, v));
    }
    _mm512_storeu_ps(x, _mm512_mul_ps(v, quarter));
  }
}

// The same run in two AVX2 registers (lanes 0-7 and 8-15): stages h = 1, 2,
// 4 pair lanes within a register, by a fixed permute, with the blend masks
// of the upper lanes; stage h = 8 pairs the two registers. Same operations,
// operand order included, as transform_run: identical results. By hand for
// the reason above; before it, CPUs without AVX-512 ran the scalar loop, a
// quarter of an nvfp4 training step of the tutorial conv (perf, AMD EPYC).
__attribute__((target("avx2"))) void transform_runs_avx2(const float* in, float* x, std::size_t runs,
                                                         const float* signs) {
  const __m256 sign_low = _mm256_loadu_ps(signs), sign_high = _mm256_loadu_ps(signs + 8);
  const __m256 quarter = _mm256_set1_ps(0.25f);
  for (std::size_t run = 0; run < runs; ++run, in += hadamard_size, x += hadamard_size) {
    __m256 v[2] = {_mm256_mul_ps(_mm256_loadu_ps(in), sign_low), _mm256_mul_ps(_mm256_loadu_ps(in + 8), sign_high)};
    for (__m256& w : v) {
      __m256 other = _mm256_permute_ps(w, 0xB1);  // h = 1: lanes j ^ 1
      w = _mm256_blend_ps(_mm256_add_ps(w, other), _mm256_sub_ps(other, w), 0xAA);
      other = _mm256_permute_ps(w, 0x4E);  // h = 2: lanes j ^ 2
      w = _mm256_blend_ps(_mm256_add_ps(w, other), _mm256_sub_ps(other, w), 0xCC);
      other = _mm256_permute2f128_ps(w, w, 0x01);  // h = 4: lanes j ^ 4
      w = _mm256_blend_ps(_mm256_add_ps(w, other), _mm256_sub_ps(other, w), 0xF0);
    }
    _mm256_storeu_ps(x, _mm256_mul_ps(_mm256_add_ps(v[0], v[1]), quarter));  // h = 8
    _mm256_storeu_ps(x + 8, _mm256_mul_ps(_mm256_sub_ps(v[0], v[1]), quarter));
  }
}

}  // namespace

void hadamard_transform_rows(std::span<const float> in, std::span<float> out, std::size_t k,
                             std::span<const float, hadamard_size> signs) {
  if (k == 0) return;
  const std::size_t rows = in.size() / k, runs = k / hadamard_size;
  // libnum's path choice (NUMLAB_SIMD included), so the portable loop can be
  // chosen, and tested, on an AVX-512 host too.
  const num::simd_path path = num::resolve_simd_path(num::simd_path::automatic);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* from = in.data() + r * k;
    float* row = out.data() + r * k;
    if (path == num::simd_path::avx512) {
      transform_runs_avx512(from, row, runs, signs.data());
    } else if (path == num::simd_path::avx2) {
      transform_runs_avx2(from, row, runs, signs.data());
    } else {
      for (std::size_t run = 0; run < runs; ++run)
        transform_run(from + run * hadamard_size, row + run * hadamard_size, signs.data());
    }
    // The short last run stays as it is.
    if (from != row) std::copy(from + runs * hadamard_size, from + k, row + runs * hadamard_size);
  }
}

void hadamard_transform_rows(std::span<float> values, std::size_t k, std::span<const float, hadamard_size> signs) {
  hadamard_transform_rows(values, values, k, signs);
}

}  // namespace lab
