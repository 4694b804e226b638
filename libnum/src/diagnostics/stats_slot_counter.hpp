// Internal to the AVX-512 statistics kernel: exact counts of up to 64 slot
// numbers arriving 16 lanes at a time, without a memory increment per
// element.
//
// Each slot s becomes one set bit, bit s of a 64-bit word (the 16 lanes'
// slots make two vectors of 8 words: even lanes and odd lanes). Counting the
// slots is then counting set bits position by position over a stream of
// words, which a carry-save adder tree (Harley-Seal) does with two bitwise
// ternary ops per vector: level k holds, per word lane and bit position, bit k
// of the running count. Every 2^levels vectors the tree emits one vector of
// weight 2^levels, which is spread into byte counters (one per word lane,
// byte and bit), and those into 64-bit totals before a byte can wrap.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstdint>
#include <span>

#define NUM_SLOT_COUNTER_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), always_inline)) inline

namespace num::detail {

class slot_counter {
 public:
  /// Carry-save levels: add_group consumes 2^(levels - 1) slot vectors.
  static constexpr int levels = 5;
  static constexpr std::size_t group_steps = std::size_t{1} << (levels - 1);
  static constexpr std::size_t max_slots = 64;

  NUM_SLOT_COUNTER_TARGET slot_counter() {
    for (int k = 0; k < levels; ++k) level_[k] = _mm512_setzero_si512();
    for (int b = 0; b < 8; ++b) bytes_[b] = _mm512_setzero_si512();
  }

  /// Counts the slots (each in [0, 64)) of group_steps vectors of 16, the
  /// i-th returned by the i-th call of next().
  template <class Next>
  NUM_SLOT_COUNTER_TARGET void add_group(Next&& next) {
    flush(combine<levels>(next));
  }

  /// Counts the 16 slots of one vector (for what is left after the groups).
  NUM_SLOT_COUNTER_TARGET void add_one(__m512i slot) {
    const one_hot bits = one_hot_of(slot);
    __m512i carry = carry_save(level_[0], bits.even, bits.odd);
    for (int k = 1; k < levels; ++k) {
      const __m512i next_carry = _mm512_and_si512(level_[k], carry);
      level_[k] = _mm512_xor_si512(level_[k], carry);
      carry = next_carry;
    }
    flush(carry);
  }

  /// Adds the counts so far to slots[0 .. 64).
  NUM_SLOT_COUNTER_TARGET void add_to(std::span<std::uint64_t, max_slots> slots) {
    widen();
    alignas(64) std::array<std::uint64_t, 8> words;
    for (int k = 0; k < levels; ++k) {
      _mm512_store_si512(words.data(), level_[k]);
      for (std::uint64_t w : words) {
        for (; w != 0; w &= w - 1) slots[static_cast<std::size_t>(__builtin_ctzll(w))] += std::uint64_t{1} << k;
      }
    }
    for (std::size_t s = 0; s < max_slots; ++s) slots[s] += totals_[s];
  }

 private:
  struct one_hot {
    __m512i even, odd;  // bit `slot` set in each 64-bit word, for lanes 2i and 2i + 1
  };

  NUM_SLOT_COUNTER_TARGET static one_hot one_hot_of(__m512i slot) {
    const __m512i one = _mm512_set1_epi64(1);
    return {_mm512_sllv_epi64(one, _mm512_maskz_mov_epi32(0x5555, slot)),
            _mm512_sllv_epi64(one, _mm512_srli_epi64(slot, 32))};
  }

  // Carry-save addition: level += a + b leaves the sum bit in level and
  // returns the carry (weight twice the level's).
  NUM_SLOT_COUNTER_TARGET static __m512i carry_save(__m512i& level, __m512i a, __m512i b) {
    const __m512i carry = _mm512_ternarylogic_epi64(level, a, b, 0xE8);  // majority
    level = _mm512_ternarylogic_epi64(level, a, b, 0x96);                // parity
    return carry;
  }

  // Adds 2^Level one-hot vectors (2^(Level - 1) slot vectors from next())
  // into levels [0, Level) and returns the carry out of level Level - 1, of
  // weight 2^Level.
  template <int Level, class Next>
  NUM_SLOT_COUNTER_TARGET __m512i combine(Next& next) {
    if constexpr (Level == 1) {
      const one_hot bits = one_hot_of(next());
      return carry_save(level_[0], bits.even, bits.odd);
    } else {
      const __m512i a = combine<Level - 1>(next);
      const __m512i b = combine<Level - 1>(next);
      return carry_save(level_[Level - 1], a, b);
    }
  }

  // Adds a vector of weight 2^levels: bit b of byte j goes to byte counter b.
  NUM_SLOT_COUNTER_TARGET void flush(__m512i top) {
    const __m512i low_bit = _mm512_set1_epi8(1);
    for (int b = 0; b < 8; ++b) {
      bytes_[b] = _mm512_add_epi8(bytes_[b], _mm512_and_si512(_mm512_srli_epi16(top, b), low_bit));
    }
    if (++flushes_ == 255) widen();
  }

  // Moves the byte counters into the totals before any can wrap.
  NUM_SLOT_COUNTER_TARGET void widen() {
    alignas(64) std::array<std::uint8_t, 64> bytes;
    for (int b = 0; b < 8; ++b) {
      _mm512_store_si512(bytes.data(), bytes_[b]);
      // Byte j holds word lane j / 8's bit 8 * (j % 8) + b.
      for (std::size_t j = 0; j < bytes.size(); ++j) {
        totals_[8 * (j % 8) + static_cast<std::size_t>(b)] += std::uint64_t{bytes[j]} << levels;
      }
      bytes_[b] = _mm512_setzero_si512();
    }
    flushes_ = 0;
  }

  __m512i level_[levels];  // carry-save levels, weight 2^k
  __m512i bytes_[8];       // counts of weight 2^levels
  unsigned flushes_ = 0;   // since the byte counters were last widened
  std::array<std::uint64_t, max_slots> totals_{};
};

}  // namespace num::detail

#undef NUM_SLOT_COUNTER_TARGET
