// Little-endian encoding of histogram counts, independent of the host's byte order.
#include "histogram_blob.hpp"

#include <algorithm>
#include <bit>
#include <limits>

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

std::optional<histogram> decode_histogram(std::int64_t first_exponent, std::span<const unsigned char> bytes) {
  auto bins = decode_counts(bytes);
  if (!bins || bins->size() == 1 || first_exponent < std::numeric_limits<std::int32_t>::min() ||
      first_exponent > std::numeric_limits<std::int32_t>::max()) {
    return std::nullopt;
  }
  return histogram{static_cast<std::int32_t>(first_exponent), std::move(*bins)};
}

std::vector<unsigned char> encode_reals(std::span<const double> values) {
  std::vector<std::uint64_t> bits(values.size());
  std::transform(values.begin(), values.end(), bits.begin(), [](double v) { return std::bit_cast<std::uint64_t>(v); });
  return encode_counts(bits);
}

std::optional<std::vector<double>> decode_reals(std::span<const unsigned char> bytes) {
  const auto bits = decode_counts(bytes);
  if (!bits) return std::nullopt;
  std::vector<double> values(bits->size());
  std::transform(bits->begin(), bits->end(), values.begin(), [](std::uint64_t b) { return std::bit_cast<double>(b); });
  return values;
}

}  // namespace rundb::detail
