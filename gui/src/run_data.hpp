// The data each view shows, loaded from a run database in one piece so that
// the views never query on the UI thread. Plain values, safe to move between threads.
#pragma once

#include <QMetaType>
#include <QString>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rundb/merged_steps.hpp"
#include "rundb/reader.hpp"

namespace numlab_gui {

/// One run in one file.
struct run_ref {
  QString file;
  rundb::run_id id = 0;
  QString label;  ///< for legends: "name (#id)"

  bool operator==(const run_ref& other) const { return file == other.file && id == other.id; }
};

/// What went wrong in one run, counted cheaply (indexed queries only).
struct run_trouble_counts {
  std::int64_t steps = 0;
  std::int64_t skipped = 0;
  std::int64_t overflow_events = 0;
  std::int64_t nan_events = 0;
};

/// The runs of one file, for the Runs view.
struct file_listing {
  QString file;
  std::vector<rundb::run_info> runs;
  std::vector<run_trouble_counts> counts;  ///< parallel to runs
};

/// Per run of one file, the layer and role whose values underflowed to zero
/// most over the run (none when no value did), for the Runs view: a scan
/// of every run's statistics, so loaded after the listing.
struct file_underflows {
  QString file;
  std::vector<std::pair<rundb::run_id, std::optional<rundb::layer_totals>>> worst;
};

/// A step, and where in the model, that something went wrong.
struct problem_site {
  std::int64_t step = 0;
  std::string layer;  ///< empty when the database does not say
  std::string role;   ///< the role whose histogram shows it; empty when unknown
  std::string what;   ///< the recorded message or skip reason
};

/// The first screen: the problems of one run, each with where to look.
struct problem_summary {
  run_ref run;
  run_trouble_counts counts;
  std::optional<problem_site> first_overflow;  ///< first overflow / Inf: overflow events and skipped steps
  std::optional<problem_site> first_nan;       ///< first NaN (NaN and trap events)
  std::optional<problem_site> first_skip;
  std::vector<rundb::step_record> skipped;     ///< every skipped step, exact
};

/// The layer and role whose values underflowed to zero most, over a whole run
/// (a full scan of the statistics, so loaded after the summary).
struct underflow_ranking {
  /// By underflow fraction, descending, ties in reader::totals_by_layer's
  /// order; at most 5. The same list from a version 3 file and its upgrade.
  std::vector<rundb::layer_totals> worst;
  /// The step where the worst layer/role's fraction of underflowed values
  /// (summed over that step's records) is the largest, the earliest on ties.
  std::optional<problem_site> worst_step;
};

/// Loss, evaluation and loss-scale series of one run, for the Overview.
struct overview_series {
  run_ref run;
  std::vector<rundb::step_record> steps;    ///< for plotting: the points of `buckets`
  /// The steps merged into buckets of `width` steps (a power of two, aligned;
  /// rundb/merged_steps.hpp), kept so a live refresh merges into them.
  std::vector<rundb::step_bucket> buckets;
  std::int64_t width = 1;
  std::vector<rundb::step_record> skipped;  ///< every skipped step, exact
  std::vector<rundb::evaluation_record> evaluations;
  std::int64_t total_steps = 0;
  std::uint64_t rows_read = 0;  ///< rows the last load or refresh read (rundb::reader::rows_read)
};

/// What the overflow/underflow map colours a cell by.
/// The last two read scale_stats (scaled-format recipes): elements flushed to
/// zero by their block's scale, and elements saturated to the element maximum.
enum class map_metric { overflow, underflow, subnormal, nan, swamped, partially_swamped, block_underflow, saturated };

/// Display name of a metric ("overflow", ...).
QString metric_name(map_metric metric);

/// A layers x steps grid of fractions for one role (or every role) and metric.
/// Merged columns hold their worst step (max pooling).
struct map_grid {
  std::vector<std::string> layers;         ///< rows, in order of first appearance
  std::vector<std::int64_t> steps;         ///< columns (where each starts), ascending
  std::vector<double> fractions;           ///< layers.size() * steps.size(), row-major; NaN = no record
  std::vector<std::int64_t> worst_steps;   ///< parallel to fractions: the step each cell shows
  std::vector<std::string> cell_roles;     ///< parallel to fractions: the role each cell shows
  std::vector<std::string> roles;          ///< roles available in the run
  std::string role;                        ///< the role mapped; empty for every role
  std::vector<rundb::step_record> skipped; ///< every skipped step of the run, traced or not
  /// Every overflow event of the run: a run that skips no step (no dynamic
  /// loss scaling) may overflow, and values already inf count as infs, not
  /// as the map's overflow fraction.
  std::vector<rundb::event_record> overflow_events;
  std::int64_t column_steps = 1;           ///< steps per column: a power of two, columns aligned to multiples of it
  std::uint64_t rows_read = 0;             ///< rows the last load or refresh read (rundb::reader::rows_read)

