// Internal: the element pass of scaled_stats_of (scaled_stats.cpp) and its
// AVX-512 and AVX2 bodies (scaled_stats_avx512.cpp, scaled_stats_avx2.cpp), which add the same terms to the
// same partial sums in the same order, so both give the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace num::scaled_detail {

/// The running element statistics of one tensor. Plain arrays: the AVX-512
/// file may instantiate no library template (avx512_region.hpp).
struct element_sums {
  static constexpr std::size_t lanes = 8;
  double signal[lanes] = {};  ///< x², element i into lane i mod 8, in index order
  double noise[lanes] = {};   ///< (x - dequantized x)², likewise
  std::uint64_t finite = 0;   ///< finite inputs
  std::uint64_t nonzero = 0;  ///< nonzero finite inputs
  std::uint32_t amax_bits = 0;  ///< the bits of the largest finite |x|
};

/// Adds elements [0, n - n mod 16) of `in` and `dequantized` to `sums`,
/// where element 0 goes to lane 0; returns how many it added. Only called
/// where the CPU runs AVX-512.
std::size_t add_elements_avx512(const float* in, const float* dequantized, std::size_t n, element_sums& sums);

/// add_elements_avx512 on AVX2 (scaled_stats_avx2.cpp), for [0, n - n mod 8),
/// bit for bit. Only called where the CPU runs AVX2.
std::size_t add_elements_avx2(const float* in, const float* dequantized, std::size_t n, element_sums& sums);

}  // namespace num::scaled_detail
