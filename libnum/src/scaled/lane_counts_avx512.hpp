// Internal: per-lane counters of the AVX-512 block kernels' masks. Adding a
// mask to a vector of sixteen 32-bit counters is one masked add, where a
// popcount takes a move to a general register, the count and an add per
// mask (measured on the NVFP4 kernel: bench/RESULTS.md, issue 15, session
// 10). Include after avx512_region.hpp.
#pragma once

#include <cstdint>

namespace num::scaled_detail {
namespace {

/// How many times each of sixteen lanes was set, over at most 2^32 - 1 masks
/// between two calls of take() (a lane counts at most once per mask).
class lane_counts {
 public:
  // Explicit: GCC compiles an implicit constructor outside the AVX-512 region.
  lane_counts() : counts_(_mm512_setzero_si512()) {}

  // One merge-masked add of a broadcast 1, written as asm: through the
  // intrinsic GCC 12 copies the counters around it, and the subtraction of
  // the mask as all-ones lanes it replaces took two instructions
  // (vpmovm2d, vpsubd). NVFP4 nearest-even, tensor amax given, 16M values:
  // 5.05 -> 4.81 ms (interleaved best of 4, session 19).
  NUMLAB_INLINE void add(__mmask16 lanes) {
    static constexpr std::uint32_t one = 1;
    __asm__("vpaddd %[one]%{1to16%}, %[c], %[c]%{%[k]%}" : [c] "+v"(counts_) : [one] "m"(one), [k] "Yk"(lanes));
  }

  /// The total so far, in 64 bits (the lanes summed as 64-bit integers).
  NUMLAB_INLINE std::uint64_t total() const {
    const __m512i low = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(counts_));
    const __m512i high = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(counts_, 1));
    return static_cast<std::uint64_t>(_mm512_reduce_add_epi64(_mm512_add_epi64(low, high)));
  }

  /// total(), the counters starting again from zero.
  NUMLAB_INLINE std::uint64_t take() {
    const std::uint64_t sum = total();
    counts_ = _mm512_setzero_si512();
    return sum;
  }

 private:
  __m512i counts_;
};

}  // namespace
}  // namespace num::scaled_detail
