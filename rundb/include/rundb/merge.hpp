// Merging run databases into one file (`numlab merge`), e.g. the per-point
// databases of a sweep, so that one reader sees every run.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

namespace rundb {

/// What a merge wrote.
struct merge_summary {
  std::size_t files = 0;
  std::size_t runs = 0;
};

/// Writes a new run database `out` (this build's schema version) holding
/// every run of `inputs`, in input order, each with its rows of every table —
/// configuration, coordinates, steps, statistics, events, evaluations — and
/// new run ids (runs of later files numbered after earlier ones). Formats
/// declared by several inputs keep the last declaration. Inputs of older
/// schema versions are read as their reader reads them; the per-bucket
/// summaries (tensor_stats_buckets) are computed afresh for every run.
///
/// Atomic: the file is built under a temporary name beside `out` and renamed
/// only when complete and synced; on any error nothing is left behind and
/// `out` is untouched. Throws rundb::error when `out` exists (unless
/// `replace`), is one of the inputs, or an input is given twice, is not a run
/// database, or is of a newer version.
merge_summary merge(const std::filesystem::path& out, std::span<const std::filesystem::path> inputs,
                    bool replace = false);

}  // namespace rundb
