// Philox4x32-10 against the published known-answer vectors, and the word
// layout the array kernels rely on (word i = word i mod 4 of block i / 4 at
// counter (i / 4, stream), key = seed).
//
// Source of the vectors: Random123 1.14 (D. E. Shaw Research), file
// tests/kat_vectors, the three "philox4x32 10" lines. Columns: name,
// rounds, counter (4 words), key (2 words), expected output (4 words).
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
