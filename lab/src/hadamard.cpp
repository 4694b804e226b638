#include "lab/hadamard.hpp"

#include <libnum/philox.hpp>

namespace lab {

std::array<float, hadamard_size> hadamard_signs(std::uint64_t seed) {
  constexpr std::uint64_t stream = 0x48414441;  // "HADA"
  const num::random_stream random(seed, stream);
  std::array<float, hadamard_size> signs{};
  for (std::size_t i = 0; i < hadamard_size; ++i) signs[i] = (random.word(i) & 1u) != 0 ? -1.0f : 1.0f;
  return signs;
}

void hadamard_transform_rows(std::span<float> values, std::size_t k, std::span<const float, hadamard_size> signs) {
  if (k == 0) return;
  const std::size_t rows = values.size() / k, runs = k / hadamard_size;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t run = 0; run < runs; ++run) {
      float* x = values.data() + r * k + run * hadamard_size;
      for (std::size_t i = 0; i < hadamard_size; ++i) x[i] *= signs[i];
      for (std::size_t h = 1; h < hadamard_size; h *= 2)
        for (std::size_t i = 0; i < hadamard_size; i += 2 * h)
          for (std::size_t j = i; j < i + h; ++j) {
            const float a = x[j], b = x[j + h];
            x[j] = a + b;
            x[j + h] = a - b;
          }
      for (std::size_t i = 0; i < hadamard_size; ++i) x[i] *= 0.25f;
    }
}

}  // namespace lab
