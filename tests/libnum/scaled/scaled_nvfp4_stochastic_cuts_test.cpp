// NVFP4's AVX-512 kernel rounds stochastically from y = RN64(|x| · RN64(1/D))
// and sends half a block to the exact division where y lies within 4 units
// of a cut (nvfp4_stochastic_avx512.hpp). These tensors put elements where
// that argument is thinnest, under block decode scales D = S·s with few and
// with many significant bits:
//  - quotients exactly on a cut of every r = 1..32 (odd multiples of
//    2^(q - r), q the exponent of E2M1's quantum), and on the E2M1 grid:
//    exact quotients, whose y the multiplication may miss by a unit;
//  - quotients within about 2^-45 (relative) of a multiple of the finest
//    cut, 2^(q - 33), found by modular arithmetic on D's odd significand;
// and compare the kernel, for every r and several seeds, with the rational
// reference (codes, scales, counts) and with the scalar path (flags). A
// second test builds the one case where the exact division's remainder
// must correct y's significand (RN64(Q) rounded up onto a cut) and lets the
// element's random word decide by that last unit.
#include <gtest/gtest.h>

#include <algorithm>
#include <libnum/philox.hpp>
#include <cmath>
#include <cstdint>
#include <libnum/array.hpp>
#include <libnum/scaled_array.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "scaled_block_reference.hpp"
#include "scaled_path_compare.hpp"
#include "scaled_run.hpp"

