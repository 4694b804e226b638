// Swamping: per layer, the fraction of update values that were swamped
// (w + δ == w with δ != 0) and partially swamped, against step; and the
// newest distribution of |δ| / ulp(w), where ratios below 1/2 are lost.
#pragma once

#include <QWidget>

#include "async_query.hpp"
#include "run_data.hpp"

class QCustomPlot;
class QCPAxisRect;
class QLabel;
class QPoint;

namespace numlab_gui {

class user_zoom;

class swamping_view : public QWidget {
  Q_OBJECT

 public:
  explicit swamping_view(QWidget* parent = nullptr);

  /// Shows `run`; loads in the background, then emits loaded().
  void set_run(const run_ref& run);
  /// Loads again: at once for `user`, after the runner's rest for `live`.
  void reload(reload_cause cause = reload_cause::user);
  query_runner* queries() const { return queries_; }
  /// Most points plotted per layer; longer runs keep each bucket's worst step.
  static constexpr std::size_t max_points = 2000;

  QCustomPlot* plot() const { return plot_; }
  const swamping_data& data() const { return data_; }
  /// What hovering at `pixel` (plot coordinates) shows: every layer's
  /// fraction at the nearest step (or binade, below), nearest the cursor
  /// first; empty off the curves' rects.
  QString hover_text(const QPoint& pixel) const;

 signals:
  void loaded();
  void failed(const QString& message);

 private:
  void show_data();

  QLabel* caption_;
  QCustomPlot* plot_;
  user_zoom* zoom_;
  QCPAxisRect* total_rect_;
  QCPAxisRect* partial_rect_;
  QCPAxisRect* ratio_rect_;
  run_ref run_;
  run_ref shown_run_;  // the run data_ holds: a live refresh of it reads only what is new
  swamping_data data_;
  query_runner* queries_;
};

}  // namespace numlab_gui
