// The data of the comparison view: the runs of a sweep (one merged file or
// one file per point), where each sits in the grid (run_coordinates, schema
// v3), how it ended, and its loss curve; and the seed bands, the runs grouped
// by one sweep key with the mean and standard deviation of their losses.
//
// Only finished runs are scored: a diverged, failed, trapped, interrupted or
// still running run is counted in its group and shown in the grid table, but
// never enters a band or a mean (its loss would be a NaN, an explosion, or a
// curve cut short).
#pragma once

#include <QStringList>
#include <QtGlobal>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "async_query.hpp"
#include "run_data.hpp"

namespace numlab_gui {

/// One run of a comparison.
struct compared_run {
  run_ref run;
  rundb::run_status status = rundb::run_status::running;
  std::vector<rundb::coordinate> coordinates;  ///< sorted by key; empty outside a sweep
  std::vector<rundb::loss_point> loss_curve;   ///< training loss, decimated for plotting
  std::optional<double> final_loss;            ///< loss of the run's last step; empty when it recorded none
  std::optional<double> final_accuracy;        ///< accuracy of the last evaluation that recorded one
  run_trouble_counts counts;

  /// The value of coordinate `key`, if the run has it.
  std::optional<std::string> coordinate(const std::string& key) const;
};

/// Every run of the compared files.
struct comparison_data {
  QStringList files;
  std::vector<compared_run> runs;
  std::vector<std::string> keys;  ///< every coordinate key of any run, sorted
  qint64 load_ms = 0;              ///< how long load_comparison took
};

/// Mean and sample standard deviation (n - 1; 0 for one value) of `values`.
struct mean_sd {
  double mean = 0;
  double sd = 0;
  std::size_t n = 0;
};
mean_sd mean_and_sd(const std::vector<double>& values);

/// The runs sharing one value of the grouping key, with their band.
struct seed_band {
  std::string value;                  ///< the key's value; "(none)" for runs without the key
  std::vector<std::size_t> members;   ///< indices into comparison_data::runs, every outcome
  std::size_t finished = 0;           ///< members scored (status finished)
  std::vector<double> steps;          ///< where the band is evaluated, ascending
  std::vector<double> mean, sd;       ///< of the finished members' losses at each step
  std::vector<std::size_t> n;         ///< how many finished members had a loss there
  mean_sd final_accuracy;             ///< over finished members that evaluated
  mean_sd final_loss;                 ///< over finished members with a final loss
};

/// Groups `data`'s runs by the value of `key` (each run alone, labelled by
/// its run label, when `key` is empty), in order of first appearance. A
/// band is evaluated at the union of its finished members' recorded steps
/// (thinned evenly to at most `max_points`), each member contributing its
/// latest loss at or before that step, from its first to its last record.
std::vector<seed_band> group_runs(const comparison_data& data, const std::string& key, std::size_t max_points);

/// The key a comparison groups by first: the first key other than "seed"
/// whose runs take more than one value; else the first key; else "".
std::string default_group_key(const comparison_data& data);

/// The runs grouped by one key: what the comparison view draws.
struct comparison_grouping {
  std::string key;               ///< the key grouped by; empty: every run alone
  std::vector<seed_band> bands;  ///< group_runs(data, key, ...)
};

/// Groups `data` for a view that asked for `wanted`: by that key when some
/// run has it; every run alone for ""; by default_group_key() when nothing
/// was asked (nullopt) or no run has the key. Pure, so it runs on a worker.
comparison_grouping group_as_asked(const comparison_data& data, const std::optional<std::string>& wanted,
                                   std::size_t max_points);

/// How far a load_comparison has come: written by the worker as it reads,
/// read by the UI thread's progress bar. Each field is atomic on its own; a
/// reader may see them from two moments, which a progress bar can bear.
struct load_progress {
  std::atomic<int> file{0};             ///< the file being read, from 0
  std::atomic<int> files{0};
  std::atomic<std::size_t> runs_read{0};  ///< of that file (rundb::outcome_progress)
  std::atomic<std::size_t> runs{0};

  /// Done so far, in thousandths of the whole load (files count alike).
  int permille() const;
};

/// Reads every run of `files`, with at most `max_points` loss points per run
/// (rundb::reader::run_outcomes: a few statements per file, none per run),
/// telling `progress` (when given) how far it has come.
/// Throws rundb::error (naming the file) when a file cannot be read.
comparison_data load_comparison(const QStringList& files, std::size_t max_points, const interrupt_flag& interrupt,
                                load_progress* progress = nullptr);

}  // namespace numlab_gui
