#include "fused_loops.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include <libnum/array.hpp>
#include <libnum/cpu_features.hpp>

namespace lab::detail {
namespace {

// Whether the AVX2 + FMA clones run: the CPU has both (host_cpu() probes
// once per process) and NUMLAB_SIMD does not hold the process to the scalar
// path, which is how the tests run the baseline loops on this machine.
bool clones_run() {
  static const bool yes = num::resolve_simd_path(num::simd_path::automatic) != num::simd_path::scalar &&
                          num::host_cpu().avx2 && num::host_cpu().fma;
  return yes;
}

// Each loop is written once, always inlined into its baseline entry and into
// its clone, whose target attribute lets the compiler expand std::fma to
// vfmadd and vectorise with AVX2 (gcc and clang both inline a baseline
// function into a caller with a wider target).
[[gnu::always_inline]] inline void step_loop(float* w, const float* d, std::size_t n, float scale, float keep) {
  for (std::size_t i = 0; i < n; ++i) w[i] = std::fma(scale, d[i], w[i] * keep);
}
[[gnu::target("avx2,fma")]] void step_loop_fma(float* w, const float* d, std::size_t n, float scale, float keep) {
  step_loop(w, d, n, scale, keep);
}

[[gnu::always_inline]] inline void add_scaled_loop(const float* a, float s, const float* b, float* out,
                                                   std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::fma(s, b[i], a[i]);
}
[[gnu::target("avx2,fma")]] void add_scaled_loop_fma(const float* a, float s, const float* b, float* out,
                                                     std::size_t n) {
  add_scaled_loop(a, s, b, out, n);
}

[[gnu::always_inline]] inline void addcmul_square_loop(float* v, float value, const float* t, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) v[i] = std::fma(value * t[i], t[i], v[i]);
}
[[gnu::target("avx2,fma")]] void addcmul_square_loop_fma(float* v, float value, const float* t, std::size_t n) {
  addcmul_square_loop(v, value, t, n);
}

// |x| compared as bits, finite ones below those of +inf: an unsigned maximum
// the AVX2 clone vectorises (vpmaxud); baseline SSE2 has no such instruction.
[[gnu::always_inline]] inline std::uint32_t amax_bits(const float* x, std::size_t rows, std::size_t cols,
                                                      std::size_t ld) {
  constexpr std::uint32_t magnitude = 0x7FFFFFFFu, infinity = 0x7F800000u;
  std::uint32_t amax = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = x + r * ld;
    for (std::size_t c = 0; c < cols; ++c) {
      const std::uint32_t m = std::bit_cast<std::uint32_t>(row[c]) & magnitude;
      // NaN and inf become 0 by a mask (a select here keeps gcc from vectorising).
      amax = std::max(amax, m & (0u - static_cast<std::uint32_t>(m < infinity)));
    }
  }
  return amax;
}
[[gnu::target("avx2")]] std::uint32_t amax_bits_avx2(const float* x, std::size_t rows, std::size_t cols,
                                                     std::size_t ld) {
  return amax_bits(x, rows, cols, ld);
}

}  // namespace

void fused_step(std::span<float> weight, std::span<const float> direction, float scale, float keep) {
  if (clones_run())
    step_loop_fma(weight.data(), direction.data(), weight.size(), scale, keep);
  else
    step_loop(weight.data(), direction.data(), weight.size(), scale, keep);
}

void fused_add_scaled(std::span<const float> a, float s, std::span<const float> b, std::span<float> out) {
  if (clones_run())
    add_scaled_loop_fma(a.data(), s, b.data(), out.data(), out.size());
  else
    add_scaled_loop(a.data(), s, b.data(), out.data(), out.size());
}

void fused_addcmul_square(std::span<float> v, float value, std::span<const float> t) {
  if (clones_run())
    addcmul_square_loop_fma(v.data(), value, t.data(), v.size());
  else
    addcmul_square_loop(v.data(), value, t.data(), v.size());
}

float finite_amax(const float* x, std::size_t rows, std::size_t cols, std::size_t ld) {
  return std::bit_cast<float>(clones_run() ? amax_bits_avx2(x, rows, cols, ld) : amax_bits(x, rows, cols, ld));
}

}  // namespace lab::detail
