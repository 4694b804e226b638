// Overflow / underflow map: a layers x steps heatmap of the fraction of a
// tensor role's values that overflow, underflow, are subnormal, NaN or
// swamped (one role, or the worst of every role), with every skipped step
// and every overflow event marked. Long runs merge steps into columns that keep their worst step.
// Clicking a cell asks for that layer's histogram at that step; hovering
// tells the cell's value; the wheel zooms and a drag pans the steps,
// double-click resets.
#pragma once

#include <QPoint>
#include <QWidget>
#include <qcustomplot.h>

#include <optional>
#include <utility>

#include "async_query.hpp"
#include "run_data.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QMouseEvent;

namespace numlab_gui {

class user_zoom;

class map_view : public QWidget {
  Q_OBJECT

 public:
  explicit map_view(QWidget* parent = nullptr);

  /// Shows `run`; loads in the background, then emits loaded().
  void set_run(const run_ref& run);
  /// Loads again: at once for `user`, after the runner's rest for `live`.
  void reload(reload_cause cause = reload_cause::user);
  void set_metric(map_metric metric);
  void set_role(const QString& role);
  map_metric selected_metric() const;
  QString role() const { return role_; }

  QCustomPlot* plot() const { return plot_; }
  query_runner* queries() const { return queries_; }
  /// The colour map and the skipped-step marks drawn over it.
  QCPColorMap* color_map() const { return map_; }
  QCPGraph* skip_marks() const { return skip_marks_; }
  /// Every overflow event's column (orange crosses beside the skip marks).
  QCPGraph* overflow_marks() const { return overflow_marks_; }
  /// Colours by log10 of the fraction, so 0.1% stands out from 0.
  void set_log_scale(bool on);
  /// The grid last loaded.
  const map_grid& grid() const { return grid_; }
  /// The value the colour map holds for a cell (layer row, step column).
  double cell_value(std::size_t layer, std::size_t column) const;
  /// Acts as if the user clicked that cell.
  void activate_cell(std::size_t layer, std::size_t column);
  /// What hovering at `pixel` (plot coordinates) shows: the cell's layer,
  /// role, worst step and fraction; empty off the cells.
  QString hover_text(const QPoint& pixel) const;

  /// Most step columns drawn; longer runs merge consecutive steps per column.
  static constexpr std::size_t max_columns = 2000;

 signals:
  void loaded();
  void failed(const QString& message);
  /// The user picked a cell: show `layer`'s `role` histogram at `step`.
  void cell_activated(const QString& layer, const QString& role, std::int64_t step);

 private:
  void show_grid();
  void reset_zoom();
  double shown_value(double fraction) const;
  /// The (layer row, step column) under a pixel of the plot.
  std::optional<std::pair<std::size_t, std::size_t>> cell_at(const QPoint& pixel) const;
  void on_hover(QMouseEvent* event);

  QComboBox* metric_box_;
  QComboBox* role_box_;
  QLabel* caption_;
  QCustomPlot* plot_;
  QCheckBox* log_scale_;
  QCPColorMap* map_;
  QCPGraph* skip_marks_;
  QCPGraph* overflow_marks_;
  query_runner* queries_;
  run_ref run_;
  QString role_;
  map_grid grid_;
  // What grid_ was read for: a live refresh of the same appends to it.
  run_ref shown_run_;
  QString shown_role_;
  map_metric shown_metric_ = map_metric::overflow;
  user_zoom* zoom_;  // the user zoomed or panned: live refreshes keep the range
};

}  // namespace numlab_gui
