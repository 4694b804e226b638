#include "libnum/philox.hpp"

namespace num {

void random_stream::fill(std::span<std::uint32_t> out, std::uint64_t first) const {
  std::uint64_t i = first;
  std::size_t k = 0;
  while (k < out.size()) {
    const auto b = block(i / 4);
    for (std::uint64_t j = i % 4; j < 4 && k < out.size(); ++j, ++i, ++k) out[k] = b[j];
  }
}

}  // namespace num
