#include "experiments/summation.hpp"

namespace numlab::experiments {

num::environment rounding_environment(num::rounding mode, int random_bits, std::uint64_t seed,
                                      std::uint64_t stream) {
  num::environment e;
  e.spec.mode = mode;
  e.spec.random_bits = random_bits;
  e.random = num::random_stream(seed, stream);
  return e;
}

std::string stochastic_runs_note(std::uint64_t seed, int runs) {
  return "run k (k = 0.." + std::to_string(runs - 1) + ") draws its random words from Philox4x32-10 with seed " +
         std::to_string(seed) + " and stream k";
}

}  // namespace numlab::experiments
