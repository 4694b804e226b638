// The vectorised part of the oracle: each operation (fma too) rounded down and up by
// AVX-512's embedded rounding, in binary32 for fp16 (16 pairs an instruction)
// and in binary64 for bf16 (8 pairs). This file is compiled for AVX-512 F;
// nothing in it runs before oracle_row has checked the CPU.
#include <immintrin.h>

#include <array>
#include <cstdint>

#include "final_rounding.hpp"
#include "oracle_internal.hpp"

namespace certify::detail {
namespace {

// fp16 encoding -> binary32 encoding of the same value, in integer operations
// (NaNs keep sign and payload; signalling ones stay signalling).
std::uint32_t widen_fp16(std::uint32_t h) {
  const std::uint32_t sign = (h & 0x8000) << 16;
  const std::uint32_t field = (h >> 10) & 0x1F;
  std::uint32_t fraction = h & 0x3FF;
  if (field == 0x1F) return sign | 0x7F800000 | fraction << 13;
  if (field != 0) return sign | (field + 112) << 23 | fraction << 13;
  if (fraction == 0) return sign;
  // A subnormal, fraction * 2^-24: shift the leading bit into the hidden bit.
  int exponent = -14;  // the value's exponent once the leading bit sits at bit 10
  while ((fraction & 0x400) == 0) {
    fraction <<= 1;
    --exponent;
  }
  return sign | static_cast<std::uint32_t>(exponent + 127) << 23 | (fraction & 0x3FF) << 13;
}

// bf16 encoding -> binary64 encoding of the same value (bf16 is binary32's top
// half; binary64 has 29 more fraction bits and 3 more exponent bits).
std::uint64_t widen_bf16(std::uint32_t h) {
  const std::uint64_t sign = static_cast<std::uint64_t>(h & 0x8000) << 48;
  const std::uint64_t field = (h >> 7) & 0xFF;
  std::uint64_t fraction = h & 0x7F;
  if (field == 0xFF) return sign | 0x7FF0000000000000 | fraction << 45;
  if (field != 0) return sign | (field + 896) << 52 | fraction << 45;
  if (fraction == 0) return sign;
  int exponent = -126;  // the value's exponent once the leading bit sits at bit 7
  while ((fraction & 0x80) == 0) {
    fraction <<= 1;
    --exponent;
  }
  return sign | static_cast<std::uint64_t>(exponent + 1023) << 52 | (fraction & 0x7F) << 45;
}

constexpr int down = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
constexpr int up = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;

// op(a, b) (fma: a * b + c) rounded down and up, 16 binary32 lanes. The zero-masked forms with
// every lane selected: the unmasked intrinsics start from an undefined vector
// that GCC 12 reports as uninitialised.
template <operation op>
void both_roundings(__m512 a, __m512 b, __m512 c, __m512& lo, __m512& hi) {
  constexpr __mmask16 all = 0xFFFF;
  if constexpr (op == operation::add) {
    lo = _mm512_maskz_add_round_ps(all, a, b, down);
    hi = _mm512_maskz_add_round_ps(all, a, b, up);
  } else if constexpr (op == operation::sub) {
    lo = _mm512_maskz_sub_round_ps(all, a, b, down);
    hi = _mm512_maskz_sub_round_ps(all, a, b, up);
  } else if constexpr (op == operation::mul) {
    lo = _mm512_maskz_mul_round_ps(all, a, b, down);
    hi = _mm512_maskz_mul_round_ps(all, a, b, up);
  } else if constexpr (op == operation::div) {
    lo = _mm512_maskz_div_round_ps(all, a, b, down);
    hi = _mm512_maskz_div_round_ps(all, a, b, up);
  } else if constexpr (op == operation::sqrt) {
    lo = _mm512_maskz_sqrt_round_ps(all, b, down);
    hi = _mm512_maskz_sqrt_round_ps(all, b, up);
  } else {
    lo = _mm512_maskz_fmadd_round_ps(all, a, b, c, down);
    hi = _mm512_maskz_fmadd_round_ps(all, a, b, c, up);
  }
}

// The same for 8 binary64 lanes.
template <operation op>
void both_roundings(__m512d a, __m512d b, __m512d c, __m512d& lo, __m512d& hi) {
  constexpr __mmask8 all = 0xFF;
  if constexpr (op == operation::add) {
    lo = _mm512_maskz_add_round_pd(all, a, b, down);
    hi = _mm512_maskz_add_round_pd(all, a, b, up);
  } else if constexpr (op == operation::sub) {
    lo = _mm512_maskz_sub_round_pd(all, a, b, down);
    hi = _mm512_maskz_sub_round_pd(all, a, b, up);
  } else if constexpr (op == operation::mul) {
    lo = _mm512_maskz_mul_round_pd(all, a, b, down);
    hi = _mm512_maskz_mul_round_pd(all, a, b, up);
  } else if constexpr (op == operation::div) {
    lo = _mm512_maskz_div_round_pd(all, a, b, down);
    hi = _mm512_maskz_div_round_pd(all, a, b, up);
  } else if constexpr (op == operation::sqrt) {
    lo = _mm512_maskz_sqrt_round_pd(all, b, down);
    hi = _mm512_maskz_sqrt_round_pd(all, b, up);
  } else {
    lo = _mm512_maskz_fmadd_round_pd(all, a, b, c, down);
    hi = _mm512_maskz_fmadd_round_pd(all, a, b, c, up);
  }
}

// One lane width: fp16 in binary32 lanes (16 a vector), bf16 in binary64 lanes (8).
struct binary32_lanes {
  using vector = __m512;
  using wide = std::uint32_t;
  static constexpr std::size_t count = 16;
  static constexpr const target16& target = fp16_target;
  static constexpr const wide_format& format = binary32_wide;
  static wide widen(std::uint32_t h) { return widen_fp16(h); }
  static vector broadcast(wide w) { return _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(w))); }
  static vector load(const wide* p) { return _mm512_castsi512_ps(_mm512_loadu_si512(p)); }
  static void store(wide* p, vector v) { _mm512_store_si512(p, _mm512_castps_si512(v)); }
};

