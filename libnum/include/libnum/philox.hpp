// Philox4x32-10, the counter-based random generator behind stochastic rounding.
//
// Random words are a pure function of (seed, stream, index): a result never
// depends on thread count, chunking or call order.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace num {

/// One Philox4x32-10 block: four 32-bit words from a 128-bit counter and a 64-bit key.
constexpr std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> counter,
                                                     std::array<std::uint32_t, 2> key) {
  constexpr std::uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
  constexpr std::uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t{m0} * counter[0];
    const std::uint64_t p1 = std::uint64_t{m1} * counter[2];
    counter = {static_cast<std::uint32_t>(p1 >> 32) ^ counter[1] ^ key[0], static_cast<std::uint32_t>(p1),
               static_cast<std::uint32_t>(p0 >> 32) ^ counter[3] ^ key[1], static_cast<std::uint32_t>(p0)};
    key[0] += w0;
    key[1] += w1;
  }
  return counter;
}

/// An addressable stream of random words keyed by (seed, stream): word i is
/// word (i mod 4) of the Philox block at counter (i / 4, stream).
class random_stream {
 public:
  constexpr random_stream(std::uint64_t seed = 0, std::uint64_t stream = 0) : seed_(seed), stream_(stream) {}

  /// The random word at position `index`.
  constexpr std::uint32_t word(std::uint64_t index) const { return block(index / 4)[index % 4]; }

  /// The four words at positions 4*block_index .. 4*block_index+3.
  constexpr std::array<std::uint32_t, 4> block(std::uint64_t block_index) const {
    return philox4x32_10({static_cast<std::uint32_t>(block_index), static_cast<std::uint32_t>(block_index >> 32),
                          static_cast<std::uint32_t>(stream_), static_cast<std::uint32_t>(stream_ >> 32)},
                         {static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32)});
  }

  /// Writes the words at positions first, first+1, ... into out.
  void fill(std::span<std::uint32_t> out, std::uint64_t first) const;

  constexpr std::uint64_t seed() const { return seed_; }
  constexpr std::uint64_t stream() const { return stream_; }

 private:
  std::uint64_t seed_;
  std::uint64_t stream_;
};

/// Where stochastic rounding takes each element's random word from, in a
/// random_stream(seed, stream). Every choice is a pure function of (seed,
/// stream, position), so results stay independent of threads and chunking.
enum class random_draws : std::uint8_t {
  /// The element at position g takes word g: one Philox4x32-10 word per
  /// element, any r in 1..32. The default, and the stream every result
  /// recorded before session 8 used.
  full_word,
  /// The element at position g takes a 16-bit half of word g / 2 (the low
  /// half for even g, the high half for odd g) as the top bits of its word,
  /// the low 16 bits zero: half the Philox work per element. Only for
  /// r <= 16 (stochastic rounding reads the word's top r bits), where each
  /// element still gets r independent uniform bits.
  half_word,
};

/// "full-word", "half-word".
constexpr std::string_view random_draws_name(random_draws d) {
  return d == random_draws::half_word ? "half-word" : "full-word";
}

/// Parses a random_draws name; throws std::invalid_argument naming the text.
inline random_draws parse_random_draws(std::string_view text) {
  for (random_draws d : {random_draws::full_word, random_draws::half_word}) {
    if (text == random_draws_name(d)) return d;
  }
  throw std::invalid_argument("random draws '" + std::string(text) + "' is not one of full-word, half-word");
}

/// The most random bits r a stochastic rounding may read from draws d.
constexpr int random_draws_max_bits(random_draws d) { return d == random_draws::half_word ? 16 : 32; }

/// The 32-bit random word of the element at `position` under draws d (see
/// random_draws); stochastic rounding reads its top r bits (random_draw).
constexpr std::uint32_t draw_word(const random_stream& s, random_draws d, std::uint64_t position) {
  if (d == random_draws::full_word) return s.word(position);
  const std::uint32_t w = s.word(position / 2);
  return position % 2 == 0 ? w << 16 : w & 0xFFFF0000u;
}

}  // namespace num
