// Comparing the runs of a sweep grouped by sweep keys (`numlab inspect
// --compare KEY`): outcome counts per group, and mean ± sd over the group's
// finished runs (its seeds, when seed is the key left out). A diverged or
// failed run is counted as such and never scored.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "rundb/reader.hpp"

namespace rundb {

/// Mean and sample standard deviation of some values.
struct mean_sd {
  std::size_t n = 0;
  double mean = 0;
  double sd = 0;  ///< sqrt(sum (x - mean)^2 / (n - 1)); 0 when n < 2
};

/// One group of runs sharing the values of the compared keys.
struct run_group {
  std::vector<std::string> values{};  ///< one per key, "-" for a run without that coordinate
  std::size_t runs = 0;
  std::size_t finished = 0;
  std::size_t diverged = 0;
  std::size_t other = 0;        ///< failed, trapped, interrupted or still running
  mean_sd final_accuracy{};     ///< accuracy of the last evaluation that recorded one, finished runs with one
  mean_sd overflow_events{};    ///< events of kind overflow per finished run
  mean_sd skipped_steps{};      ///< skipped steps per finished run
};

/// The runs of `db` grouped by their coordinates of `keys`, groups sorted by
/// those values (numbers numerically): group_outcomes of
/// db.run_outcomes_without_curves(), so one statement per table, none per run. Throws rundb::error when no run
/// has any of the keys as a coordinate (naming the keys that runs do have).
std::vector<run_group> compare_runs(reader& db, std::span<const std::string> keys);

/// `outcomes` grouped by their coordinates of `keys` ("-" for a run without
/// one), groups sorted by those values (numbers numerically); only finished
/// runs are scored.
std::vector<run_group> group_outcomes(std::span<const run_outcome> outcomes, std::span<const std::string> keys);

/// The groups as a table: the keys' values, runs, finished, diverged, other,
/// then accuracy, overflow events and skipped steps as mean ± sd.
void write_comparison(std::span<const std::string> keys, std::span<const run_group> groups, std::ostream& out);

/// mean_sd of `values` (two passes, so large means lose no precision).
mean_sd mean_and_sd(std::span<const double> values);

}  // namespace rundb
