// Export of run-database tables as CSV and JSON, for `numlab inspect --csv/--json`.
#pragma once

#include <ostream>

#include "rundb/reader.hpp"

namespace rundb {

/// RFC 4180 CSV with a header row; NULL is an empty field, histogram counts
/// are one field of space-separated integers.
void write_csv(const table& data, std::ostream& out);

/// A JSON array of objects keyed by column name; NULL and non-finite reals
/// are null, histogram counts are arrays of integers.
void write_json(const table& data, std::ostream& out);

}  // namespace rundb
