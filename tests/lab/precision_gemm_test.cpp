// Low-format accumulation GEMM and the dense layer under precision policies,
// against the libnum scalar core (num::fma / num::from_double) and
// hand-derived sums.
#include <gtest/gtest.h>

#include <libnum/codec.hpp>
#include <libnum/convert.hpp>
#include <libnum/arithmetic.hpp>
#include <libnum/philox.hpp>

#include <cmath>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/dense.hpp"
#include "lab/errors.hpp"
#include "lab/low_precision_gemm.hpp"
#include "lab/precision_hook.hpp"

namespace lab {
namespace {

float to_format(const num::format& f, float x, num::rounding mode = num::rounding::nearest_even) {
  num::round_spec spec;
  spec.mode = mode;
  return num::to_float(f, num::from_float(f, x, spec).bits);
}

std::vector<float> random_values(const num::format& f, std::size_t n, std::uint32_t seed, float scale = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = to_format(f, d(gen));
  return v;
}

// The oracle of sequential low-format partials: c <- fma(a, b, c) in the
// format, p = 0 .. k-1, with A m x k and B k x n row-major (no transposes).
std::vector<float> fma_chain(const num::format& f, const std::vector<float>& a, const std::vector<float>& b,
                             std::vector<float> c, std::size_t m, std::size_t n, std::size_t k) {
  const num::round_spec ne{};
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      std::uint32_t acc = num::from_float(f, c[i * n + j], ne).bits;
      for (std::size_t p = 0; p < k; ++p)
        acc = num::fma(f, num::from_float(f, a[i * k + p], ne).bits, num::from_float(f, b[p * n + j], ne).bits, acc,
                       ne)
                  .bits;
      c[i * n + j] = num::to_float(f, acc);
    }
  return c;
}

std::vector<float> transpose(const std::vector<float>& x, std::size_t rows, std::size_t cols) {
  std::vector<float> t(x.size());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) t[c * rows + r] = x[r * cols + c];
  return t;
}

class LowAccumulation : public ::testing::TestWithParam<num::format> {};

