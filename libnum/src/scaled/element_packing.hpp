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

/// The n FP6 codes (one per byte) of elements first .. first + n - 1 packed
/// into place: whole groups of four written whatever the bytes held (eight
/// at a time, and with `avx2` 32, pack_fp6_avx2), an element of a group
/// that reaches past the n ORed in (that group's bytes must start zeroed).
void pack_fp6_codes(const std::uint8_t* codes, std::size_t n, std::span<std::uint8_t> packed, std::size_t first,
                    bool avx2);
/// The FP6 codes of elements first .. first + n - 1 of a packed array, one
/// per byte, into `codes`.
void unpack_fp6_codes(std::span<const std::uint8_t> packed, std::size_t first, std::size_t n, std::uint8_t* codes);

/// FP6 codes (one per byte) packed with AVX2, four to three bytes, from
/// codes[0] into out (a group's start): 32 a step while at least 40 remain;
/// returns how many it packed (a multiple of 32). It writes up to 4 bytes
/// past them, which the caller's packing of the next eight overwrites. Call
/// only where the CPU has AVX2 (the MX kernels' paths).
std::size_t pack_fp6_avx2(const std::uint8_t* codes, std::size_t n, std::uint8_t* out);

}  // namespace num::scaled_detail
