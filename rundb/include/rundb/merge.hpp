// Merging run databases into one file (`numlab merge`), e.g. the per-point
// databases of a sweep, so that one reader sees every run.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>

namespace rundb {

/// One file to merge.
struct merge_input {
  std::filesystem::path file{};
  /// The caller knows that no process writes `file` any more (`numlab merge`
  /// knows it of a sweep point whose lock nobody holds, sweep/point_lock.hpp):
  /// its runs still `running` are written as `killed`. rundb itself cannot
  /// tell a live writer from a dead one.
  bool writer_gone = false;
};

/// What a merge wrote.
struct merge_summary {
  std::size_t files = 0;
  std::size_t runs = 0;
  std::size_t killed = 0;  ///< runs written as `killed` that their input left `running`
};

/// Writes a new run database `out` (this build's schema version) holding
/// every run of `inputs`, in input order, each with its rows of every table —
/// configuration, coordinates, steps, statistics, events, evaluations — and
/// new run ids (runs of later files numbered after earlier ones). Formats
/// declared by several inputs keep the last declaration. A run left
/// `running` by an input whose `writer_gone` is set is written as `killed`;
/// the input itself is only read. Inputs of older
/// schema versions are read as their reader reads them; the per-bucket
/// summaries (tensor_stats_buckets) are computed afresh for every run.
///
/// Atomic: the file is built under a temporary name beside `out` and renamed
/// only when complete and synced; on any error nothing is left behind and
/// `out` is untouched. Throws rundb::error when `out` exists (unless
/// `replace`), is one of the inputs, or an input is given twice, is not a run
/// database, or is of a newer version.
merge_summary merge(const std::filesystem::path& out, std::span<const merge_input> inputs, bool replace = false);

/// merge() one input at a time, for a caller that must decide about each
/// input (and hold a lock on it) only while it is copied, never on all at
/// once: `numlab merge` holds one sweep point's lock at a time, however many
/// points there are. add() copies an input (throwing as merge() does, naming
/// it; the merger is then unusable), commit() writes `out`; a merger
/// destroyed uncommitted leaves nothing behind.
class merger {
 public:
  /// Throws rundb::error when `out` exists, unless `replace`.
  explicit merger(std::filesystem::path out, bool replace = false);
  ~merger();
  merger(const merger&) = delete;
  merger& operator=(const merger&) = delete;

  void add(const merge_input& input);
  /// Computes the summaries and renames the file into place; call once.
  merge_summary commit();

 private:
  struct state;
  std::unique_ptr<state> state_;
};

}  // namespace rundb