TEST_P(LowAccumulation, SequentialEqualsScalarFmaChainForEveryTransposeAndPath) {
  const num::format f = GetParam();
  const std::size_t m = 5, n = 37, k = 29;
  const auto a = random_values(f, m * k, 1);
  const auto b = random_values(f, k * n, 2);
  const auto c0 = random_values(f, m * n, 3);
  const auto expected = fma_chain(f, a, b, c0, m, n, k);
  const auto at = transpose(a, m, k), bt = transpose(b, k, n);
  low_accumulation acc;
  acc.format = f;
  for (int variant = 0; variant < 4; ++variant) {
    const bool ta = (variant & 1) != 0, tb = (variant & 2) != 0;
    for (bool portable : {true, false}) {
      std::vector<float> c = c0;
      const gemm_args g{ta, tb, m, n, k, ta ? at.data() : a.data(), ta ? m : k, tb ? bt.data() : b.data(),
                        tb ? k : n, 1.0f, c.data(), n};
      if (portable)
        gemm_low_accumulation_portable(g, acc);
      else
        gemm_low_accumulation(g, acc);
      for (std::size_t i = 0; i < c.size(); ++i)
        ASSERT_EQ(c[i], expected[i]) << "element " << i << " trans_a " << ta << " trans_b " << tb << " portable "
                                     << portable;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, LowAccumulation, ::testing::Values(num::binary16, num::bfloat16_format));

TEST(LowAccumulationFp16, PartialsRoundAfterEveryAddition) {
  // 1 + 2^-11 is a tie that rounds back to 1 in fp16, so sequential fp16
  // partials never move past 1; fp32 partials sum 1 + 4 * 2^-11 = 1 + 2^-9
  // exactly. Blocks of 2: (1 + 2^-11) -> 1, (2^-11 + 2^-11) = 2^-10,
  // (2^-11); outer 1 + 2^-10 exact, then 1 + 2^-10 + 2^-11 is a tie between
  // 1 + 2^-10 (odd last bit) and 1 + 2^-9 (even) -> 1 + 2^-9.
  const float tiny = std::ldexp(1.0f, -11);
  const std::vector<float> a = {1.0f, tiny, tiny, tiny, tiny};
  const std::vector<float> b = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
  low_accumulation acc;
  for (bool portable : {true, false}) {
    float c = 0.0f;
    const gemm_args g{false, false, 1, 1, 5, a.data(), 5, b.data(), 1, 0.0f, &c, 1};
    acc.block = 0;
    portable ? gemm_low_accumulation_portable(g, acc) : gemm_low_accumulation(g, acc);
    EXPECT_EQ(c, 1.0f);
    acc.block = 2;
    portable ? gemm_low_accumulation_portable(g, acc) : gemm_low_accumulation(g, acc);
    EXPECT_EQ(c, 1.0f + std::ldexp(1.0f, -9));
  }
  float c32 = 0.0f;
  sgemm({false, false, 1, 1, 5, a.data(), 5, b.data(), 1, 0.0f, &c32, 1});
  EXPECT_EQ(c32, 1.0f + std::ldexp(1.0f, -9));
}

TEST(LowAccumulationFp16, StochasticPartialsAreReproducibleAndSeedDependent) {
  const std::size_t m = 4, n = 64, k = 50;
  const auto a = random_values(num::binary16, m * k, 4);
  const auto b = random_values(num::binary16, k * n, 5);
  low_accumulation acc;
  acc.spec.mode = num::rounding::stochastic;
  acc.seed = 11;
  auto run = [&](std::uint64_t seed) {
    std::vector<float> c(m * n);
    acc.seed = seed;
    gemm_low_accumulation(gemm_args{false, false, m, n, k, a.data(), k, b.data(), n, 0.0f, c.data(), n}, acc);
    return c;
  };
  EXPECT_EQ(run(11), run(11));
  EXPECT_NE(run(11), run(12));
}

// A pure-fp16 policy's dense output, bit for bit against libnum scalar ops.
struct dense_case {
  std::size_t n = 3, in = 8, out = 5;
  std::vector<float> x, w, b;
};

dense_case make_dense_case() {
  // Inputs, weights and biases are integers / 2^10 below 1 in magnitude (so
  // their fp16 casts are exact), but given in fp32 with extra low bits that
  // the policy's casts must remove. Products are multiples of 2^-20 below 1
  // and every partial sum of 8 of them fits 24 bits: fp32 accumulation is
  // exact in any order, so the result is round_fp16(exact sum).
  dense_case c;
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> q(-1023, 1023);
  const float noise = std::ldexp(1.0f, -14);
  auto draw = [&](std::size_t count) {
    std::vector<float> v(count);
    for (auto& x : v) {
      const int k = q(gen);
      // Noise only where the fp16 ulp (2^-11 for |x| >= 1/2) exceeds it twice over.
      x = std::ldexp(static_cast<float>(k), -10) + (std::abs(k) >= 512 ? (q(gen) > 0 ? noise : -noise) : 0.0f);
    }
    return v;
  };
  c.x = draw(c.n * c.in);
  c.w = draw(c.out * c.in);
  c.b = draw(c.out);
  return c;
}

TEST(PureFp16Dense, OutputEqualsLibnumReferenceBitForBit) {
  const dense_case dc = make_dense_case();
  dense layer("fc", dc.in, dc.out);
  std::copy(dc.w.begin(), dc.w.end(), layer.kernel().value.data());
  std::copy(dc.b.begin(), dc.b.end(), layer.bias().value.data());
  precision_hook hook(precision_preset("fp16"), 1);
  hook.store_parameters(layer.parameters());
  tensor x({dc.n, dc.in}), y;
  std::copy(dc.x.begin(), dc.x.end(), x.data());
  layer.forward(hook.context(), x, y);
  const num::round_spec ne{};
  for (std::size_t i = 0; i < dc.n; ++i)
    for (std::size_t o = 0; o < dc.out; ++o) {
      double exact = num::to_double(num::binary16, num::from_float(num::binary16, dc.b[o], ne).bits);
      for (std::size_t f = 0; f < dc.in; ++f)
        exact += num::to_double(num::binary16, num::from_float(num::binary16, dc.x[i * dc.in + f], ne).bits) *
                 num::to_double(num::binary16, num::from_float(num::binary16, dc.w[o * dc.in + f], ne).bits);
      const float expected = num::to_float(num::binary16, num::from_double(num::binary16, exact, ne).bits);
      EXPECT_EQ(y[i * dc.out + o], expected) << i << "," << o;
    }
}

TEST(PureFp16Dense, HalfPartialsEqualScalarFmaChainFromTheBias) {
  const std::size_t n = 4, in = 40, out = 6;
  dense layer("fc", in, out);
  const auto w = random_values(num::binary16, out * in, 8, 0.3f);
  const auto b = random_values(num::binary16, out, 9);
  const auto xv = random_values(num::binary16, n * in, 10);
  std::copy(w.begin(), w.end(), layer.kernel().value.data());
  std::copy(b.begin(), b.end(), layer.bias().value.data());
  precision_config config;
  config.preset = "fp16";
  set_precision_value(config, "partials", "low", "test");
  precision_hook hook(config.resolve(), 1);
  hook.store_parameters(layer.parameters());
  tensor x({n, in}), y;
  std::copy(xv.begin(), xv.end(), x.data());
  layer.forward(hook.context(), x, y);
  // dense: out[i, o] starts at b[o] and adds x[i, f] * W[o, f] for f in order.
  std::vector<float> c0(n * out);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t o = 0; o < out; ++o) c0[i * out + o] = b[o];
  const auto expected = fma_chain(num::binary16, xv, transpose(w, out, in), c0, n, out, in);
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(y[i], expected[i]) << i;
}

}  // namespace
}  // namespace lab

