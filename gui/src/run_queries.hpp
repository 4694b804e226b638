// Loaders that read a run database into the view data of run_data.hpp. Each
// opens its own reader for the duration of the call (so no read transaction
// outlives it) and may run on a worker thread. They throw rundb::error (whose
// message names the file) on bad files, and rundb::interrupted as soon as
// `interrupt` is raised.
#pragma once

#include "async_query.hpp"
#include "run_data.hpp"

#include <array>
#include <optional>
#include <utility>

namespace numlab_gui {

/// A reader of `file` that stops as soon as `interrupt` is raised (each loader opens its own).
rundb::reader open_run_database(const QString& file, const interrupt_flag& interrupt);
/// The overflow events of one run in `range`.
std::vector<rundb::event_record> overflow_events(rundb::reader& db, rundb::run_id run, rundb::step_range range = {});
/// Steps, skipped steps, overflow and NaN events of one run (indexed queries only).
run_trouble_counts trouble_counts(rundb::reader& db, rundb::run_id run);
/// The runs in a file, their step counts and trouble counts.
file_listing load_listing(const QString& file, const interrupt_flag& interrupt);
/// Each run's worst underflowing layer and role (scans every run's statistics).
file_underflows load_file_underflows(const QString& file, const std::vector<rundb::run_id>& runs,
                                     const interrupt_flag& interrupt);
/// The problems of one run, from indexed queries only (fast on any size).
problem_summary load_problems(const run_ref& run, const interrupt_flag& interrupt);
/// The layers and roles that underflow most (scans every statistics row).
underflow_ranking load_underflow_ranking(const run_ref& run, const interrupt_flag& interrupt);
/// Overview series of one run, at most `max_points` plotted steps.
overview_series load_overview(const run_ref& run, std::size_t max_points, const interrupt_flag& interrupt);
/// The tensor_stats or scale_stats column a map metric colours by.
rundb::counted_stat counted_stat_of(map_metric metric);
/// The map of one role (grad_weight, else the first role with data, when
/// `role` is absent; every role when `role` is "*"), with at most
/// `max_columns` step columns, each keeping its worst step.
map_grid load_map(const run_ref& run, const std::string& role, map_metric metric, std::size_t max_columns,
                  const interrupt_flag& interrupt);
/// The histograms of layer/role (see histogram_data for which records are
/// loaded), selecting the largest recorded step <= `step`. Empty
/// layer or role pick the first available; a negative step picks the last.
/// `known_layers`, when not empty, saves listing the run's layers again.
histogram_data load_histogram(const run_ref& run, const std::vector<std::string>& known_layers,
                              const std::string& layer, const std::string& role, std::int64_t step,
                              const interrupt_flag& interrupt);
/// `held` (a load_histogram result of `run`) with the steps recorded since,
/// reading only those: for short runs the records from its last step on
/// (with their loss scales and bands; load_histogram again, once, when they
/// outgrow the records' waterfall), for long ones the new steps, the last
/// summary bucket again and the new ones, and the shown record only when
/// the selection moves (following the newest step). A histogram shown at a
/// fixed step is not read again: a run's records never change.
histogram_data refresh_histogram(histogram_data held, const run_ref& run, const interrupt_flag& interrupt);
/// The record of layer/role at `step` (the steps index `index` of the
/// histogram_data it completes), with its loss scale and scaled band.
histogram_step load_histogram_step(const run_ref& run, const std::string& layer, const std::string& role,
                                   std::size_t index, std::int64_t step, const interrupt_flag& interrupt);
/// Swamping of every layer's updates, at most `max_points` steps per layer.
swamping_data load_swamping(const run_ref& run, std::size_t max_points, const interrupt_flag& interrupt);
/// The counted stats of the swamping view's grids, in swamping_data's order.
inline constexpr std::array<rundb::counted_stat, 2> swamping_stats{rundb::counted_stat::swamped,
                                                                   rundb::counted_stat::partially_swamped};
/// data.layers from data's grids, with each layer's newest |δ|/ulp(w) histogram.
void fill_swamping_series(rundb::reader& db, rundb::run_id run, swamping_data& data);
/// The scale statistics of layer/role over a run (empty layer or role pick
/// the first with data), for the scales view.
scales_data load_scales(const run_ref& run, const std::string& layer, const std::string& role, std::int64_t step,
                        const interrupt_flag& interrupt);
/// The scale statistics of layer/role at the newest recorded step <= `step`
/// (negative: the newest), with the block-scale histogram and amax history.
scale_detail load_scale_detail(const run_ref& run, const std::string& layer, const std::string& role,
                               std::int64_t step, const interrupt_flag& interrupt);
/// What a scaled format can represent, from libnum's description of it.
struct scaled_value_range {
  double smallest_element = 0;  ///< smallest positive element value
  double largest_element = 0;   ///< largest finite element value
  /// NVFP4: the largest UE4M3 block scale (448), by which the recorded
  /// per-tensor scale is multiplied once more; 1 for one-level formats.
  double largest_block_scale = 1;
  /// Whether blocks carry scales of their own (MX, NVFP4, FP8 blockwise), so
  /// a tensor's range follows its block-scale histogram, not one scale.
  bool block_scaled = false;
  /// E8M0 block scales (MX): the binade of the smallest scale, 2^-127.
  std::optional<int> floor_scale_binade;
};
/// The range of a scaled format named as scale_stats.scaled_format names it
/// (libnum's names); nullopt for a name libnum does not parse.
std::optional<scaled_value_range> scaled_range(const std::string& scaled_format);
/// The events of a run in `range` (every one by default; a live refresh
/// asks for tail_range of the events it holds, see live_queries.hpp).
event_list load_events(const run_ref& run, const interrupt_flag& interrupt, rundb::step_range range = {});

/// The role name load_map takes for "every role".
inline constexpr const char* all_roles = "*";

}  // namespace numlab_gui
