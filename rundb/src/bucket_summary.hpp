// The per-bucket summaries of tensor_stats (schema version 4's
// tensor_stats_buckets and tensor_stats_bucket_histograms, rundb/SCHEMA.md): derived from the statistics rows,
// by the writer for the buckets each batch touches and by upgrade and merge
// for whole files. Internal to rundb.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "sqlite.hpp"

namespace rundb::detail {

/// The summary bucket of a step: floor(step / summary_bucket_steps).
std::int64_t bucket_of(std::int64_t step);

/// The column of each rundb::counted_stat, in its order: tensor_stats' then scale_stats'.
inline constexpr std::array<const char*, 11> counted_stat_columns{
    "zeros", "subnormals", "underflows", "overflows", "nans", "infs", "swamped", "partially_swamped",
    "block_underflow", "underflow_to_zero", "saturated"};
/// The counted tensor_stats columns a bucket keeps a total and a worst step
/// of, in rundb::counted_stat order (zeros .. partially_swamped).
inline constexpr std::span<const char* const, 8> bucket_counted_columns{counted_stat_columns.data(), 8};

struct bucket_fold;

/// Recomputes rows of tensor_stats_buckets (and their summed histograms) from tensor_stats with statements
/// prepared once. Runs inside the caller's transaction; `db` must be a file
/// of schema version 4 and outlive the summarizer.
class bucket_summarizer {
 public:
  explicit bucket_summarizer(database& db);
  ~bucket_summarizer();
  bucket_summarizer(const bucket_summarizer&) = delete;
  bucket_summarizer& operator=(const bucket_summarizer&) = delete;

  /// Rewrites the summaries of run/layer/role for buckets first..last
  /// (inclusive) from the statistics rows in their steps.
  void rebuild(std::int64_t run, std::string_view layer, std::string_view role, std::int64_t first_bucket,
               std::int64_t last_bucket);
  /// The writer's call after appending rows of steps first_step..last_step
  /// to run/layer/role: the same summaries as rebuild() of the buckets those
  /// steps touch. A training run appends step after step, so the rows of a
  /// batch usually fall into the bucket the previous call left open: its fold
  /// is kept and continued with the new rows alone, instead of reading the
  /// whole bucket again at every commit (32 steps read 528 rows, not 32).
  /// Holds only while this summarizer's caller is the only one appending to
  /// the run; call forget() when a transaction it ran in rolls back.
  void append(std::int64_t run, std::string_view layer, std::string_view role, std::int64_t first_step,
              std::int64_t last_step);
  /// Drops the folds kept by append(): the next call reads its buckets whole.
  void forget();
  /// Rewrites every summary of the file.
  void rebuild_all();

 private:
  struct open_buckets;
  std::optional<bucket_fold> fold_rows(std::int64_t run, std::string_view layer, std::string_view role,
                                       std::int64_t first_bucket, std::int64_t last_bucket,
                                       std::optional<bucket_fold> open);
  void write(std::int64_t run, std::string_view layer, std::string_view role, const bucket_fold& b);
  database& db_;
  statement read_, erase_, erase_histograms_, insert_, insert_histogram_;
  std::unique_ptr<open_buckets> open_;
};

}  // namespace rundb::detail