  double at(std::size_t layer, std::size_t step) const { return fractions[layer * steps.size() + step]; }
  /// The column showing `step`: the last whose start is <= step (0 before the first).
  std::size_t column_of(std::int64_t step) const;
  /// Sizes the cell arrays for `layers` x `steps`, every cell without a record.
  void clear_cells();
  /// Puts `cells` (by step; their layers and steps among the grid's) into
  /// the columns from `first_column` on.
  void place(const std::vector<rundb::layer_step_cell>& cells, std::size_t first_column);
  /// Doubles column_steps: neighbouring columns in one column of twice the
  /// width merge, each cell keeping the worst (the highest fraction, the
  /// earlier step on ties), as the reader pools a column read at that width.
  void double_column_width();
};

/// The grid of `cells` (a reader::counts_by_layer_and_step result, by step)
/// read with columns of `column_steps` steps: layers in order of first appearance.
map_grid grid_of(const std::vector<rundb::layer_step_cell>& cells, std::int64_t column_steps);

/// The histograms of one layer and role over a run, with their context.
/// Short runs (or files without schema v4's summaries) load the record of
/// every step; long ones load the selected step's record only, and the
/// waterfall from the per-bucket summed histograms, so a switch reads a few
/// thousand summary rows instead of every record.
struct histogram_data {
  std::vector<std::string> layers;                 ///< every layer of the run
  std::vector<std::string> roles;                  ///< the roles recorded for `layer`
  std::string layer, role;                         ///< the ones loaded
  std::vector<std::int64_t> steps;                 ///< one per slider position: every recorded step, ascending
  /// Records with histograms: history[i] is the record of steps[history_first + i]
  /// (every step's for short runs, the selected step's alone for long ones).
  std::vector<rundb::tensor_stats_record> history;
  std::size_t history_first = 0;
  std::vector<std::optional<double>> loss_scales;  ///< loss scale at each history step
  std::optional<rundb::format_info> format;        ///< of the newest record
  std::size_t selected = 0;                        ///< steps index of the requested step
  std::int64_t requested_step = -1;                ///< the step asked for (negative: the newest)
  /// Where a scaled-format recipe's values can lie at one step: element
  /// range x scale, as log2 |x| (the binade edges of the block scales used
  /// for block formats, so the band spans every block's range).
  struct scaled_band {
    double low = 0, high = 0;
  };
  std::string scaled_format;  ///< empty when the run recorded no scale statistics for layer/role
  std::vector<std::optional<scaled_band>> scaled_bands;  ///< parallel to history
  /// The waterfall below the histogram, built on the worker thread: log10(1 + count)
  /// per bin, column-major, rows from the underflow bin through the binades from
  /// 2^waterfall_first_exponent to the overflow bin. Long runs share columns: from
  /// records, each keeps its largest value per bin, so a one-step excursion still
  /// shows; from summaries, the mean count per recorded step of the column.
  std::vector<double> waterfall;
  std::size_t waterfall_columns = 0, waterfall_rows = 0;
  std::int32_t waterfall_first_exponent = 0;
  std::vector<std::int64_t> waterfall_starts;  ///< the first step of each column
  static constexpr std::size_t max_waterfall_columns = 2000;
  /// Long runs: the summed histograms the waterfall is built from, kept so
  /// a live refresh reads only the last bucket again and the new ones.
  std::vector<rundb::stats_bucket> buckets;
  std::uint64_t rows_read = 0;  ///< rows the last load or refresh read (rundb::reader::rows_read)