namespace {

using scaled_ref::rational;

// E4M3 block scales with 1 to 4 significant bits.
const double cut_block_scales[] = {1.0, 1.5, 1.125, 0.8125, 3.75};

// The fp32 value of `v` if it has one.
std::optional<float> exact_float(const rational& v) {
  const float f = scaled_ref::to_float(v);
  if (!std::isfinite(f) || f == 0 || scaled_ref::of_float(f) != v) return std::nullopt;
  return f;
}

// Quotients Q (of x / D) exactly on cuts: for each r and quantum exponent q
// (Q in [0, 2), [2, 4), [4, 6)), the odd multiples of 2^(q - r) nearest a few
// points of that range; and the E2M1 grid values.
std::vector<rational> cut_quotients() {
  std::vector<rational> q_values;
  for (int r = 1; r <= 32; ++r) {
    for (const double point : {0.3, 0.9, 1.3, 1.9, 2.7, 3.3, 4.6, 5.7}) {
      const int q = point < 2 ? -1 : point < 4 ? 0 : 1;
      const rational unit = scaled_ref::pow2(q - r);
      mpz_class c = scaled_ref::floor_of(rational(point) / unit);
      if (c % 2 == 0) ++c;
      q_values.push_back(rational(c) * unit);
    }
  }
  for (const double g : {0.5, 1.0, 1.5, 2.0, 3.0, 4.0}) q_values.push_back(rational(g));
  return q_values;
}

// Elements x = X · 2^e (X of 24 bits) whose quotient by D lies within
// Dm · 2^-15 units of the finest cut U = 2^(q - 33) from one of its
// multiples, Dm the odd part of D's significand (a relative distance below
// about 2^-46): X · 2^t mod Dm near 0, with t = e - eD - log2(U).
std::vector<float> near_cut_elements(const rational& d, unsigned seed) {
  mpz_class odd = d.get_num();
  int d_exponent = -static_cast<int>(mpz_sizeinbase(d.get_den_mpz_t(), 2) - 1);  // the denominator is 2^k
  while (odd % 2 == 0) {
    odd /= 2;
    ++d_exponent;
  }
  std::vector<float> out;
  if (odd < (1 << 8)) return out;  // too few bits for any x / D to come near a cut but on it
  const auto dm = static_cast<std::uint64_t>(odd.get_ui());
  const int x_exponent = scaled_ref::floor_log2(d * rational(3, 2)) - 23;
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::uint32_t> significand(1u << 23, (1u << 24) - 1);
  for (int tries = 0; tries < (1 << 18) && out.size() < 24; ++tries) {
    const std::uint32_t x_int = significand(gen);
    // (The quotient's binade from doubles: off by one only next to a power
    // of two, which then merely gives another element.)
    const int lead = std::ilogb(std::ldexp(static_cast<double>(x_int), x_exponent) / d.get_d());
    const int cut = std::max(lead, 0) - 1 - 33;
    const int t = x_exponent - d_exponent - cut;
    if (t < 0) continue;
    mpz_class power;
    mpz_powm_ui(power.get_mpz_t(), mpz_class(2).get_mpz_t(), static_cast<unsigned long>(t), odd.get_mpz_t());
    const std::uint64_t residue = (static_cast<std::uint64_t>(x_int) * power.get_ui()) % dm;
    if (std::min(residue, dm - residue) <= (dm >> 15)) {
      out.push_back(static_cast<float>(std::ldexp(static_cast<double>(x_int), x_exponent)));
    }
  }
  return out;
}

// One tensor under the tensor amax `tensor_amax`: per block scale S, blocks
// whose first element sets S (amax / (6·s) = S · (1 + 2^-6), which rounds to
// S) and whose other 15 hold the representable cut elements and the near
// ones, alternately signed.
std::vector<float> tensor_for(float tensor_amax, std::size_t& near_count, std::size_t& cut_count) {
  const rational s = scaled_ref::nvfp4_tensor_scale(scaled_ref::of_float(tensor_amax));
  std::vector<float> in;
  const std::vector<rational> quotients = cut_quotients();
  for (const double block_scale : cut_block_scales) {
    const rational d = rational(block_scale) * s;
    std::vector<float> elements;
    for (const rational& q : quotients) {
      if (auto x = exact_float(q * d)) {
        elements.push_back(*x);
        ++cut_count;
      }
    }
    const std::vector<float> near = near_cut_elements(d, static_cast<unsigned>(block_scale * 64));
    near_count += near.size();
    elements.insert(elements.end(), near.begin(), near.end());
    const auto amax = static_cast<float>(6.09375 * block_scale * s.get_d());
    for (std::size_t i = 0; i < elements.size(); i += 15) {
      in.push_back(amax);
      for (std::size_t j = i; j < i + 15; ++j)
        in.push_back(j < elements.size() ? (j % 2 ? -elements[j] : elements[j]) : 0.0f);
    }
  }
  return in;
}

TEST(ScaledNvfp4StochasticCuts, KernelMatchesReferenceOnAndNearEveryCut) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
    // s = 421 · 2^-20 (9 bits), 0x1ABCD · 2^-30 (17 bits), RN(1000 / 2688) (24 bits).
    for (const float tensor_amax : {2688.0f * 421.0f * 0x1p-20f, 2688.0f * 0x1ABCDp-30f, 1000.0f}) {
      std::size_t near_count = 0, cut_count = 0;
      const std::vector<float> in = tensor_for(tensor_amax, near_count, cut_count);
      // The test's own premise: cut elements everywhere, near ones where s has many bits.
      EXPECT_GT(cut_count, tensor_amax == 1000.0f ? 20u : 100u) << tensor_amax;
      if (tensor_amax == 1000.0f) {
        EXPECT_GT(near_count, 40u);
      }
      for (int r = 1; r <= 32; ++r) {
        for (const std::uint64_t seed : {3u, 4u}) {
          for (const num::tininess tiny : {num::tininess::after_rounding, num::tininess::before_rounding}) {
            num::scaled_options o = scaled_test::options_for("nvfp4");
            o.spec.mode = num::rounding::stochastic;
            o.spec.random_bits = r;
            o.spec.tiny = tiny;
            o.tensor_amax = tensor_amax;
            o.seed = seed;
            o.path = path;
            const std::string label = "amax " + std::to_string(tensor_amax) + " r " + std::to_string(r) + " seed " +
                                      std::to_string(seed) +
                                      (tiny == num::tininess::after_rounding ? " after " : " before ") +
                                      std::string(num::simd_path_name(path));
            const auto fast = scaled_test::run(in, o);
            ASSERT_EQ(fast.result.path, path) << label;
            const scaled_ref::tensor_out want = scaled_ref::quantize(in, {1, in.size()}, o);
            ASSERT_EQ(fast.scales, want.scales) << label;
            EXPECT_EQ(fast.codes, want.codes) << label;
            EXPECT_EQ(fast.result.counts, want.counts) << label;
            if (r % 8 == 1) {
              o.path = num::simd_path::scalar;
              EXPECT_EQ(fast.result.raised, scaled_test::run(in, o).result.raised) << label;
            }
          }
        }
      }
    }
  }
}

