// The per-bucket summaries of tensor_stats (schema version 4's
// tensor_stats_buckets and tensor_stats_bucket_histograms, rundb/SCHEMA.md): derived from the statistics rows,
// by the writer for the buckets each batch touches and by upgrade and merge
// for whole files. Internal to rundb.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sqlite.hpp"

namespace rundb::detail {

/// The summary bucket of a step: floor(step / summary_bucket_steps).
std::int64_t bucket_of(std::int64_t step);

/// The counted tensor_stats columns a bucket keeps a total and a worst step
/// of, in rundb::counted_stat order (zeros .. partially_swamped).
inline constexpr std::array<const char*, 8> bucket_counted_columns{
    "zeros", "subnormals", "underflows", "overflows", "nans", "infs", "swamped", "partially_swamped"};

/// Recomputes rows of tensor_stats_buckets (and their summed histograms) from tensor_stats with statements
/// prepared once. Runs inside the caller's transaction; `db` must be a file
/// of schema version 4 and outlive the summarizer.
class bucket_summarizer {
 public:
  explicit bucket_summarizer(database& db);

  /// Rewrites the summaries of run/layer/role for buckets first..last
  /// (inclusive) from the statistics rows in their steps.
  void rebuild(std::int64_t run, std::string_view layer, std::string_view role, std::int64_t first_bucket,
               std::int64_t last_bucket);
  /// Rewrites every summary of the file.
  void rebuild_all();

 private:
  database& db_;
  statement read_, erase_, erase_histograms_, insert_, insert_histogram_;
};

}  // namespace rundb::detail