  /// The waterfall column that shows a steps index.
  std::size_t waterfall_column(std::size_t step_index) const {
    if (step_index >= steps.size() || waterfall_starts.empty()) return 0;
    const auto after = std::upper_bound(waterfall_starts.begin(), waterfall_starts.end(), steps[step_index]);
    return after == waterfall_starts.begin() ? 0 : static_cast<std::size_t>(after - waterfall_starts.begin() - 1);
  }
  /// The index into history (and loss_scales, scaled_bands) of the selected step, if loaded.
  std::optional<std::size_t> selected_record() const {
    if (selected < history_first || selected - history_first >= history.size()) return std::nullopt;
    return selected - history_first;
  }
  const rundb::tensor_stats_record* selected_stats() const {
    const auto at = selected_record();
    return at ? &history[*at] : nullptr;
  }
  /// The steps index of the newest recorded step <= `step` (the first when none is).
  std::size_t index_of(std::int64_t step) const {
    const auto after = std::upper_bound(steps.begin(), steps.end(), step);
    return after == steps.begin() ? 0 : static_cast<std::size_t>(after - steps.begin() - 1);
  }
};

/// One step's record of a layer and role, loaded when the slider of a long
/// run reaches it (see histogram_data).
struct histogram_step {
  std::string layer, role;
  std::size_t index = 0;  ///< the steps index it belongs to
  std::optional<rundb::tensor_stats_record> record;
  std::optional<double> loss_scale;
  std::optional<histogram_data::scaled_band> scaled_band;
};

/// Swamping fractions of update tensors per layer over steps (merged steps
/// keep their worst value).
struct swamping_data {
  struct layer_series {
    std::string layer;
    std::vector<double> steps, swamped, partially_swamped;  ///< fractions of the update's values
    rundb::histogram ulp_ratio;      ///< newest |δ|/ulp(w) histogram (empty if never recorded)
    std::int64_t ulp_ratio_step = -1;  ///< its step
  };
  std::vector<layer_series> layers;
  /// The pooled fractions (role "update") the series are drawn from, kept
  /// so a live refresh extends them (see refresh_map).
  map_grid swamped, partially_swamped;
  std::uint64_t rows_read = 0;  ///< rows the last load or refresh read (rundb::reader::rows_read)
};

/// What a scaled-format recipe (issue 19's scale_stats) did to one layer's
/// tensor of one role over a run: its amax against the largest value the
/// chosen scale can represent, and where elements saturated.
struct scales_data {
  std::vector<std::string> layers;                  ///< layers with scale statistics, in order of first appearance
  std::vector<std::string> roles;                   ///< roles with scale statistics of `layer`, sorted
  std::string layer, role;                          ///< the ones loaded
  std::vector<rundb::scale_stats_record> history;   ///< layer/role at every recorded step, without blobs
  /// The GEMM roles (scale_stats.op: forward, dgrad, wgrad) of the history,
  /// in order of first appearance: a tensor is quantized once per GEMM it
  /// feeds, so each step has a record per op, drawn as a series per op.
  std::vector<std::string> ops;
  /// The largest finite magnitude per unit of the recorded per-tensor scale:
  /// the element's maximum, times the largest block scale for NVFP4 (448)
  /// (nullopt: a format name libnum does not parse).
  std::optional<double> largest_per_tensor_scale;
  std::int64_t requested_step = -1;                 ///< negative: the newest
  std::uint64_t rows_read = 0;  ///< rows the last load or refresh read (rundb::reader::rows_read)

  /// The history index shown for a step: the newest recorded step <= `step` (the first when none is).
  std::size_t index_of(std::int64_t step) const;
};

/// The scale_stats records of one layer/role at one step, one per GEMM role
/// (op), with block-scale histograms and amax histories.
struct scale_detail {
  /// At the newest recorded step <= requested_step, in recording order;
  /// empty when the layer/role has none at or before it.
  std::vector<rundb::scale_stats_record> records;
  std::int64_t requested_step = -1;
  /// Per record: its all-zero blocks, counted here and taken out of its
  /// histogram, which they would stretch over a hundred empty binades or
  /// dwarf: blocks whose scale is zero (NVFP4; the histogram's bins[0]) or,
  /// for E8M0 scales (MX), the smallest, 2^-127, which a block gets when its
  /// amax lies below 2^-127 times the element's 2^emax.
  std::vector<std::uint64_t> zero_blocks;
};

/// Events of one run.
struct event_list {
  std::vector<rundb::event_record> events;
  std::uint64_t rows_read = 0;  ///< rows the load read (rundb::reader::rows_read)
};

}  // namespace numlab_gui

Q_DECLARE_METATYPE(numlab_gui::run_ref)
