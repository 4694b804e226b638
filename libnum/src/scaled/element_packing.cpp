// Element layouts: one per byte, or dense (FP4 two per byte, FP6 four per
// three bytes as a little-endian bit stream).
#include "element_packing.hpp"

#include <bit>
#include <cstring>

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

namespace {

static_assert(std::endian::native == std::endian::little, "FP6 groups are stored low byte first");

// Eight 6-bit codes (one per byte, little-endian) as their 48-bit packed
// group: pairs into 12 bits, then 24, then 48, each step moving every
// second field down over the gap above its neighbour (pack_fp6_avx2 does
// the same on vectors). Plain shifts, as BMI2's pext is slow on older AMD
// cores.
std::uint64_t pack_eight(std::uint64_t codes) {
  std::uint64_t v = (codes & 0x003F003F003F003Full) | ((codes & 0x3F003F003F003F00ull) >> 2);
  v = (v & 0x00000FFF00000FFFull) | ((v & 0x0FFF00000FFF0000ull) >> 4);
  return (v & 0x0000000000FFFFFFull) | ((v & 0x00FFFFFF00000000ull) >> 8);
}

// pack_eight's inverse: a 48-bit group's eight codes, one per byte.
std::uint64_t unpack_eight(std::uint64_t group) {
  std::uint64_t v = (group & 0x0000000000FFFFFFull) | ((group << 8) & 0x00FFFFFF00000000ull);
  v = (v & 0x00000FFF00000FFFull) | ((v << 4) & 0x0FFF00000FFF0000ull);
  return (v & 0x003F003F003F003Full) | ((v << 2) & 0x3F003F003F003F00ull);
}

}  // namespace

void pack_fp6_codes(const std::uint8_t* codes, std::size_t n, std::span<std::uint8_t> packed, std::size_t first,
                    bool avx2) {
  std::size_t k = 0;
  for (; k < n && (first + k) % 4 != 0; ++k) store_element(packed, 6, element_layout::packed, first + k, codes[k]);
  std::uint8_t* out = packed.data() + (first + k) / 4 * 3;
  if (avx2) {
    const std::size_t vectorised = pack_fp6_avx2(codes + k, n - k, out);
    k += vectorised;
    out += vectorised / 4 * 3;
  }
  std::uint64_t group = 0;
  for (; k + 8 <= n; k += 8, out += 6) {
    std::memcpy(&group, codes + k, 8);
    group = pack_eight(group);
    std::memcpy(out, &group, 6);
  }
  if (k + 4 <= n) {  // a last whole group of four
    group = 0;
    std::memcpy(&group, codes + k, 4);
    group = pack_eight(group);
    std::memcpy(out, &group, 3);
    k += 4;
  }
  for (; k < n; ++k) store_element(packed, 6, element_layout::packed, first + k, codes[k]);
}

void unpack_fp6_codes(std::span<const std::uint8_t> packed, std::size_t first, std::size_t n, std::uint8_t* codes) {
  std::size_t k = 0;
  auto one = [&](std::size_t i) {
    return static_cast<std::uint8_t>(load_element(packed, 6, element_layout::packed, i));
  };
  for (; k < n && (first + k) % 4 != 0; ++k) codes[k] = one(first + k);
  const std::uint8_t* in = packed.data() + (first + k) / 4 * 3;
  for (; k + 8 <= n; k += 8, in += 6) {
    // The six bytes as two loads joined in a register: a 6-byte memcpy into
    // a zeroed word went through the stack, and the 8-byte load after two
    // narrower stores missed store forwarding (3x slower).
    std::uint32_t low = 0;
    std::uint16_t high = 0;
    std::memcpy(&low, in, 4);
    std::memcpy(&high, in + 4, 2);
    const std::uint64_t eight = unpack_eight(low | std::uint64_t{high} << 32);
    std::memcpy(codes + k, &eight, 8);
  }
  for (; k < n; ++k) codes[k] = one(first + k);
}

}  // namespace num::scaled_detail
