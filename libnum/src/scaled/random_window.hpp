// Internal: the random words of one row of blocks for the AVX-512
// scaled-format kernels, from the vectorised Philox4x32-10 the array kernels
// use. Include after avx512_region.hpp.
#pragma once

#include <cstdint>

#include "kernels/philox_avx512.hpp"

namespace num::scaled_detail {
namespace {

// Words of random_stream(seed, stream), 32 at a time from increasing positions:
// a window of 128 words at a multiple of 4, refilled 64 at a time.
class random_window {
 public:
  random_window(std::uint64_t seed, std::uint64_t stream, std::uint64_t first)
      : seed_(seed), stream_(stream), start_(first & ~std::uint64_t{3}) {
    kernels::philox_sixteen_blocks(seed_, stream_, start_ / 4, words_);
    kernels::philox_sixteen_blocks(seed_, stream_, start_ / 4 + 16, words_ + 64);
  }
  // Words position .. position + 31 (position never decreases).
  NUMLAB_INLINE const std::uint32_t* at(std::uint64_t position) {
    while (position + 32 > start_ + 128) {
      __builtin_memcpy(words_, words_ + 64, 64 * sizeof(std::uint32_t));
      start_ += 64;
      kernels::philox_sixteen_blocks(seed_, stream_, start_ / 4 + 16, words_ + 64);
    }
    return words_ + (position - start_);
  }

 private:
  std::uint64_t seed_, stream_, start_;
  alignas(64) std::uint32_t words_[128];
};

}  // namespace
}  // namespace num::scaled_detail
