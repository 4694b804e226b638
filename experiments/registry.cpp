// The one list of experiments. Adding an experiment: write experiments/NAME.cpp
// defining `experiment NAME_experiment()` (returning its descriptor), then add
// its declaration and its entry below.
#include <array>

#include "experiments/experiment.hpp"

namespace numlab::experiments {

experiment swamping_add_experiment();
experiment swamping_sum_experiment();
experiment formats_experiment();
experiment optimizer_epsilon_experiment();
experiment loss_scaling_experiment();
experiment master_weights_experiment();
experiment stochastic_rounding_experiment();
experiment amp_mlp_experiment();
experiment amp_levels_experiment();
experiment harmonic_experiment();
experiment nan_on_overflow_experiment();
experiment graphcore_options_experiment();
experiment amp_recipe_experiment();
experiment fp8_scaling_experiment();
experiment microscaling_experiment();
experiment fp4_stochastic_experiment();

std::span<const experiment> all_experiments() {
  // Built once on first use and never changed afterwards.
  static const std::array list{
      swamping_add_experiment(),
      swamping_sum_experiment(),
      formats_experiment(),
      optimizer_epsilon_experiment(),
      loss_scaling_experiment(),
      master_weights_experiment(),
      stochastic_rounding_experiment(),
      amp_mlp_experiment(),
      amp_levels_experiment(),
      harmonic_experiment(),
      nan_on_overflow_experiment(),
      graphcore_options_experiment(),
      amp_recipe_experiment(),
      fp8_scaling_experiment(),
      microscaling_experiment(),
      fp4_stochastic_experiment(),
  };
  return list;
}

}  // namespace numlab::experiments