// eps · a^-1 modulo 2^k, a odd (GMP's inverse, as near_cut_elements uses its powers).
std::uint64_t times_inverse_mod_2k(std::uint64_t eps, std::uint64_t a, int k) {
  const mpz_class modulus = mpz_class(1) << k;
  mpz_class inverse;
  mpz_invert(inverse.get_mpz_t(), mpz_class(static_cast<unsigned long>(a)).get_mpz_t(), modulus.get_mpz_t());
  const mpz_class r = mpz_class(static_cast<unsigned long>(eps)) * inverse % modulus;
  return static_cast<std::uint64_t>(r.get_ui());
}

// One element x = X · 2^e whose quotient Q = x / D by its block's decode
// scale D = S·s lies just below c = 1 + F · 2^-33, so close that
// y = RN64(Q) = c (c - Q < half an ulp of c): the division rounds up onto a
// number whose fraction below E2M1's quantum (0.5 at Q in [1, 2)) is F · 2^-32
// exactly, while Q's is one unit of 2^-32 less (then all ones). With r = 32
// and F = 2^32 - w, w the element's random word, rounding up needs
// w + fraction >= 2^32: the true fraction gives 2^32 - 1 (down, to 1.0),
// y's uncorrected significand 2^32 (up, to 1.5). Found by choosing s: with
// C = 2^33 + F = C_odd · 2^v and S = S_odd / 8, s = s_odd · 2^t where
// C_odd · S_odd · s_odd = X · 2^k + eps, a small eps > 0, so s_odd = eps ·
// (C_odd · S_odd)^-1 mod 2^k, taken where it has at most 24 bits.
struct correction_case {
  std::uint64_t seed;
  float tensor_amax, block_amax, x;
};

