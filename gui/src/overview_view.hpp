// Overview: training and evaluation loss (raw and EMA-smoothed, optionally
// on a log axis) against step; the loss scale on a 2^k axis with skipped
// steps marked (their cause shown on hover); the learning rate and gradient
// norm. Any number of runs are overlaid, each in its own colour. The wheel
// zooms and a drag pans the steps, double-click resets; live refreshes keep
// the zoom.
#pragma once

#include <QList>
#include <QPoint>
#include <QWidget>

#include <optional>
#include <vector>

#include "async_query.hpp"
#include "run_data.hpp"

class QCheckBox;
class QCustomPlot;
class QCPGraph;
class QCPAxisRect;
class QLabel;
class QMouseEvent;
class QSlider;

namespace numlab_gui {

class user_zoom;

class overview_view : public QWidget {
  Q_OBJECT

 public:
  explicit overview_view(QWidget* parent = nullptr);

  /// Shows these runs; loads in the background, then emits loaded().
  void set_runs(const QList<run_ref>& runs);
  /// Loads the same runs again: at once for `user`, after the runner's rest for `live`.
  void reload(reload_cause cause = reload_cause::user);
  query_runner* queries() const { return queries_; }
  /// Draws a vertical marker at `step` (e.g. from the Events view).
  void mark_step(std::int64_t step);
  /// EMA weight of the smoothed loss, in [0, 0.99].
  void set_smoothing(double weight);
  void set_log_loss(bool on);

  QCustomPlot* plot() const { return plot_; }
  /// The series last shown, in the order of set_runs.
  const std::vector<overview_series>& series() const { return series_; }
  /// The raw loss graph of the i-th run shown.
  QCPGraph* loss_graph(std::size_t run_index) const;
  /// The smoothed loss graph of the i-th run shown.
  QCPGraph* smoothed_graph(std::size_t run_index) const;
  /// The skipped-step markers of the i-th run (nullptr when it skipped none).
  QCPGraph* skipped_graph(std::size_t run_index) const;
  /// The gradient-norm and learning-rate curves of the i-th run.
  QCPGraph* grad_norm_graph(std::size_t run_index) const;
  QCPGraph* lr_graph(std::size_t run_index) const;
  /// What hovering at `pixel` (plot coordinates) shows: each run's loss, or
  /// gradient norm and learning rate, at the nearest step; a skipped step's
  /// cause; empty elsewhere.
  QString hover_text(const QPoint& pixel) const;
  QCPAxisRect* scale_rect() const { return scale_rect_; }
  QCPAxisRect* loss_rect() const { return loss_rect_; }
  QCPAxisRect* training_rect() const { return training_rect_; }

  /// Most points plotted per series; long runs are merged into buckets.
  static constexpr std::size_t max_points = 4000;

 signals:
  void loaded();
  void failed(const QString& message);

 private:
  void show_series();
  void show_tooltip(QMouseEvent* event);
  QString skip_text(const QPoint& pixel) const;

  QSlider* smoothing_;
  QLabel* smoothing_label_;
  QCheckBox* log_loss_;
  QCustomPlot* plot_;
  QCPAxisRect* loss_rect_;
  QCPAxisRect* scale_rect_;
  QCPAxisRect* training_rect_;  // learning rate and gradient norm
  query_runner* queries_;
  QList<run_ref> runs_;
  std::vector<overview_series> series_;
  std::vector<QCPGraph*> loss_graphs_, smoothed_graphs_, skipped_graphs_, grad_norm_graphs_, lr_graphs_;
  std::optional<std::int64_t> marked_step_;
  user_zoom* zoom_;  // the user zoomed or panned: redraws keep the step range
};

}  // namespace numlab_gui
