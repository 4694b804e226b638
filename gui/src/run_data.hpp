// The data each view shows, loaded from a run database in one piece so that
// the views never query on the UI thread. Plain values, safe to move between threads.
#pragma once

#include <QMetaType>
#include <QString>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rundb/reader.hpp"

namespace numlab_gui {

/// One run in one file.
struct run_ref {
  QString file;
  rundb::run_id id = 0;
  QString label;  ///< for legends: "name (#id)"

  bool operator==(const run_ref& other) const { return file == other.file && id == other.id; }
};

/// The runs of one file, for the Runs view.
struct file_listing {
  QString file;
  std::vector<rundb::run_info> runs;
  std::vector<std::int64_t> step_counts;  ///< parallel to runs
};

/// Loss, evaluation and loss-scale series of one run, for the Overview.
struct overview_series {
  run_ref run;
  std::vector<rundb::step_record> steps;    ///< decimated for plotting
  std::vector<rundb::step_record> skipped;  ///< every skipped step, exact
  std::vector<rundb::evaluation_record> evaluations;
  std::int64_t total_steps = 0;
};

/// What the overflow/underflow map colours a cell by.
enum class map_metric { overflow, underflow, subnormal, nan, swamped, partially_swamped };

/// Display name of a metric ("overflow", ...).
QString metric_name(map_metric metric);

/// A layers x steps grid of fractions for one role and metric.
struct map_grid {
  std::vector<std::string> layers;   ///< rows, in order of first appearance
  std::vector<std::int64_t> steps;   ///< columns, ascending
  std::vector<double> fractions;     ///< layers.size() * steps.size(), row-major; NaN = no record
  std::vector<std::string> roles;    ///< roles available in the run

  double at(std::size_t layer, std::size_t step) const { return fractions[layer * steps.size() + step]; }
};

/// The histograms of one layer and role over a run, with their context.
struct histogram_data {
  std::vector<std::string> layers;                 ///< every layer of the run
  std::vector<std::string> roles;                  ///< every role of the run
  std::string layer, role;                         ///< the ones loaded
  std::vector<rundb::tensor_stats_record> history; ///< layer/role at every recorded step, with histograms
  std::vector<std::optional<double>> loss_scales;  ///< loss scale at each history step
  std::optional<rundb::format_info> format;        ///< of the newest record
  std::size_t selected = 0;                        ///< history index of the requested step

  const rundb::tensor_stats_record* selected_stats() const {
    return selected < history.size() ? &history[selected] : nullptr;
  }
};

/// Swamping fractions of update tensors per layer over steps.
struct swamping_data {
  struct layer_series {
    std::string layer;
    std::vector<double> steps, swamped, partially_swamped;  ///< fractions of the update's values
    rundb::histogram ulp_ratio;      ///< newest |δ|/ulp(w) histogram (empty if never recorded)
    std::int64_t ulp_ratio_step = -1;  ///< its step
  };
  std::vector<layer_series> layers;
};

/// Events of one run.
struct event_list {
  std::vector<rundb::event_record> events;
};

}  // namespace numlab_gui

Q_DECLARE_METATYPE(numlab_gui::run_ref)