std::optional<correction_case> correction_case_for(std::uint64_t seed) {
  constexpr std::size_t position = 1;  // block 0: the block amax, then x
  const std::uint32_t w = num::random_stream(seed, 0).word(position);
  if (w == 0) return std::nullopt;
  const std::uint64_t f = (std::uint64_t{1} << 32) - w;
  std::uint64_t c_odd = (std::uint64_t{1} << 33) + f;
  int v = 0;
  while (c_odd % 2 == 0) {
    c_odd /= 2;
    ++v;
  }
  for (const std::uint64_t s_odd_block : {9u, 11u, 13u, 15u}) {
    for (std::uint64_t eps = 1; eps < 16; eps += 2) {
      for (int k = 36; k <= 40; ++k) {
        const std::uint64_t s_odd = times_inverse_mod_2k(eps, c_odd * s_odd_block, k);
        if (s_odd >= (std::uint64_t{1} << 24)) continue;
        // Below 2^62: C_odd < 2^34, S_odd < 2^4, s_odd < 2^24.
        const std::uint64_t product = c_odd * s_odd_block * s_odd;
        const std::uint64_t x_int = (product - eps) >> k;
        // x of at most 24 bits, and c - Q = c · eps / product below half an ulp of c (2^-53).
        if (x_int >= (std::uint64_t{1} << 24) || product < (eps << 55)) continue;
        // s near 2^-2 (any binade would do): s = s_odd · 2^t.
        const int t = -2 - (std::bit_width(s_odd) - 1);
        const rational s_value = rational(mpz_class(static_cast<unsigned long>(s_odd))) * scaled_ref::pow2(t);
        const rational block_scale = rational(static_cast<long>(s_odd_block), 8);
        const rational d = block_scale * s_value;
        // x = (C · S · s)(1 - eps / product) = X · 2^(k + v - 33 - 3 + t).
        const rational x = rational(mpz_class(static_cast<unsigned long>(x_int))) * scaled_ref::pow2(k + v - 36 + t);
        const rational c = rational(mpz_class(static_cast<unsigned long>((std::uint64_t{1} << 33) + f))) *
                           scaled_ref::pow2(-33);
        if (!(x / d < c)) continue;
        // A tensor amax whose s this is (s = RN32(amax / 2688)).
        // (The nearest float to s · 2688 and its two neighbours each side.)
        float a = std::nextafter(std::nextafter(scaled_ref::to_float(s_value * rational(2688)), 0.0f), 0.0f);
        std::optional<float> tensor_amax;
        for (int step = 0; step < 5 && !tensor_amax; ++step, a = std::nextafter(a, 1e30f)) {
          if (scaled_ref::nvfp4_tensor_scale(scaled_ref::of_float(a)) == s_value) tensor_amax = a;
        }
        if (!tensor_amax) continue;
        // The block amax sets S: amax / (6·s) within 2^-24 of S rounds to it.
        const float block_amax = scaled_ref::to_float(rational(6) * d);
        return correction_case{seed, *tensor_amax, block_amax, scaled_ref::to_float(x)};
      }
    }
  }
  return std::nullopt;
}

TEST(ScaledNvfp4StochasticCuts, RemainderCorrectsAQuotientRoundedUpOntoACut) {
  if (scaled_test::mx_kernel_paths().empty()) GTEST_SKIP() << "neither AVX2 nor AVX-512 on this CPU";
  std::vector<correction_case> cases;
  for (std::uint64_t seed = 0; seed < 4000 && cases.size() < 4; ++seed) {
    if (auto found = correction_case_for(seed)) cases.push_back(*found);
  }
  ASSERT_GE(cases.size(), 3u) << "the search found too few cases";
  for (const correction_case& k : cases) {
    std::vector<float> in(16, 0.0f);
    in[0] = k.block_amax;
    in[1] = k.x;
    num::scaled_options o = scaled_test::options_for("nvfp4");
    o.spec.mode = num::rounding::stochastic;
    o.spec.random_bits = 32;
    o.tensor_amax = k.tensor_amax;
    o.seed = k.seed;
    // The premise: the tensor and block scales as built, and y = RN64(x / D) = c > Q.
    const scaled_ref::tensor_out want = scaled_ref::quantize(in, {1, in.size()}, o);
    const std::string label = "seed " + std::to_string(k.seed) + " x " + std::to_string(k.x);
    ASSERT_EQ(want.codes[1], 2u) << label << ": the reference rounds down to 1.0";
    for (const num::simd_path path : scaled_test::mx_kernel_paths()) {
      o.path = path;
      const auto fast = scaled_test::run(in, o);
      ASSERT_EQ(fast.result.path, path) << label;
      EXPECT_EQ(fast.scales, want.scales) << label;
      EXPECT_EQ(fast.codes[1], 2u) << label << " " << num::simd_path_name(path);
      EXPECT_EQ(fast.codes, want.codes) << label << " " << num::simd_path_name(path);
    }
    o.path = num::simd_path::scalar;
    EXPECT_EQ(scaled_test::run(in, o).codes[1], 2u) << label << " scalar";
  }
}

}  // namespace