namespace lab {
namespace {

// Sequential stochastic partials against num::fma with the engine's random
// words (element (i, j) at step p takes word p*m*n + i*n + j).
std::vector<float> stochastic_fma_chain(const num::format& f, const num::round_spec& spec, std::uint64_t seed,
                                        std::uint64_t stream, const std::vector<float>& a, const std::vector<float>& b,
                                        std::size_t m, std::size_t n, std::size_t k) {
  const num::random_stream words(seed, stream);
  const num::round_spec ne{};
  std::vector<float> c(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      std::uint32_t acc = num::from_float(f, 0.0f, ne).bits;
      for (std::size_t p = 0; p < k; ++p)
        acc = num::fma(f, num::from_float(f, a[i * k + p], ne).bits, num::from_float(f, b[p * n + j], ne).bits, acc,
                       spec, words.word(p * m * n + i * n + j))
                  .bits;
      c[i * n + j] = num::to_float(f, acc);
    }
  return c;
}

TEST(LowAccumulationStochastic, ExactUpToTheDoubleBoundaryAndRejectedBeyondIt) {
  // A binary32 sum rounded to odd in double keeps the exact sum's top 52
  // bits; stochastic rounding into p = 24 reads p + r of them: r = 28 is the
  // widest draw that stays exact (p + r + 1 = 53).
  const num::format f = num::binary32;
  const std::size_t m = 3, n = 17, k = 40;
  std::vector<float> a = random_values(f, m * k, 21), b = random_values(f, k * n, 22);
  // Spread the exponents so the exact sums need far more than 53 bits.
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::ldexp(a[i], static_cast<int>(i % 9) * 5 - 20);
  low_accumulation acc;
  acc.format = f;
  acc.spec.mode = num::rounding::stochastic;
  acc.seed = 5;
  acc.stream = 9;
  for (const int r : {1, 16, 28}) {
    acc.spec.random_bits = r;
    std::vector<float> c(m * n);
    gemm_low_accumulation(gemm_args{false, false, m, n, k, a.data(), k, b.data(), n, 0.0f, c.data(), n}, acc);
    const auto expected = stochastic_fma_chain(f, acc.spec, acc.seed, acc.stream, a, b, m, n, k);
    for (std::size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], expected[i]) << "r " << r << " element " << i;
  }
  for (const int r : {29, 32}) {
    acc.spec.random_bits = r;
    std::vector<float> c(m * n);
    EXPECT_THROW(
        gemm_low_accumulation(gemm_args{false, false, m, n, k, a.data(), k, b.data(), n, 0.0f, c.data(), n}, acc),
        std::invalid_argument)
        << "r " << r;
  }
  // fp16 (p = 11) takes every r up to 32.
  acc.format = num::binary16;
  acc.spec.random_bits = 32;
  EXPECT_TRUE(low_accumulation_is_exact(acc.format, acc.spec));
}

TEST(LowAccumulationStochastic, PolicyRejectsAStochasticDrawTheSumsCannotHold) {
  const auto resolve = [](const std::string& format, const std::string& bits, const std::string& partials,
                          const std::string& master) {
    precision_config c;
    c.preset = "fp16-mixed";
    set_precision_value(c, "precision_format", format, "test");
    set_precision_value(c, "rounding", "sr", "test");
    set_precision_value(c, "rounding_bits", bits, "test");
    set_precision_value(c, "partials", partials, "test");
    set_precision_value(c, "master_weights", master, "test");
    return c.resolve();
  };
  EXPECT_NO_THROW(resolve("fp32", "28", "low", "true"));
  EXPECT_NO_THROW(resolve("fp16", "32", "low", "false"));
  EXPECT_NO_THROW(resolve("fp32", "32", "fp32", "true"));  // no emulated sums
  try {
    (void)resolve("fp32", "29", "low", "true");
    ADD_FAILURE() << "p = 24 with r = 29 accepted";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("rounding_bits"), std::string::npos) << e.what();
  }
  // Pure updates w + delta are emulated sums too.
  EXPECT_THROW((void)resolve("e8m23", "32", "fp32", "false"), input_error);
}

}  // namespace
}  // namespace lab
