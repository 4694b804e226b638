// Text renderings of tensor and swamping statistics, shared by the table
// sink and `numlab round --stats`.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "swamping.hpp"
#include "tensor_stats.hpp"

namespace num {

/// Column titles matching stats_table_row().
std::string stats_table_header();
/// One line: step, site, role, target/mode, count, % zero / underflow /
/// subnormal, overflow, NaN and inf counts, min nonzero and max |x|, RMS.
std::string stats_table_row(std::string_view site, std::string_view role, std::uint64_t step,
                            const tensor_stats& s);
/// Column titles matching swamping_table_row().
std::string swamping_table_header();
/// One line: step, site, target/mode, updates, % totally and partially
/// swamped, effective/intended norm ratio.
std::string swamping_table_row(std::string_view site, std::uint64_t step, const swamping_stats& s);

/// A full report: counts with percentages, extremes, mean, RMS, and the
/// histogram from the lowest to the highest occupied bin, one line each with
/// a bar scaled to the largest bin.
void write_stats_report(std::ostream& out, const tensor_stats& s);

}  // namespace num
