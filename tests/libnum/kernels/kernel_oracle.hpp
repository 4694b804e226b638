// Test support for the array kernels: the scalar core element by element as
// the oracle, the dispatch paths to compare, and input sets that reach every
// rounding case (specials, subnormals, near max, midpoints, random patterns).
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "libnum/array.hpp"
#include "libnum/codec.hpp"
#include "libnum/convert.hpp"
#include "libnum/philox.hpp"

namespace kernel_test {

inline const num::simd_path all_paths[] = {num::simd_path::scalar, num::simd_path::avx2, num::simd_path::avx512};

/// Skips the calling test where the CPU cannot run `p`.
#define NUMLAB_REQUIRE_PATH(p)                                                                         \
  if (!num::simd_path_supported(p)) {                                                                  \
    GTEST_SKIP() << "this CPU cannot run the " << num::simd_path_name(p) << " path; its check is skipped"; \
  }                                                                                                    \
  static_assert(true)

/// The random word the kernels must give element i.
inline std::uint32_t word_for(const num::array_options& o, std::size_t i) {
  return o.spec.mode == num::rounding::stochastic
             ? num::draw_word(num::random_stream(o.seed, o.stream), o.draws, o.first_index + i)
             : 0;
}

/// A subnormal result of the core flushed to zero as the options say, with
/// the flags that flushing raises.
inline num::rounded flushed(const num::format& f, num::rounded r, const num::array_options& o) {
  if (o.flush_subnormal_outputs && num::classify(f, r.bits) == num::value_class::subnormal) {
    return {r.bits & f.sign_mask(), r.raised | num::flags::underflow | num::flags::inexact};
  }
  return r;
}

/// The core's rounding of x (float or double) under the kernel options.
template <class T>
num::rounded core_round(T x, const num::array_options& o, std::size_t i) {
  if (o.flush_subnormal_inputs && std::fpclassify(x) == FP_SUBNORMAL) x = std::signbit(x) ? T(-0.0) : T(0.0);
  const num::rounded r = sizeof(T) == 4 ? num::from_float(o.target, static_cast<float>(x), o.spec, word_for(o, i))
                                        : num::from_double(o.target, static_cast<double>(x), o.spec, word_for(o, i));
  return flushed(o.target, r, o);
}

inline std::uint32_t float_bits(float x) { return std::bit_cast<std::uint32_t>(x); }

/// Values that exercise every rounding case of format f, as floats.
inline std::vector<float> interesting_floats(const num::format& f, std::size_t random_count, std::uint32_t seed) {
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN,
                            std::bit_cast<float>(0x7F800001u), std::bit_cast<float>(0xFFA00001u),  // signalling
                            std::bit_cast<float>(0x7FFFFFFFu), std::bit_cast<float>(0x7FC12345u),
                            1.0f, -1.0f, std::bit_cast<float>(1u), std::bit_cast<float>(0x807FFFFFu),
                            std::bit_cast<float>(0x00400000u), std::bit_cast<float>(0x7F7FFFFFu),
                            std::bit_cast<float>(0xFF7FFFFFu), std::bit_cast<float>(0x00800000u)};
  std::vector<float> v(std::begin(specials), std::end(specials));
  std::mt19937 rng(seed);
  // Around the target's grid: encodings, their midpoints, and the floats
  // next to both.
  const std::uint32_t codes = f.total_bits() >= 24 ? 0xFFFFFFu : (std::uint32_t{1} << f.total_bits()) - 1;
  for (std::size_t k = 0; k < random_count / 4; ++k) {
    std::uint32_t b = static_cast<std::uint32_t>(rng()) & codes;
    if (k % 8 == 0) b = static_cast<std::uint32_t>(rng() % 8);  // smallest subnormals
    if (k % 8 == 1) b = num::max_finite_bits(f, rng() % 2) - static_cast<std::uint32_t>(rng() % 3);
    if (num::is_nan(f, b) || num::classify(f, b) == num::value_class::infinite) continue;
    const double lo = num::to_double(f, b);
    const double hi = lo + (lo < 0 ? -1 : 1) * num::ulp(f, lo == 0 ? f.min_subnormal() : lo);
    const auto mid = static_cast<float>((lo + hi) / 2);
    v.push_back(static_cast<float>(lo));
    v.push_back(mid);
    v.push_back(std::nextafter(mid, 0.0f));
    v.push_back(std::nextafter(mid, INFINITY));
    v.push_back(static_cast<float>(hi));
  }
  // Random patterns and log-uniform magnitudes.
  std::uniform_real_distribution<double> exponent(-150.0, 128.0);
  for (std::size_t k = 0; k < random_count; ++k) {
    if (k % 2 == 0) {
      v.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
    } else {
      const auto x = static_cast<float>(std::exp2(exponent(rng)));
      v.push_back(rng() % 2 ? -x : x);
    }
  }
  return v;
}

