// The fp32 element loops that need one fused multiply-add per element
// (lab/src/fused_loops.hpp): apply_step_fp32, add_scaled_fp32 and Adam's
// second moment. They run an AVX2 + FMA clone where the CPU has both and the
// baseline loop otherwise (this program again under NUMLAB_SIMD=scalar, see
// tests/CMakeLists.txt); either must give what libm's fmaf gives, element by
// element, on lengths that exercise vector bodies and tails.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "lab/op_context.hpp"
#include "lab/optimizer.hpp"
#include "lab/tensor.hpp"

namespace lab {
namespace {

// Values whose products carry bits below fp32's precision, so that a fused
// and an unfused multiply-add differ on many elements.
std::vector<float> values(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

constexpr std::size_t lengths[] = {1, 7, 8, 9, 31, 33, 64, 1001};

TEST(FusedLoops, ApplyStepRoundsEachWriteOnceAsFmaf) {
  std::size_t fused_differs = 0;
  for (const std::size_t n : lengths)
    for (const float keep : {1.0f, 0.99f}) {
      const std::vector<float> w0 = values(n, 1), d = values(n, 2);
      std::vector<float> w = w0;
      const float scale = -0.3f;
      apply_step_fp32(w, {d, scale, keep});
      for (std::size_t i = 0; i < n; ++i) {
        const float expected = std::fma(scale, d[i], w0[i] * keep);
        ASSERT_EQ(bits(w[i]), bits(expected)) << "n " << n << " keep " << keep << " [" << i << "]";
        fused_differs += static_cast<std::size_t>(expected != scale * d[i] + w0[i] * keep);
      }
    }
  EXPECT_GT(fused_differs, 100u);  // the inputs tell a fused from an unfused loop
}

TEST(FusedLoops, AddScaledRoundsOnceAlsoInPlace) {
  std::size_t fused_differs = 0;
  for (const std::size_t n : lengths) {
    const std::vector<float> a = values(n, 3), b = values(n, 4);
    const float s = 0.7f;
    std::vector<float> out(n), in_place = a;
    add_scaled_fp32(a, s, b, out);
    add_scaled_fp32(in_place, s, b, in_place);  // out aliasing a, as Adam's m update passes it
    for (std::size_t i = 0; i < n; ++i) {
      const float expected = std::fma(s, b[i], a[i]);
      ASSERT_EQ(bits(out[i]), bits(expected)) << "n " << n << " [" << i << "]";
      ASSERT_EQ(bits(in_place[i]), bits(expected)) << "in place, n " << n << " [" << i << "]";
      fused_differs += static_cast<std::size_t>(expected != s * b[i] + a[i]);
    }
  }
  EXPECT_GT(fused_differs, 100u);
}

TEST(FusedLoops, AdamSecondMomentIsAddcmulWithTheProductRoundedFirst) {
  // Two Adam steps on the same gradient g (1001 elements): PyTorch's
  // v.mul_(beta2).addcmul_(g, g, value=1-beta2) gives v1 = fma(c * g, g, 0)
  // and v2 = fma(c * g, g, v1 * beta2), c = float(1 - beta2) and beta2 cast
  // to float; the second moment is the optimizer's state tensor [1].
  const std::size_t n = 1001;
  parameter p = make_parameter("l", "dense", op_class::matmul, "kernel", {n}, false);
  const std::vector<float> w0 = values(n, 5), g = values(n, 6);
  std::copy(w0.begin(), w0.end(), p.value.values().begin());
  std::copy(g.begin(), g.end(), p.grad.values().begin());
  optimizer_settings settings;
  settings.kind = optimizer_kind::adam;
  optimizer opt(settings, {&p});
  opt.step(op_context(), 1e-3);
  opt.step(op_context(), 1e-3);
  const std::vector<tensor*> state = opt.state();
  ASSERT_EQ(state.size(), 2u);
  const auto c = static_cast<float>(1.0 - settings.beta2);
  const auto beta2 = static_cast<float>(settings.beta2);
  std::size_t fused_differs = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float v1 = std::fma(c * g[i], g[i], 0.0f);
    const float expected = std::fma(c * g[i], g[i], v1 * beta2);
    ASSERT_EQ(bits((*state[1])[i]), bits(expected)) << "[" << i << "]";
    fused_differs += static_cast<std::size_t>(expected != c * g[i] * g[i] + v1 * beta2);
  }
  EXPECT_GT(fused_differs, 50u);
}

}  // namespace
}  // namespace lab
