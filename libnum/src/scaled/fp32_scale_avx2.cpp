// The AVX2 element rounding under an fp32 block scale D, for CPUs without
// AVX-512: fp32_scale_avx512.cpp's algorithm (its header comment says why
// it is exact) on four double lanes per register (exact_quotient_avx2.hpp),
// eight elements a step. That exact way is the fallback: most eight-lane
// steps round from an approximate fp32 quotient instead
// (fp32_quotient_avx2.hpp). Stochastic rounding always takes the exact
// way, its words drawn by the AVX2 Philox4x32-10 (philox_window.hpp).
// Hand-written SIMD is the product here; before it, FP8 per-tensor and
// blockwise quantization ran the scalar path on such CPUs, about 80% of an
// fp8-delayed training step of the tutorial conv (perf, AMD EPYC).
//
// AVX2 has no per-instruction rounding: the division and the FMA take the
// MXCSR's, which fp32_kernel_avx2_usable checks is to nearest.
#include <cstdint>
#include <optional>

#include "libnum/cpu_features.hpp"
#include "kernels/random_word_bits.hpp"
#include "fp32_scale_kernel.hpp"

namespace num::scaled_detail {

// Outside the AVX2 region (one stmxcsr each).
bool fp32_kernel_avx2_usable() { return mxcsr_rounds_to_nearest() && !mxcsr_flushes_subnormals(); }

}  // namespace num::scaled_detail

// The AVX2 region opens after every other header (see avx2_region.hpp).
#include "avx2_region.hpp"
#include "exact_quotient_avx2.hpp"
#include "fp32_quotient_avx2.hpp"
#include "kernels/philox_avx2.hpp"
#include "mode_dispatch.hpp"
#include "philox_window.hpp"

namespace num::scaled_detail {
namespace {

using random_window8 = philox_window<kernels::philox_avx2_isa>;

// Per-lane counts of a run's elements: an all-ones lane is -1, so
// subtracting a lane mask counts its lanes (a scalar popcount per mask and
// a read-modify-write of the caller's counts per step was the kernel's
// longest chain).
struct lane_counts {
  __m256i inexact, saturated, flushed, flushed_sure;

  // (A constructor of its own: GCC compiles an implicit one outside the AVX2 region.)
  NUMLAB_INLINE lane_counts()
      : inexact(_mm256_setzero_si256()),
        saturated(_mm256_setzero_si256()),
        flushed(_mm256_setzero_si256()),
        flushed_sure(_mm256_setzero_si256()) {}

  static NUMLAB_INLINE std::uint64_t total(__m256i v) {
    alignas(32) std::uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3];
  }
  NUMLAB_INLINE void add_to(fp32_segment_counts& counts) const {
    counts.inexact += total(inexact);
    counts.saturated += total(saturated);
    counts.flushed += total(flushed);
    counts.flushed_sure += total(flushed_sure);
  }
};

template <rounding Mode>
class fp32_elements4 {
 public:
  explicit fp32_elements4(const fp32_kernel_setup& k)
      : grid_(k.precision, k.emin, k.max_code, k.spec.tiny == tininess::after_rounding),
        bound_(_mm256_set1_pd(k.lone_scale_fits_above)) {}

  // Four elements: their codes (sign included) in 64-bit lanes; `random`:
  // stochastic rounding's words (else null).
  NUMLAB_INLINE __m256i four(__m128 x, __m256d d, lane_counts& counts, bool& underflow,
                             const random_bits4* random = nullptr) {
    const __m256d xd = _mm256_cvtps_pd(x);
    const __m256i negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), _mm256_castpd_si256(xd));
    const __m256d ax = _mm256_castsi256_pd(_mm256_and_si256(_mm256_castpd_si256(xd), splat64(0x7FFFFFFFFFFFFFFF)));
    const rounded_quotients4 r = round_quotients4<Mode>(ax, negative, d, grid_, !underflow, random);
    const __m256i flushed = _mm256_and_si256(r.nonzero, _mm256_cmpeq_epi64(r.code, _mm256_setzero_si256()));
    counts.inexact = _mm256_sub_epi64(counts.inexact, _mm256_or_si256(r.inexact, r.saturated));
    counts.saturated = _mm256_sub_epi64(counts.saturated, r.saturated);
    counts.flushed = _mm256_sub_epi64(counts.flushed, flushed);
    counts.flushed_sure = _mm256_sub_epi64(
        counts.flushed_sure, _mm256_and_si256(flushed, _mm256_castpd_si256(_mm256_cmp_pd(ax, bound_, _CMP_GT_OQ))));
    underflow = underflow || r.tiny;
    return _mm256_or_si256(r.code, _mm256_and_si256(negative, splat64(0x80)));
  }

 private:
  const element_grid4 grid_;
  const __m256d bound_;
};