/// Doubles: the floats above, the same slightly perturbed below fp32's
/// precision (so rounding through fp32 would differ), and fp64-only extremes.
inline std::vector<double> interesting_doubles(const num::format& f, std::size_t random_count, std::uint32_t seed) {
  std::vector<double> v;
  std::mt19937_64 rng(seed);
  for (float x : interesting_floats(f, random_count, seed)) {
    const double d = x;
    v.push_back(d);
    if (std::isfinite(d) && d != 0) {
      v.push_back(std::nextafter(d, 0.0));
      v.push_back(std::nextafter(d, d * 2));
      v.push_back(d * (1 + std::ldexp(static_cast<double>(rng() % 1024), -40)));
    }
  }
  const double extremes[] = {1e300, -1e300, 1e-300, -1e-300, 4.9e-324, std::numeric_limits<double>::quiet_NaN(),
                             std::bit_cast<double>(0x7FF0000000000001ull), std::bit_cast<double>(0xFFF8123456789ABCull),
                             std::numeric_limits<double>::infinity(), 3.4028235677973366e38, 1.0 + 0x1p-40};
  for (double x : extremes) v.push_back(x);
  return v;
}

/// The formats every dense test covers (built-ins and custom ones).
inline std::vector<num::format> test_formats() {
  return {num::binary16, num::bfloat16_format, num::fp8_e5m2, num::fp8_e4m3, num::tf32, num::binary32,
          num::make_format(5, -6, 7, false, true),    // custom: no subnormals
          num::make_format(3, -2, 4, true, false),    // custom: tiny, no infinities
          num::make_format(12, -62, 63, true, true)};  // custom: 19 bits
}

inline std::string describe(const num::array_options& o) {
  return num::format_name(o.target) + " " + std::string(num::rounding_name(o.spec.mode)) +
         " r=" + std::to_string(o.spec.random_bits) + " " + std::string(num::random_draws_name(o.draws)) +
         " path " + std::string(num::simd_path_name(o.path));
}

/// Positive bit patterns of T (float or double) in both signs, the list
/// walked with a stride coprime to its length 48 times over, so that every
/// value meets many random words in every lane and specials share vectors
/// with finite values. Every third value is negated, and the other two in
/// odd passes: with k % 3 alone, a list whose length is a multiple of 3
/// gave each pattern one sign only.
template <class T, class Bits>
std::vector<T> walked_inputs(const std::vector<Bits>& patterns) {
  static_assert(sizeof(T) == sizeof(Bits));
  constexpr Bits sign = Bits{1} << (8 * sizeof(Bits) - 1);
  std::vector<T> in;
  const std::size_t n = patterns.size();
  std::size_t stride = 7;
  while (std::gcd(stride, n) != 1) stride += 2;
  for (std::size_t k = 0; k < 48 * n; ++k) {
    const bool negative = (k % 3 == 0) != (k / n % 2 == 1);
    in.push_back(std::bit_cast<T>(static_cast<Bits>(patterns[(k * stride) % n] | (negative ? sign : Bits{0}))));
  }
  return in;
}

/// Mismatches of encode (16-bit codes) and round (fp32 values) of float or
/// double inputs against the core, for 16-bit targets; the first few are
/// described.
template <class T>
void expect_core_bits16(const std::vector<T>& in, const num::array_options& o) {
  std::vector<std::uint16_t> codes(in.size());
  std::vector<float> values(in.size());
  num::encode_array(std::span<const T>(in), std::span<std::uint16_t>(codes), o);
  num::round_array(std::span<const T>(in), std::span<float>(values), o);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint32_t want = core_round(in[i], o, i).bits;
    if (codes[i] != want || float_bits(values[i]) != float_bits(num::to_float(o.target, want))) {
      if (++bad <= 5) {
        ADD_FAILURE() << describe(o) << " element " << i << " input " << sizeof(T) * 8 << "-bit 0x" << std::hex
                      << std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(in[i])
                      << ": got 0x" << codes[i] << " / 0x" << float_bits(values[i]) << ", core 0x" << want;
      }
    }
  }
  EXPECT_EQ(bad, 0u) << describe(o);
}

}  // namespace kernel_test
