// Export of run-database tables as CSV and JSON, for `numlab inspect --csv/--json`.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "rundb/reader.hpp"

namespace rundb {

/// One CSV field as RFC 4180 writes it: quoted when it holds a comma, a quote
/// or a line break, with embedded quotes doubled; otherwise unchanged.
std::string csv_field(std::string_view text);

/// RFC 4180 CSV with a header row (CRLF line ends); NULL is an empty field, histogram counts
/// are one field of space-separated integers, real arrays (amax histories) one field of
/// space-separated shortest round-trip reals.
void write_csv(const table& data, std::ostream& out);

/// A JSON array of objects keyed by column name; NULL and non-finite reals
/// are null, histogram counts are arrays of integers, real arrays arrays of numbers.
void write_json(const table& data, std::ostream& out);

}  // namespace rundb
