// Loaders that read a run database into the view data of run_data.hpp. Each
// opens its own reader, so any of them may run on a worker thread. They throw
// rundb::error (whose message names the file) on bad files.
#pragma once

#include "run_data.hpp"

namespace numlab_gui {

/// The runs in a file and their step counts.
file_listing load_listing(const QString& file);
/// Overview series of one run, at most `max_points` plotted steps.
overview_series load_overview(const run_ref& run, std::size_t max_points);
/// The map of one role (grad_weight, else the first role with data, when
/// `role` is absent), with at most `max_columns` step columns.
map_grid load_map(const run_ref& run, const std::string& role, map_metric metric, std::size_t max_columns);
/// Every histogram of layer/role, selecting the largest recorded step <= `step`. Empty
/// layer or role pick the first available; a negative step picks the last.
histogram_data load_histogram(const run_ref& run, const std::string& layer, const std::string& role,
                              std::int64_t step);
/// Swamping of every layer's updates.
swamping_data load_swamping(const run_ref& run);
/// Every event of a run.
event_list load_events(const run_ref& run);

/// The fraction `metric` measures in one record (0 for an empty tensor).
double metric_fraction(const rundb::tensor_stats_record& stats, map_metric metric);

}  // namespace numlab_gui
