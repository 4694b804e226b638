// Element layouts: one per byte, or dense (FP4 two per byte, FP6 four per
// three bytes as a little-endian bit stream).
#include "element_packing.hpp"

namespace num::scaled_detail {

void store_element(std::span<std::uint8_t> elements, int bits, element_layout layout, std::size_t k,
                   std::uint32_t code) {
  if (layout == element_layout::byte_per_element || bits == 8) {
    elements[k] = static_cast<std::uint8_t>(code);
    return;
  }
  const std::size_t bit = k * static_cast<std::size_t>(bits);
  const unsigned shift = bit % 8;
  const std::uint32_t placed = code << shift;
  elements[bit / 8] |= static_cast<std::uint8_t>(placed);
  if (shift + static_cast<unsigned>(bits) > 8) elements[bit / 8 + 1] |= static_cast<std::uint8_t>(placed >> 8);
}

std::uint32_t load_element(std::span<const std::uint8_t> elements, int bits, element_layout layout, std::size_t k) {
  if (layout == element_layout::byte_per_element || bits == 8) return elements[k];
  const std::size_t bit = k * static_cast<std::size_t>(bits);
  const unsigned shift = bit % 8;
  std::uint32_t window = elements[bit / 8];
  if (shift + static_cast<unsigned>(bits) > 8) window |= std::uint32_t{elements[bit / 8 + 1]} << 8;
  return (window >> shift) & ((std::uint32_t{1} << bits) - 1);
}

}  // namespace num::scaled_detail
