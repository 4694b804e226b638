// Little-endian encoding of histogram counts, independent of the host's byte order.
#include "histogram_blob.hpp"

namespace rundb::detail {

std::vector<unsigned char> encode_counts(std::span<const std::uint64_t> counts) {
  std::vector<unsigned char> bytes;
  bytes.reserve(counts.size() * 8);
  for (std::uint64_t c : counts)
    for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<unsigned char>(c >> (8 * b)));
  return bytes;
}

std::optional<std::vector<std::uint64_t>> decode_counts(std::span<const unsigned char> bytes) {
  if (bytes.size() % 8 != 0) return std::nullopt;
  std::vector<std::uint64_t> counts(bytes.size() / 8);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    std::uint64_t c = 0;
    for (int b = 0; b < 8; ++b) c |= std::uint64_t{bytes[i * 8 + static_cast<std::size_t>(b)]} << (8 * b);
    counts[i] = c;
  }
  return counts;
}

}  // namespace rundb::detail
