// Comparison: the runs of a sweep (one merged file, or every open file),
// grouped by a sweep key picked from the runs' coordinates. Above, each
// group's training loss as the mean over its finished runs with a band of
// ± one standard deviation (the seeds' spread); the legend gives each group's
// final accuracy as mean ± sd and how many of its runs finished, diverged or
// failed. Below, the grid: one row per run with its coordinates, outcome,
// final loss and accuracy and trouble counts, coloured by outcome. Double-
// clicking a row opens that run in the other views.
//
// Reading the runs and grouping them both happen on workers, never on the UI
// thread: a load reads and groups in one query (queries()); choosing another
// key regroups the runs already read on a second runner (grouping_queries()),
// so a regroup never interrupts a load. The UI thread only draws: the plot,
// and the grid, a table model over the runs read (comparison_grid.hpp).
// While a load runs, a progress bar beside the key box shows how many runs
// are read: the worker counts into a load_progress, and a timer on the UI
// thread looks at it ten times a second (no signal per run, no waiting).
#pragma once

#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "async_query.hpp"
#include "comparison.hpp"
#include "comparison_grid.hpp"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QPoint;
class QProgressBar;
class QSortFilterProxyModel;
class QTimer;
class QTableView;

namespace numlab_gui {

class comparison_view : public QWidget {
  Q_OBJECT

 public:
  explicit comparison_view(QWidget* parent = nullptr);

  /// Compares every run of `files`; loads and groups in the background, then emits loaded().
  void set_files(const QStringList& files);
  /// Loads again: at once for `user`, after the runner's rest for `live`.
  void reload(reload_cause cause = reload_cause::user);
  /// The runner that reads (and groups) the files.
  query_runner* queries() const { return queries_; }
  /// The runner that regroups the runs read when the key changes.
  query_runner* grouping_queries() const { return grouping_; }
  /// Groups by `key` (a coordinate key; empty: every run alone) on a worker,
  /// then emits grouped(); nothing happens when it is the key shown already.
  /// A key no run has is kept for the next load, which falls back to the default.
  void set_group_key(const QString& key);
  /// The key chosen in the key box ("" for every run alone).
  QString group_key() const;

  QCustomPlot* plot() const { return plot_; }
  /// Shown while the runs load: thousandths of the load read (load_progress::permille).
  QProgressBar* progress_bar() const { return progress_; }
  /// The grid of runs, sortable by any column (a proxy over grid_model()).
  QTableView* grid() const { return grid_; }
  /// The grid's rows in the order read: row r is data().runs[r].
  const comparison_grid* grid_model() const { return model_; }
  const comparison_data& data() const { return *data_; }
  /// The bands drawn, in legend order.
  const std::vector<seed_band>& bands() const { return bands_; }
  /// What hovering at `pixel` (plot coordinates) shows: each group's mean
  /// loss at the nearest step; empty off the plot.
  QString hover_text(const QPoint& pixel) const;
  /// How long the last load took on the worker, and applying it on the UI thread (ms).
  qint64 load_ms() const { return load_ms_; }
  qint64 apply_ms() const { return apply_ms_; }
  /// How long the last regroup took on the worker, and drawing it on the UI thread (ms).
  qint64 group_ms() const { return group_ms_; }
  qint64 draw_ms() const { return draw_ms_; }

  /// Most loss points per run and per band.
  static constexpr std::size_t max_points = 400;

 signals:
  /// Files read, grouped and drawn.
  void loaded();
  /// Regrouped by another key and drawn.
  void grouped();
  void failed(const QString& message);
  /// A grid row was double-clicked.
  void run_activated(const run_ref& run);

 private:
  // What the key box asks for: nullopt before anyone chose, "" for each run alone.
  std::optional<std::string> asked_key() const;
  void regroup();
  void show_data(comparison_grouping grouping);
  void draw_bands();
  void show_progress();

  QComboBox* key_box_;
  QCheckBox* log_loss_;
  QLabel* caption_;
  QProgressBar* progress_;
  QTimer* progress_timer_;
  // The newest load's progress, shared with the worker that reads.
  std::shared_ptr<const load_progress> load_progress_ = std::make_shared<const load_progress>();
  QCustomPlot* plot_;
  QTableView* grid_;
  comparison_grid* model_;
  QSortFilterProxyModel* sorted_;
  QStringList files_;
  // Shared with the grouping worker, which reads it while the UI thread draws; never changed once loaded.
  std::shared_ptr<const comparison_data> data_ = std::make_shared<const comparison_data>();
  std::vector<seed_band> bands_;
  std::string bands_key_;  // the key bands_ were grouped by
  QString wanted_key_;
  qint64 load_ms_ = 0, apply_ms_ = 0, group_ms_ = 0, draw_ms_ = 0;
  query_runner* queries_;
  query_runner* grouping_;
};

}  // namespace numlab_gui
