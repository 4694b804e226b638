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

}  // namespace numlab::experiments
