// Creating and validating the run-database schema; internal to rundb.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sqlite.hpp"

namespace rundb::detail {

/// Creates every table and index of rundb/SCHEMA.md in an empty database and
/// stamps it with the application id and schema version.
void create_schema(database& db);

/// Creates schema version 4's tensor_stats_buckets and tensor_stats_bucket_histograms (empty).
void create_bucket_tables(database& db);

/// Replaces the runs table of a file older than version 5 by this version's
/// (whose status CHECK admits 'killed'), every row kept. Call inside a transaction.
void rebuild_runs_table(database& db);

/// Throws not_a_run_database, newer_schema or corrupt_database unless `db`
/// is a run database this build can read. An empty file is not a run database.
void check_schema(database& db);

/// True when `db` has no tables at all (a freshly created file).
bool is_empty_database(database& db);

/// True when `db` holds a table named `table` (files of older versions lack
/// the tables added since; readers treat those as empty).
bool has_table(database& db, std::string_view table);

/// The column names of `table` in this build's schema, in order; empty for
/// an unknown table.
std::vector<std::string> schema_columns(std::string_view table);

}  // namespace rundb::detail
