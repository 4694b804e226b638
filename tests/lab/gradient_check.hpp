// Central finite differences, evaluated in fp64, against a layer's backward.
//
// The scalar checked is L = sum_i r_i * y_i with fixed random weights r, so
// dL/dy = r is what backward receives. Each sampled coordinate of the input
// and of every parameter is nudged by +-h and L recomputed (the sum in
// double); the quotient is compared with the analytic gradient.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "lab/layer.hpp"
#include "lab/rng.hpp"

namespace lab::testing {

inline double weighted_sum(const tensor& y, const tensor& r) {
  double s = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) s += static_cast<double>(y[i]) * r[i];
  return s;
}

inline void fill_uniform(tensor& t, rng& gen, float lo = -1.0f, float hi = 1.0f) {
  for (auto& v : t.values()) v = gen.uniform(lo, hi);
}

struct gradient_check_options {
  double h = 1e-2;
  double abs_tol = 2e-3;
  double rel_tol = 2e-2;
  std::size_t samples = 40;  ///< coordinates checked per tensor
  bool training = true;
};

/// Checks dL/dx and dL/dparameters of `l` at input `x`.
inline void check_gradients(layer& l, const tensor& x, std::uint64_t seed, gradient_check_options opt = {}) {
  rng gen(seed, 99);
  op_context ctx;
  ctx.training = opt.training;
  ctx.seed = seed;
  tensor y;
  l.forward(ctx, x, y);
  tensor r(y.shape());
  fill_uniform(r, gen);
  for (auto* p : l.parameters()) p->grad.zero();
  tensor dx;
  l.backward(ctx, x, y, r, &dx);
  ASSERT_EQ(dx.shape(), x.shape());

  auto loss_at = [&](const tensor& input) {
    tensor out;
    l.forward(ctx, input, out);
    return weighted_sum(out, r);
  };
  auto compare = [&](const std::string& what, std::size_t index, double analytic, double numeric) {
    const double tol = opt.abs_tol + opt.rel_tol * std::max(std::abs(analytic), std::abs(numeric));
    EXPECT_NEAR(analytic, numeric, tol) << l.name() << ": d/d " << what << "[" << index << "]";
  };
  auto pick = [&](std::size_t size, std::size_t k) {
    return size <= opt.samples ? k : static_cast<std::size_t>(gen.below(size));
  };

  tensor probe = x;
  for (std::size_t k = 0; k < std::min(opt.samples, x.size()); ++k) {
    const std::size_t i = pick(x.size(), k);
    const float orig = probe[i];
    probe[i] = static_cast<float>(orig + opt.h);
    const double up = loss_at(probe);
    probe[i] = static_cast<float>(orig - opt.h);
    const double down = loss_at(probe);
    probe[i] = orig;
    const double step = static_cast<double>(static_cast<float>(orig + opt.h)) -
                        static_cast<double>(static_cast<float>(orig - opt.h));
    compare("input", i, dx[i], (up - down) / step);
  }
  for (auto* p : l.parameters()) {
    for (std::size_t k = 0; k < std::min(opt.samples, p->value.size()); ++k) {
      const std::size_t i = pick(p->value.size(), k);
      const float orig = p->value[i];
      p->value[i] = static_cast<float>(orig + opt.h);
      const double up = loss_at(x);
      p->value[i] = static_cast<float>(orig - opt.h);
      const double down = loss_at(x);
      p->value[i] = orig;
      const double step = static_cast<double>(static_cast<float>(orig + opt.h)) -
                          static_cast<double>(static_cast<float>(orig - opt.h));
      compare(p->name, i, p->grad[i], (up - down) / step);
    }
  }
}

/// Random input of shape s with entries in [-1, -0.05] U [0.05, 1], keeping
/// finite differences clear of ReLU's kink at zero.
inline tensor random_input(const shape& s, std::uint64_t seed) {
  rng gen(seed, 7);
  tensor t(s);
  for (auto& v : t.values()) {
    const float mag = gen.uniform(0.05f, 1.0f);
    v = gen.uniform() < 0.5f ? -mag : mag;
  }
  return t;
}

/// Distinct values 0.05 apart in random order, so pooling windows never hold
/// two values within the finite-difference step.
inline tensor separated_input(const shape& s, std::uint64_t seed) {
  rng gen(seed, 8);
  tensor t(s);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = 0.05f * static_cast<float>(i) - 0.025f * static_cast<float>(t.size());
  for (std::size_t i = t.size(); i > 1; --i) std::swap(t[i - 1], t[gen.below(i)]);
  return t;
}

}  // namespace lab::testing
