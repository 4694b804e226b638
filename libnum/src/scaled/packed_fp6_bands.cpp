// Packed FP6 (four elements in three bytes) through the MX block kernels,
// which store whole bytes: the tensor is quantized in bands, each one
// element per byte into a buffer that stays in cache, and each band's
// codes are then packed into place. Before, every packed FP6 call ran
// scalar, about 130 times slower than its one-byte-per-element twin.
//
// A band is whole rows, or a run of one row's whole blocks where a row is
// longer than a band. MX blocks are 1x32 along rows, so a band holds the
// same blocks it holds within the whole tensor, and each element keeps its
// random word (first_index moves with the band): the codes, scales, counts
// and flags are those of one call over the whole tensor.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>

#include "element_packing.hpp"
#include "quantize_setup.hpp"

namespace num::scaled_detail {
namespace {

// Elements per band: 32 KB of codes, about an L1 cache, and a multiple of
// the 32-element block.
constexpr std::size_t band_elements = 32768;

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

// The n codes of elements first .. first + n - 1 into the packed array.
// Whole groups of four are written, whatever the bytes held, 32 elements a
// step with AVX2 (every path that runs this has it); an element in a group
// shared with another band is ORed in (the caller zeroed the array where
// that can happen).
void pack_codes(const std::uint8_t* codes, std::size_t n, std::span<std::uint8_t> packed, std::size_t first) {
  std::size_t k = 0;
  for (; k < n && (first + k) % 4 != 0; ++k) store_element(packed, 6, element_layout::packed, first + k, codes[k]);
  std::uint8_t* out = packed.data() + (first + k) / 4 * 3;
  const std::size_t vectorised = pack_fp6_avx2(codes + k, n - k, out);
  k += vectorised;
  out += vectorised / 4 * 3;
  std::uint64_t group = 0;
  for (; k + 8 <= n; k += 8, out += 6) {
    std::memcpy(&group, codes + k, 8);
    group = pack_eight(group);
    std::memcpy(out, &group, 6);  // little-endian, as the layout's bit stream
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

}  // namespace

bool packed_fp6_bands_fit(const scaled_options& o, tensor_shape shape) {
  if (o.layout != element_layout::packed || element_bits(o.format.element) != 6 || shape.size() == 0) return false;
  scaled_options bytes = o;
  bytes.layout = element_layout::byte_per_element;
  return fused_values_fit(bytes, shape);  // a block kernel takes the whole call
}

scaled_result quantize_packed_fp6_bands(std::span<const float> in, tensor_shape shape,
                                        std::span<std::uint8_t> elements, std::span<std::uint32_t> scales,
                                        const scaled_options& options) {
  static_assert(std::endian::native == std::endian::little, "pack_codes stores the group's low bytes first");
  scaled_options bytes = options;
  bytes.layout = element_layout::byte_per_element;
  const std::size_t cols = shape.cols;
  const std::size_t blocks_per_row = block_grid(options.format, {1, cols}).block_cols;
  // Rows of a multiple of four elements start groups of their own, so every
  // group lies in one band and is written whole; else zero first for the ORs.
  if (cols % 4 != 0) std::fill(elements.begin(), elements.end(), std::uint8_t{0});
  const std::size_t buffer_size = std::min(shape.size(), band_elements > cols ? band_elements / cols * cols
                                                                              : band_elements);
  const auto buffer = std::make_unique_for_overwrite<std::uint8_t[]>(buffer_size);
  scaled_result result;
  // One band: `part` starting at element `first`, its blocks at scale `first_scale`.
  auto band = [&](std::size_t first, tensor_shape part, std::size_t first_scale) {
    bytes.first_index = options.first_index + first;
    const scaled_result r =
        quantize_into(in.subspan(first, part.size()), part, {buffer.get(), part.size()},
                      scales.subspan(first_scale, scale_count(options.format, part)), bytes, nullptr);
    pack_codes(buffer.get(), part.size(), elements, first);
    result.counts += r.counts;
    result.raised |= r.raised;
    result.path = r.path;
  };
  if (cols > band_elements) {
    for (std::size_t row = 0; row < shape.rows; ++row) {
      for (std::size_t col = 0; col < cols; col += band_elements) {
        band(row * cols + col, {1, std::min(band_elements, cols - col)}, row * blocks_per_row + col / options.format.block.cols);
      }
    }
  } else {
    const std::size_t rows_per_band = band_elements / cols;
    for (std::size_t row = 0; row < shape.rows; row += rows_per_band) {
      band(row * cols, {std::min(rows_per_band, shape.rows - row), cols}, row * blocks_per_row);
    }
  }
  return result;
}

}  // namespace num::scaled_detail