// Two quarters' codes (below 2^8 in 64-bit lanes) as eight bytes.
NUMLAB_INLINE __m128i code_bytes(__m256i first, __m256i second) {
  const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const __m128i a = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(first, low_halves));
  const __m128i b = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(second, low_halves));
  const __m128i words = _mm_packs_epi32(a, b);
  return _mm_packus_epi16(words, words);
}

template <rounding Mode>
void run(const fp32_kernel_setup& k, const float* in, std::uint8_t* codes, std::size_t n, double d,
         fp32_segment_counts& counts, std::uint64_t first_word) {
  fp32_elements4<Mode> kernel(k);
  const __m256d dv = _mm256_set1_pd(d);
  lane_counts lanes;
  bool underflow = counts.underflow;
  std::size_t i = 0;
  // Stochastic rounding's words: element i takes word first_word + i (a
  // partial tail's missing lanes round zeros with theirs: nothing counts).
  std::optional<random_window8> random;
  if constexpr (Mode == rounding::stochastic) random.emplace(k.seed, k.stream, first_word);
  const __m256i top = splat64(kernels::random_word_top_bits(k.spec.random_bits));
  // Four elements from x, the first or second half (`half`) of the eight from element j on.
  auto four = [&](const float* x, std::size_t j, int half) {
    if constexpr (Mode == rounding::stochastic) {
      const std::uint32_t* w = random->cover(first_word + j, 8) + 4 * half;
      const random_bits4 bits{
          _mm256_and_si256(_mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w))), top)};
      return kernel.four(_mm_loadu_ps(x), dv, lanes, underflow, &bits);
    } else {
      return kernel.four(_mm_loadu_ps(x), dv, lanes, underflow);
    }
  };
  auto exact_eight = [&](const float* x, std::size_t j) {
    const __m256i first = four(x, j, 0);
    return code_bytes(first, four(x + 4, j, 1));
  };
  if constexpr (Mode != rounding::stochastic) {
    // Eight lanes from the approximate quotient where none is near a
    // boundary, else four and four on the exact way. RN32(RN64(1 / d)): the
    // MXCSR rounds to nearest here.
    const auto reciprocal = static_cast<float>(1.0 / d);
    if (fp32_quotient_rule::usable(reciprocal)) {
      const fp32_quotient_rounding8<Mode> fast(k, reciprocal);
      for (; i + 8 <= n; i += 8) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
        if (fast.eight(x, codes + i, counts, underflow)) continue;
        _mm_storel_epi64(reinterpret_cast<__m128i*>(codes + i), exact_eight(in + i, i));
      }
    }
  }
  for (; i + 8 <= n; i += 8) _mm_storel_epi64(reinterpret_cast<__m128i*>(codes + i), exact_eight(in + i, i));
  if (i < n) {
    // The tail through buffers: zeros past it change no count.
    alignas(16) float tail[8] = {};
    __builtin_memcpy(tail, in + i, (n - i) * sizeof(float));
    alignas(16) std::uint8_t bytes[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(bytes), exact_eight(tail, i));
    __builtin_memcpy(codes + i, bytes, n - i);
  }
  lanes.add_to(counts);
  counts.underflow = underflow;
}

}  // namespace

void fp32_scaled_elements_avx2(const fp32_kernel_setup& k, const float* in, std::uint8_t* codes, std::size_t n,
                               double d, fp32_segment_counts& counts, std::uint64_t first_word) {
  with_mode(k.spec.mode, [&](auto mode) { run<mode.value>(k, in, codes, n, d, counts, first_word); });
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
