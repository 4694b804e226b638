// Internal: the random words of one row of blocks for the scaled-format
// kernels, from the vectorised Philox4x32-10 the array kernels use, on the
// instruction set of the Philox traits `Isa` (philox_avx512.hpp,
// philox_avx2.hpp). Include inside the kernel file's target region, after
// the traits' header (random_window.hpp does for AVX-512).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/philox_blocks.hpp"

namespace num::scaled_detail {
namespace {

// Words of random_stream(seed, stream) for increasing positions, held in an
// L1-sized buffer. They are drawn with the traits' sets_in_flight register
// sets (four on AVX-512: 128 words a call; three on AVX2: 48 words, since
// four sets spill AVX2's sixteen registers), from round keys broadcast once
// per window rather than once per call (the array kernels' measurements,
// bench/RESULTS.md, issue 13, sessions 9 and 14). A kernel asks for a whole
// group of blocks' words at once (cover()), so that the drawing runs as its
// own loop before the rounding loop instead of inside it, where the two
// loops' live registers spilled (bench/RESULTS.md, issue 15, sessions 11
// and 12).
template <class Isa>
class philox_window {
 public:
  /// The most words one cover() may ask for.
  static constexpr std::size_t max_cover = 512;

  philox_window(std::uint64_t seed, std::uint64_t stream, std::uint64_t first)
      : keys_(seed), stream_(stream), start_(first & ~std::uint64_t{3}) {}

  // Words position .. position + count - 1 (count <= max_cover; position
  // never decreases from one call to the next).
  NUMLAB_INLINE const std::uint32_t* cover(std::uint64_t position, std::size_t count) {
    const std::uint64_t end = position + count;
    if (end > start_ + held_) refill(position, end);
    return words_ + (position - start_);
  }

  // Words position .. position + 31.
  NUMLAB_INLINE const std::uint32_t* at(std::uint64_t position) { return cover(position, 32); }

 private:
  static constexpr int sets = Isa::sets_in_flight;
  // One Philox call: `sets` registers of Isa::blocks_per_register blocks of four words.
  static constexpr std::size_t run_words = std::size_t{4} * Isa::blocks_per_register * sets;
  // A refill keeps fewer than count + 4 words and overshoots by fewer than run_words.
  static constexpr std::size_t capacity = max_cover + 4 + run_words;

  NUMLAB_INLINE void refill(std::uint64_t position, std::uint64_t end) {
    // Drop the words before position's Philox block (a multiple of 4, so
    // the words held stay whole blocks); keep the rest.
    const std::uint64_t keep_from = position & ~std::uint64_t{3};
    if (keep_from >= start_ + held_) {
      held_ = 0;
    } else {
      const auto dropped = static_cast<std::size_t>(keep_from - start_);
      held_ -= dropped;
      __builtin_memmove(words_, words_ + dropped, held_ * sizeof(std::uint32_t));
    }
    start_ = keep_from;
    while (start_ + held_ < end) {
      kernels::philox_blocks<Isa, sets>(keys_, stream_, (start_ + held_) / 4, words_ + held_);
      held_ += run_words;
    }
  }

  kernels::philox_round_keys<Isa> keys_;
  std::uint64_t stream_;
  std::uint64_t start_;   // the position of words_[0], a multiple of 4
  std::size_t held_ = 0;  // words_[0 .. held_) are drawn
  alignas(64) std::uint32_t words_[capacity];
};

}  // namespace
}  // namespace num::scaled_detail
