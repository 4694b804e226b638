// The byte layout of tensor_stats.histogram: consecutive unsigned 64-bit
// little-endian counts (see rundb/SCHEMA.md). Internal to rundb.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace rundb::detail {

std::vector<unsigned char> encode_counts(std::span<const std::uint64_t> counts);
/// std::nullopt when the byte count is not a multiple of 8 (a damaged blob).
std::optional<std::vector<std::uint64_t>> decode_counts(std::span<const unsigned char> bytes);

}  // namespace rundb::detail
