#include "fused_loops.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

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

// An update's tally in lane accumulators (update_pass). Everything is a
// double, the counts too (exact below 2^53 per lane), so that every
// comparison yields a mask of one width and the AVX2 clone takes a block of
// eight elements as two vectors of four doubles per accumulator.
struct tally_lanes {
  double requested[update_sum_lanes] = {}, applied[update_sum_lanes] = {}, nonzero_delta[update_sum_lanes] = {},
         unchanged[update_sum_lanes] = {}, swamped[update_sum_lanes] = {}, non_finite[update_sum_lanes] = {};

  [[gnu::always_inline]] void add(std::size_t lane, float before, float after, float direction, double scale) {
    const double b = before, a = after;
    const double asked = scale * static_cast<double>(direction);  // exact: 24 + 24 bits
    const double moved = asked != 0.0 ? 1.0 : 0.0;
    const double same = a == b ? 1.0 : 0.0;
    nonzero_delta[lane] += moved;
    unchanged[lane] += same;
    swamped[lane] += moved * same;
    non_finite[lane] += std::fabs(a) <= static_cast<double>(std::numeric_limits<float>::max()) ? 0.0 : 1.0;
    // Branch-free (a delta's sign is random, a branch on it mispredicts).
    // The product with a sign of -1, 0 or 1 is exact, so a compiler's
    // contraction of it with the sum into an fma changes nothing.
    const double sign = (asked > 0.0 ? 1.0 : 0.0) - (asked < 0.0 ? 1.0 : 0.0);
    requested[lane] += std::fabs(asked);
    applied[lane] += (a - b) * sign;
  }

  [[nodiscard]] update_pass total() const {
    static_assert(update_sum_lanes == 8, "the lane tree below adds eight lanes");
    const auto tree = [](const double* l) { return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); };
    update_pass p;
    for (std::size_t k = 0; k < update_sum_lanes; ++k) {
      p.nonzero_delta += static_cast<std::uint64_t>(nonzero_delta[k]);
      p.unchanged += static_cast<std::uint64_t>(unchanged[k]);
      p.swamped += static_cast<std::uint64_t>(swamped[k]);
      p.non_finite = p.non_finite || non_finite[k] != 0.0;
    }
    p.requested = tree(requested);
    p.applied = tree(applied);
    return p;
  }
};

// Writes weight[i] <- after(i) and tallies it: whole blocks of eight lanes,
// then the tail, element i always into lane i mod 8.
template <typename After>
[[gnu::always_inline]] inline update_pass tally_loop(const float* before, const float* d, std::size_t n, float scale,
                                                     float* weight, After after) {
  tally_lanes t;
  const auto s = static_cast<double>(scale);
  std::size_t i = 0;
  for (; i + update_sum_lanes <= n; i += update_sum_lanes) {
    // A block's loads before its stores: `before` may be `weight`, and this
    // order lets the compiler take the block as vectors all the same.
    float b[update_sum_lanes], a[update_sum_lanes], dir[update_sum_lanes];
    for (std::size_t k = 0; k < update_sum_lanes; ++k) {
      b[k] = before[i + k];
      a[k] = after(i + k);
      dir[k] = d[i + k];
    }
    for (std::size_t k = 0; k < update_sum_lanes; ++k) t.add(k, b[k], a[k], dir[k], s);
    for (std::size_t k = 0; k < update_sum_lanes; ++k) weight[i + k] = a[k];
  }
  for (std::size_t k = 0; i + k < n; ++k) {
    const float b = before[i + k], a = after(i + k);
    t.add(k, b, a, d[i + k], s);
    weight[i + k] = a;
  }
  return t.total();
}

[[gnu::always_inline]] inline update_pass rounded_update_loop(const float* before, const float* after, const float* d,
                                                              std::size_t n, float scale, float* weight) {
  return tally_loop(before, d, n, scale, weight, [after](std::size_t i) { return after[i]; });
}
[[gnu::target("avx2,fma")]] update_pass rounded_update_loop_avx2(const float* before, const float* after,
                                                                 const float* d, std::size_t n, float scale,
                                                                 float* weight) {
  return rounded_update_loop(before, after, d, n, scale, weight);
}

[[gnu::always_inline]] inline update_pass fused_update_loop(const float* before, const float* d, std::size_t n,
                                                            float scale, float* weight) {
  return tally_loop(before, d, n, scale, weight, [=](std::size_t i) { return std::fma(scale, d[i], before[i]); });
}
[[gnu::target("avx2,fma")]] update_pass fused_update_loop_fma(const float* before, const float* d, std::size_t n,
                                                              float scale, float* weight) {
  return fused_update_loop(before, d, n, scale, weight);
}

}  // namespace

update_pass write_rounded_update(std::span<const float> before, std::span<const float> after,
                                 std::span<const float> direction, float scale, std::span<float> weight) {
  if (clones_run())
    return rounded_update_loop_avx2(before.data(), after.data(), direction.data(), weight.size(), scale,
                                    weight.data());
  return rounded_update_loop(before.data(), after.data(), direction.data(), weight.size(), scale, weight.data());
}

update_pass write_fused_update(std::span<const float> before, std::span<const float> direction, float scale,
                               std::span<float> weight) {
  if (clones_run()) return fused_update_loop_fma(before.data(), direction.data(), weight.size(), scale, weight.data());
  return fused_update_loop(before.data(), direction.data(), weight.size(), scale, weight.data());
}

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
