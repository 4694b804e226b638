// How many threads an array call runs on: conversion_result::threads is the
// OpenMP team the call actually ran (1 = the caller's thread, no pool woken).
// A short array stays on the caller's thread even with threads = 0; the
// automatic threshold follows the kernel's cost per element, so a long
// stochastic array splits where a nearest-even one of the same length does
// not, and an fp64 array splits shorter than an fp32 one; a forced split
// reports its team.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "libnum/array.hpp"

namespace {

template <class T = float>
num::conversion_result encode(std::size_t n, const num::format& f, num::rounding mode, unsigned threads,
                              std::optional<std::size_t> threshold = std::nullopt) {
  const std::vector<T> in(n, T(1) / T(3));
  std::vector<std::uint16_t> out16(n);
  std::vector<std::uint8_t> out8(n);
  num::array_options o;
  o.target = f;
  o.spec.mode = mode;
  o.threads = threads;
  o.parallel_threshold = threshold;
  if (f.total_bits() == 8) return num::encode_array(std::span<const T>(in), std::span<std::uint8_t>(out8), o);
  return num::encode_array(std::span<const T>(in), std::span<std::uint16_t>(out16), o);
}

constexpr std::size_t small = std::size_t{1} << 14;
constexpr std::size_t long_array = std::size_t{1} << 18;

TEST(ArrayThreads, SmallCallsStayOnTheCallersThreadWithThreadsZero) {
  EXPECT_EQ(encode(small, num::binary16, num::rounding::nearest_even, 0).threads, 1u);
  EXPECT_EQ(encode(small, num::bfloat16_format, num::rounding::nearest_even, 0).threads, 1u);
  EXPECT_EQ(encode(small, num::binary16, num::rounding::stochastic, 0).threads, 1u);
  EXPECT_EQ(encode(small, num::fp8_e4m3, num::rounding::nearest_even, 0).threads, 1u);
  EXPECT_EQ(encode(small, num::fp8_e4m3, num::rounding::stochastic, 0).threads, 1u);
  EXPECT_EQ(encode(small, num::binary16, num::rounding::stochastic, 2).threads, 1u);
}

TEST(ArrayThreads, TheAutomaticThresholdFollowsTheKernelsCost) {
  // 2^18 elements: about 9 us of nearest-even work (below eight fork-joins)
  // but 140 us of stochastic rounding (well above).
  EXPECT_EQ(encode(long_array, num::binary16, num::rounding::nearest_even, 2).threads, 1u);
  EXPECT_EQ(encode(long_array, num::binary16, num::rounding::stochastic, 2).threads, 2u);
  EXPECT_EQ(encode(long_array, num::fp8_e4m3, num::rounding::nearest_even, 2).threads, 2u);
}

TEST(ArrayThreads, TheAutomaticThresholdFollowsTheInputType) {
  // A thread per threshold elements. 2^15 elements of stochastic rounding:
  // about 17 us from fp32 (below eight fork-joins; threshold 35K) but 58 us
  // from fp64 (threshold 10K).
  constexpr std::size_t n = std::size_t{1} << 15;
  EXPECT_EQ(encode<float>(n, num::binary16, num::rounding::stochastic, 2).threads, 1u);
  EXPECT_EQ(encode<double>(n, num::binary16, num::rounding::stochastic, 2).threads, 2u);
  EXPECT_EQ(encode<double>(n, num::bfloat16_format, num::rounding::stochastic, 2).threads, 2u);
  // fp64 nearest-even (threshold 141K): 2^18 elements stay on one thread,
  // 2^19 split, where fp32's cost (threshold 511K) would not split them.
  EXPECT_EQ(encode<double>(std::size_t{1} << 18, num::binary16, num::rounding::nearest_even, 2).threads, 1u);
  EXPECT_EQ(encode<double>(std::size_t{1} << 19, num::binary16, num::rounding::nearest_even, 2).threads, 2u);
}

TEST(ArrayThreads, AnExplicitThresholdSetsTheFewestElementsPerThread) {
  EXPECT_EQ(encode(4096, num::binary16, num::rounding::nearest_even, 3, 0).threads, 3u);
  EXPECT_EQ(encode(4096, num::binary16, num::rounding::nearest_even, 3, 2048).threads, 2u);
  EXPECT_EQ(encode(4096, num::binary16, num::rounding::nearest_even, 3, 4097).threads, 1u);
  EXPECT_EQ(encode(4096, num::binary16, num::rounding::nearest_even, 1, 0).threads, 1u);
}

}  // namespace
