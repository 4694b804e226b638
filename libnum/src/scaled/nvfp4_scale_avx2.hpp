// Internal: an NVFP4 block's E4M3 scale in scalar double arithmetic, for
// the AVX2 NVFP4 kernel (nvfp4_avx2.cpp), as nvfp4_scale_avx512.hpp computes
// it for the AVX-512 one. Include it inside the AVX2 region (after
// avx2_region.hpp): the arithmetic takes the MXCSR's rounding, which the
// dispatch has checked is to nearest.
#pragma once

#include <cstdint>

namespace num::scaled_detail {
namespace {

// A block's E4M3 scale: its code, its value (0: it rounded to zero), whether it saturated.
// (No member initializers: a group's array of them would be zeroed first.)
struct e4m3_scale {
  std::uint32_t code;
  double value;
  bool overflowed;
};

// S of one block from its amax (finite, > 0) and 6·s, as the AVX-512
// kernel's e4m3_block_scale (nvfp4_scale_avx512.hpp), in double arithmetic
// rounded to nearest (the MXCSR's, checked).
NUMLAB_INLINE e4m3_scale e4m3_scale_of(double amax, double six_s) {
  const double y = amax / six_s;
  // 464 is the midpoint of 448 and 480; its tie goes to even 448.
  if (y > 464.0) return {0x7E, 448.0, true};
  // Round y at E4M3's quantum 2^(max(e, -6) - 3) by adding 2^52 quanta.
  const auto y_bits = __builtin_bit_cast(std::uint64_t, y);
  const int e = static_cast<int>(y_bits >> 52) - 1023;
  const int quantum = (e > -6 ? e : -6) - 3;
  const double c = __builtin_bit_cast(double, static_cast<std::uint64_t>(quantum + 52 + 1023) << 52);
  const double r = (y + c) - c;
  if (r == 0) return {};
  const auto r_bits = __builtin_bit_cast(std::uint64_t, r);
  const int er = static_cast<int>(r_bits >> 52) - 1023;
  const auto code = er < -6 ? static_cast<std::uint32_t>(r * 512.0)  // subnormal: multiples of 2^-9
                            : static_cast<std::uint32_t>(((er + 7) << 3) | static_cast<int>((r_bits >> 49) & 7));
  return {code, r, false};
}

// The pattern of the smallest fp32 above p (> 0, below fp32's largest):
// |x| reaches it iff |x| > p.
std::uint32_t above_pattern(double p) {
  auto f = static_cast<float>(p);  // to nearest
  if (static_cast<double>(f) > p) f = __builtin_nextafterf(f, 0.0f);
  return __builtin_bit_cast(std::uint32_t, f) + 1;
}

}  // namespace
}  // namespace num::scaled_detail
