// Shared by the scaled-recipe tests: Gaussian test data, and a hook that keeps
// training in plain fp32 and only watches the quantized GEMM operands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "lab/op_context.hpp"

namespace lab::scaled_test {

/// n values of N(0, sd²) from std::mt19937(seed): the same data on every run.
inline std::vector<float> normal_values(std::size_t n, std::uint32_t seed, float sd) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.0f, sd);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

/// One run of 16 values through the Hadamard transform's fp32 steps as
/// hadamard.hpp names them: signs, butterflies h = 1, 2, 4, 8, then × 1/4.
inline void hadamard_run_steps(const float* in, const float* signs, float* out) {
  float v[16];
  for (std::size_t i = 0; i < 16; ++i) v[i] = in[i] * signs[i];
  for (std::size_t h = 1; h < 16; h *= 2)
    for (std::size_t i = 0; i < 16; ++i)
      if ((i & h) == 0) {
        const float a = v[i], b = v[i + h];
        v[i] = a + b;
        v[i + h] = a - b;
      }
  for (std::size_t i = 0; i < 16; ++i) out[i] = v[i] * 0.25f;
}

/// A hook that leaves values, weights and updates as fp32 computes them; a
/// test overrides observe_quantized to record what it needs.
class operand_watcher : public tensor_hook {
 public:
  void produce(const site&, tensor_role, std::span<float>, unrounded_values) override {}
  std::span<const float> weight(const site&, std::span<const float> master, unrounded_values) override {
    return master;
  }
  void update(const site&, std::span<float> w, const weight_step& step) override { apply_step_fp32(w, step); }
};

}  // namespace lab::scaled_test
