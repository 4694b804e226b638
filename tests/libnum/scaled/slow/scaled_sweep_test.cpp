// fp32 inputs swept through each element format at a fixed scale (one fp32
// scale of 1 for the whole tensor, and a power-of-two E8M0 scale), in every
// rounding mode, against a table reference in double arithmetic:
//  - the element's magnitudes from the spec's encodings (scaled_reference.hpp);
//  - |x| between neighbours lo < |x| < hi of that table (extended by the
//    unbounded format's next value past max), where hi - lo is a power of two
//    and x, lo, hi are doubles, so f = (|x| - lo) / (hi - lo) is exact;
//  - each mode's decision on f as DESIGN.md defines it.
// The sweep takes every 61st fp32 pattern whose magnitude lies from 2^-40
// below the smallest subnormal to 4x past max (outside, every mode's result
// is fixed: zero or the smallest subnormal, or saturation), plus a 1-in-2^16
// sample of everything else.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <libnum/philox.hpp>
#include <libnum/scaled_array.hpp>
#include <vector>

#include "../scaled_reference.hpp"

namespace {

struct table {
  std::vector<double> magnitude;  // ascending, extended by the next value past max
  std::vector<std::uint32_t> code;
  bool int8 = false;
  int bits = 0;
};

table table_of(num::element_type t) {
  const scaled_ref::element_spec s = scaled_ref::spec_of(t);
  table out;
  out.int8 = s.int8;
  out.bits = s.bits();
  for (const auto& g : scaled_ref::magnitudes(s)) {
    out.magnitude.push_back(g.value.get_d());
    out.code.push_back(g.code);
  }
  const double step = out.magnitude.back() - out.magnitude[out.magnitude.size() - 2];
  out.magnitude.push_back(out.magnitude.back() + step);
  out.code.push_back(out.code.back() + 1);
  return out;
}

// Whether |x|, the fraction f of the way from a neighbour of code lo_code to
// the next one, rounds to that next one.
bool rounds_up(num::rounding mode, double f, bool negative, std::uint32_t lo_code, int r, std::uint32_t word) {
  switch (mode) {
    case num::rounding::nearest_even: return f > 0.5 || (f == 0.5 && (lo_code & 1) != 0);
    case num::rounding::nearest_away: return f >= 0.5;
    case num::rounding::toward_zero: return false;
    case num::rounding::toward_positive: return !negative;
    case num::rounding::toward_negative: return negative;
    case num::rounding::to_odd: return (lo_code & 1) == 0;
    case num::rounding::stochastic: {
      const std::uint64_t draw = r >= 32 ? word : word >> (32 - r);
      return static_cast<std::uint64_t>(std::ldexp(f, r)) + draw >= (std::uint64_t{1} << r);
    }
  }
  return false;
}

std::uint32_t reference_code(const table& t, double x, num::rounding mode, int r, std::uint32_t word) {
  const bool negative = std::signbit(x);
  const double a = std::fabs(x);
  const std::size_t top = t.magnitude.size() - 2;  // index of max
  std::size_t pick = 0;
  if (a >= t.magnitude[top + 1]) {
    pick = top;  // at or past the next value: overflow, saturated
  } else {
    std::size_t i =
        static_cast<std::size_t>(std::upper_bound(t.magnitude.begin(), t.magnitude.end(), a) - t.magnitude.begin()) - 1;
    pick = i;
    if (t.magnitude[i] != a) {
      const double f = (a - t.magnitude[i]) / (t.magnitude[i + 1] - t.magnitude[i]);
      const bool up = rounds_up(mode, f, negative, t.code[i], r, word);
      pick = std::min(i + (up ? 1 : 0), top);
    }
  }
  if (t.int8) {
    // Negative full range also holds -2 (k = 128): past 127/64 a negative
    // value may round to it rather than saturate at -127/64.
    std::uint32_t k = t.code[pick];
    if (negative && a > t.magnitude[top]) {
      const double f = (a - t.magnitude[top]) / (1.0 / 64);
      const bool up = a >= t.magnitude[top + 1] || rounds_up(mode, f, negative, t.code[top], r, word);
      k = up ? 128 : 127;
    }
    return (negative ? 0u - k : k) & 0xFFu;
  }
  return t.code[pick] | (negative ? 1u << (t.bits - 1) : 0u);
}

void sweep(num::element_type type, num::rounding mode, int r) {
  const table t = table_of(type);
  const double low = t.magnitude[1] * 0x1p-40, high = t.magnitude[t.magnitude.size() - 2] * 4;
  std::vector<float> in;
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += 61) {
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    const double a = std::fabs(static_cast<double>(x));
    if (!std::isfinite(x)) continue;
    if ((a >= low && a <= high) || bits % 65536 < 61) in.push_back(x);
  }
  num::scaled_options o;
  o.format = {type, num::scale_rule::fp32_given, num::whole_tensor_block};
  o.spec.mode = mode;
  o.spec.random_bits = r;
  o.seed = 77;
  std::vector<std::uint8_t> elements(in.size());
  std::vector<std::uint32_t> scale(1);
  num::quantize(in, {1, in.size()}, elements, scale, o);
  const num::random_stream random(o.seed, o.stream);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint32_t want = reference_code(t, in[i], mode, r, random.word(i));
    if (elements[i] != want && ++wrong <= 5) {
      ADD_FAILURE() << num::element_name(type) << " " << num::rounding_name(mode) << " r=" << r << ": " << std::hexfloat
                    << in[i] << " gave " << std::hex << int{elements[i]} << ", reference " << want;
    }
  }
  EXPECT_EQ(wrong, 0u) << "of " << in.size();
}

TEST(ScaledSweep, EveryElementFormatEveryModeAtScaleOne) {
  for (num::element_type type : num::all_element_types) {
    for (num::rounding mode : num::all_roundings) {
      sweep(type, mode, 32);
      if (mode == num::rounding::stochastic) sweep(type, mode, 3);
    }
  }
}

}  // namespace
