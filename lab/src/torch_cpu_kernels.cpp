#include "lab/torch_cpu_kernels.hpp"

#include <algorithm>
#include <cmath>

#include <libnum/codec.hpp>
#include <libnum/convert.hpp>
#include <libnum/format.hpp>

namespace lab {

namespace {

// at::internal::GRAIN_SIZE, the grain TensorIterator::for_each hands to
// at::parallel_for in PyTorch 1.13.
constexpr std::size_t torch_grain = 32768;

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

}  // namespace

std::size_t torch_cpu_kernels::block() const { return capability == torch_cpu_capability::avx512 ? 64 : 32; }

std::vector<std::pair<std::size_t, std::size_t>> torch_cpu_kernels::scalar_ranges(std::size_t n) const {
  // parallel_for runs serially unless n exceeds the grain and torch has more
  // than one thread; otherwise invoke_parallel gives each of
  // min(threads, ceil(n / grain)) threads ceil(n / chunks) elements.
  const std::size_t chunks = n > torch_grain && threads > 1 ? std::min(threads, ceil_div(n, torch_grain)) : 1;
  const std::size_t chunk = n == 0 ? 0 : ceil_div(n, chunks);
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (std::size_t begin = 0; begin < n; begin += chunk) {
    const std::size_t end = std::min(n, begin + chunk);
    const std::size_t tail = (end - begin) % block();
    if (tail != 0) ranges.emplace_back(end - tail, end);
  }
  return ranges;
}

void torch_bf16_add(const torch_cpu_kernels& kernels, std::span<const float> a, float s, std::span<const float> b,
                    std::span<float> out) {
  // Element by element in one pass, so that out may alias a or b.
  std::size_t i = 0;
  for (const auto& [first, last] : kernels.scalar_ranges(out.size())) {
    for (; i < first; ++i) out[i] = std::fma(s, b[i], a[i]);
    for (; i < last; ++i) {
      const double product = static_cast<double>(s) * b[i];  // exact: bf16 times bf16
      const float rounded = num::to_float(num::bfloat16_format,
                                          num::from_double(num::bfloat16_format, product, num::round_spec{}).bits);
      out[i] = a[i] + rounded;
    }
  }
  for (; i < out.size(); ++i) out[i] = std::fma(s, b[i], a[i]);
}

}  // namespace lab
