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
