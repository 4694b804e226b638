// Identity and version of the run-database file format (see rundb/SCHEMA.md).
#pragma once

#include <cstdint>

namespace rundb {

/// Stored in the SQLite header (PRAGMA application_id): "NMLB".
inline constexpr std::int32_t application_id = 0x4E4D4C42;
/// Stored in PRAGMA user_version and meta.schema_version; bumped on any
/// incompatible change. Readers refuse files with a larger number and read
/// older ones; the writer appends only to files of this version.
/// 2: runs.status may be 'diverged'.
/// 3: evaluations.loss nullable (NaN), run_coordinates, scale_stats.
/// 4: tensor_stats_buckets, per-bucket summaries the writer keeps.
/// 5: runs.status may be 'killed'.
inline constexpr int schema_version = 5;
/// Steps per row of tensor_stats_buckets: bucket b holds the steps s with
/// floor(s / summary_bucket_steps) = b. Part of schema version 4.
inline constexpr std::int64_t summary_bucket_steps = 32;
/// Stored in meta.application.
inline constexpr const char* application_name = "numlab-rundb";

}  // namespace rundb
