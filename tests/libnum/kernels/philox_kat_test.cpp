// Philox4x32-10 against the published known-answer vectors, and the word
// layout the array kernels rely on (word i = word i mod 4 of block i / 4 at
// counter (i / 4, stream), key = seed).
//
// Source of the vectors: Random123 1.14 (D. E. Shaw Research), file
// tests/kat_vectors, the three "philox4x32 10" lines. Columns: name,
// rounds, counter (4 words), key (2 words), expected output (4 words).
// Those are single blocks; the words of later blocks of one stream (which a
// wrong counter increment or block order would change) come from
// philox_reference.py, Philox in Python integers that reproduces the three
// published vectors first.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "kernel_oracle.hpp"

namespace {

using namespace kernel_test;

struct known_answer {
  std::array<std::uint32_t, 4> counter;
  std::array<std::uint32_t, 2> key;
  std::array<std::uint32_t, 4> expected;
};

constexpr known_answer random123_vectors[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

std::uint64_t join(std::uint32_t low, std::uint32_t high) { return std::uint64_t{high} << 32 | low; }

TEST(PhiloxKnownAnswers, MatchRandom123) {
  for (const known_answer& v : random123_vectors) {
    EXPECT_EQ(num::philox4x32_10(v.counter, v.key), v.expected) << std::hex << v.counter[0];
    // The same block through the stream layout: counter = (block, stream), key = seed.
    const num::random_stream stream(join(v.key[0], v.key[1]), join(v.counter[2], v.counter[3]));
    const std::uint64_t block = join(v.counter[0], v.counter[1]);
    EXPECT_EQ(stream.block(block), v.expected);
    // Word indices are 64-bit, so only blocks below 2^62 have words.
    if (block < std::uint64_t{1} << 62) {
      for (std::uint64_t j = 0; j < 4; ++j) EXPECT_EQ(stream.word(4 * block + j), v.expected[j]);
    }
  }
}

constexpr std::uint64_t reference_seed = 0x0123456789ABCDEFull;
constexpr std::uint64_t reference_stream = 0x0000000500000003ull;

// philox_reference.py: blocks 0, 1, 2, 3, 16, 17 and 2^32 + 5 of
// random_stream(reference_seed, reference_stream).
struct reference_block {
  std::uint64_t index;
  std::array<std::uint32_t, 4> words;
};
constexpr reference_block reference_blocks[] = {
    {0, {0x7a0ef614, 0x984ccb03, 0xd9a830f0, 0xfb2c4f7f}},
    {1, {0xe60b54f1, 0xf9c796b8, 0x758d56c5, 0xc0560595}},
    {2, {0x41119c42, 0xf3f8e31a, 0xa2f1d918, 0x8e0346e9}},
    {3, {0xd7139f35, 0x5c3cbcfb, 0x9a817c0c, 0x61196aab}},
    {16, {0x661eb2f3, 0x43e5a01e, 0x89858583, 0xb292f608}},
    {17, {0x493d400f, 0xb8b2ca12, 0x30d43fec, 0x3851b245}},
    {(std::uint64_t{1} << 32) + 5, {0x49f7a65c, 0x7a340567, 0x9c587011, 0x49db0355}},
};

// philox_reference.py: bit k % 32 of entry k / 32 is the top bit of word k
// (full_word draws) or of the half-word draw at position k, k < 640.
constexpr std::uint32_t full_word_top_bits[] = {
    0x5ad05ebe, 0x6182fbc1, 0x1c08d12c, 0xc98f4955, 0x87c16e89, 0x7f5ca568, 0x966aae70,
    0xa5a3ce76, 0xdeb92d7b, 0x5edf11ff, 0x16a6b33e, 0x15f0762c, 0xdd65f9e9, 0x56e12c09,
    0x28e965a7, 0x97c6d9f0, 0xc0ffa1e9, 0x1af9a5fc, 0x9bb661b9, 0x01b29f11};
constexpr std::uint32_t half_word_top_bits[] = {
    0x27bd8ead, 0x36cce355, 0xfacae412, 0x7d568558, 0xb2164cf5, 0x52e015c4, 0x20966772,
    0xb5d2c0fb, 0x69bc8082, 0x953fa106, 0xd8737c84, 0x7ffa26f0, 0x9cfc7b00, 0x972d78c9,
    0xe5f86e78, 0x89638c5e, 0x58b72ace, 0xa7ed8fc7, 0x5656fbbb, 0x33f8e7ef};
constexpr std::size_t reference_positions = 32 * std::size(full_word_top_bits);

bool top_bit(const std::uint32_t (&bits)[20], std::uint64_t k) { return (bits[k / 32] >> (k % 32) & 1u) != 0; }

TEST(PhiloxKnownAnswers, LaterBlocksOfAStream) {
  const num::random_stream stream(reference_seed, reference_stream);
  for (const reference_block& b : reference_blocks) {
    EXPECT_EQ(stream.block(b.index), b.words) << "block " << b.index;
    for (std::uint64_t j = 0; j < 4; ++j) EXPECT_EQ(stream.word(4 * b.index + j), b.words[j]) << "block " << b.index;
  }
  // fill from an unaligned word across the block boundaries 0|1|2|3.
  std::vector<std::uint32_t> run(13);
  stream.fill(run, 3);
  for (std::size_t k = 0; k < run.size(); ++k) {
    const std::uint64_t word = 3 + k;
    EXPECT_EQ(run[k], reference_blocks[word / 4].words[word % 4]) << "word " << word;
  }
  for (std::uint64_t k = 0; k < reference_positions; ++k) {
    ASSERT_EQ(stream.word(k) >> 31 != 0, top_bit(full_word_top_bits, k)) << "word " << k;
  }
}

// Every path's generator over hundreds of consecutive positions, through
// fp16 stochastic rounding of x = 1 + 2^-11 (halfway between neighbours: up
// exactly when the draw's top bit is set, for full words at r = 32 and for
// half-words at r = 16), from an aligned and an unaligned first index, in
// the 16-bit shortcut and the general lane algorithm (round_array of fp64).
TEST(PhiloxKnownAnswers, KernelsWalkTheStreamInOrder) {
  const std::size_t n = reference_positions - 8;
  const std::vector<float> in(n, 1.0f + 0x1p-11f);
  const std::vector<double> in64(n, 1.0 + 0x1p-11);
  for (num::simd_path path : all_paths) {
    if (!num::simd_path_supported(path)) continue;
    for (num::random_draws draws : {num::random_draws::full_word, num::random_draws::half_word}) {
      const auto& bits = draws == num::random_draws::full_word ? full_word_top_bits : half_word_top_bits;
      for (std::uint64_t first : {std::uint64_t{0}, std::uint64_t{5}}) {
        num::array_options o;
        o.spec.mode = num::rounding::stochastic;
        o.spec.random_bits = num::random_draws_max_bits(draws);
        o.draws = draws;
        o.seed = reference_seed;
        o.stream = reference_stream;
        o.first_index = first;
        o.path = path;
        std::vector<std::uint16_t> codes(n);
        std::vector<float> values(n);
        num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(codes), o);
        num::round_array(std::span<const double>(in64), std::span<float>(values), o);
        for (std::size_t i = 0; i < n; ++i) {
          const bool up = top_bit(bits, first + i);
          ASSERT_EQ(codes[i], up ? 0x3C01 : 0x3C00) << describe(o) << " first " << first << " element " << i;
          ASSERT_EQ(values[i], up ? 1.0f + 0x1p-10f : 1.0f) << describe(o) << " fp64, first " << first << " element " << i;
        }
      }
    }
  }
}

// The vectorised generators of the SIMD paths, seen through stochastic
// rounding to fp16: x = 1 + 2^-11 lies halfway between neighbours and rounds
// up exactly when its word is >= 2^31; x = 1 + 2^-12, when it is >= 3 * 2^30.
// The all-zero vector is block 0 of stream 0 under seed 0: elements 0..3 of
// a call from index 0, inside the kernels' vector loop.
TEST(PhiloxKnownAnswers, KernelsUseTheKnownWords) {
  const known_answer& v = random123_vectors[0];
  std::vector<float> in(256);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = i % 2 == 0 ? 1.0f + 0x1p-11f : 1.0f + 0x1p-12f;
  for (num::simd_path path : all_paths) {
    if (!num::simd_path_supported(path)) continue;
    num::array_options o;
    o.spec.mode = num::rounding::stochastic;
    o.path = path;
    std::vector<std::uint16_t> codes(in.size());
    std::vector<float> values(in.size());
    num::encode_array(std::span<const float>(in), std::span<std::uint16_t>(codes), o);
    num::round_array(std::span<const float>(in), std::span<float>(values), o);
    for (std::size_t i = 0; i < 4; ++i) {
      const std::uint32_t threshold = i % 2 == 0 ? 0x80000000u : 0xC0000000u;
      const bool up = v.expected[i] >= threshold;
      EXPECT_EQ(codes[i], up ? 0x3C01 : 0x3C00) << num::simd_path_name(path) << " word " << i;
      EXPECT_EQ(values[i], up ? 1.0f + 0x1p-10f : 1.0f) << num::simd_path_name(path) << " word " << i;
    }
  }
}

}  // namespace