struct binary64_lanes {
  using vector = __m512d;
  using wide = std::uint64_t;
  static constexpr std::size_t count = 8;
  static constexpr const target16& target = bf16_target;
  static constexpr const wide_format& format = binary64_wide;
  static wide widen(std::uint32_t h) { return widen_bf16(h); }
  static vector broadcast(wide w) { return _mm512_castsi512_pd(_mm512_set1_epi64(static_cast<long long>(w))); }
  static vector load(const wide* p) { return _mm512_castsi512_pd(_mm512_loadu_si512(p)); }
  static void store(wide* p, vector v) { _mm512_store_si512(p, _mm512_castpd_si512(v)); }
};

// Every encoding widened: one table per lane width, built on first use and
// shared by the six operations.
template <class Lanes>
const std::array<typename Lanes::wide, row_length>& widened() {
  static const auto table = [] {
    std::array<typename Lanes::wide, row_length> t{};
    for (std::uint32_t h = 0; h < row_length; ++h) t[h] = Lanes::widen(h);
    return t;
  }();
  return table;
}

template <operation op, class Lanes>
void lane_row(direction d, row_operands row, std::uint16_t* bits, std::uint8_t* flags) {
  using wide = typename Lanes::wide;
  const auto& table = widened<Lanes>();
  const auto va = Lanes::broadcast(table[row.a]);
  const auto vc = Lanes::broadcast(table[row.c]);
  alignas(64) wide lo[Lanes::count], hi[Lanes::count];
  for (std::size_t b0 = 0; b0 < row_length; b0 += Lanes::count) {
    typename Lanes::vector vlo, vhi;
    both_roundings<op>(va, Lanes::load(table.data() + b0), vc, vlo, vhi);
    Lanes::store(lo, vlo);
    Lanes::store(hi, vhi);
    for (std::size_t i = 0; i < Lanes::count; ++i) {
      const result16 r = finish(Lanes::target, Lanes::format, op, d, row, static_cast<std::uint32_t>(b0 + i), lo[i],
                                hi[i]);
      bits[b0 + i] = r.bits;
      flags[b0 + i] = r.flags;
    }
  }
}

template <operation op>
void any_row(format16 f, direction d, row_operands row, std::uint16_t* bits, std::uint8_t* flags) {
  if (f == format16::fp16) {
    lane_row<op, binary32_lanes>(d, row, bits, flags);
  } else {
    lane_row<op, binary64_lanes>(d, row, bits, flags);
  }
}

}  // namespace

void oracle_row_avx512(format16 f, operation op, direction d, row_operands row, std::uint16_t* bits,
                       std::uint8_t* flags) {
  switch (op) {
    case operation::add: return any_row<operation::add>(f, d, row, bits, flags);
    case operation::sub: return any_row<operation::sub>(f, d, row, bits, flags);
    case operation::mul: return any_row<operation::mul>(f, d, row, bits, flags);
    case operation::div: return any_row<operation::div>(f, d, row, bits, flags);
    case operation::sqrt: return any_row<operation::sqrt>(f, d, row, bits, flags);
    case operation::fma: return any_row<operation::fma>(f, d, row, bits, flags);
  }
}

}  // namespace certify::detail
