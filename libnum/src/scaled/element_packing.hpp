// Internal: where element k lives in an element array of each layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "libnum/scaled_array.hpp"

namespace num::scaled_detail {

/// Writes element k's code; packed arrays must start zeroed.
void store_element(std::span<std::uint8_t> elements, int bits, element_layout layout, std::size_t k,
                   std::uint32_t code);
/// Reads element k's code.
std::uint32_t load_element(std::span<const std::uint8_t> elements, int bits, element_layout layout, std::size_t k);

}  // namespace num::scaled_detail
