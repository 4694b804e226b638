// The byte layouts of the BLOB columns (see rundb/SCHEMA.md): histograms are
// consecutive unsigned 64-bit little-endian counts, scale_stats.amax_history
// consecutive little-endian IEEE binary64 values. Internal to rundb.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "rundb/records.hpp"

namespace rundb::detail {

std::vector<unsigned char> encode_counts(std::span<const std::uint64_t> counts);
/// std::nullopt when the byte count is not a multiple of 8 (a damaged blob).
std::optional<std::vector<std::uint64_t>> decode_counts(std::span<const unsigned char> bytes);

/// A histogram from its stored first exponent and blob; std::nullopt when
/// damaged (a partial count, a single bin, an exponent beyond int32).
std::optional<histogram> decode_histogram(std::int64_t first_exponent, std::span<const unsigned char> bytes);

std::vector<unsigned char> encode_reals(std::span<const double> values);
/// std::nullopt when the byte count is not a multiple of 8 (a damaged blob).
std::optional<std::vector<double>> decode_reals(std::span<const unsigned char> bytes);

}  // namespace rundb::detail
