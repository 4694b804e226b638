// Overview: training and evaluation loss against step, and the loss scale on
// a log2 axis with skipped steps marked (their cause shown on hover). Two
// runs are overlaid when comparing.
#pragma once

#include <QList>
#include <QWidget>

#include <vector>

#include "run_data.hpp"

class QCustomPlot;
class QCPGraph;
class QCPAxisRect;
class QCPItemStraightLine;

namespace numlab_gui {

class overview_view : public QWidget {
  Q_OBJECT

 public:
  explicit overview_view(QWidget* parent = nullptr);

  /// Shows these runs (one or two); loads in the background, then emits loaded().
  void set_runs(const QList<run_ref>& runs);
  /// Loads the same runs again (live refresh).
  void reload();
  /// Draws a vertical marker at `step` (e.g. from the Events view).
  void mark_step(std::int64_t step);

  QCustomPlot* plot() const { return plot_; }
  /// The series last shown, in the order of set_runs.
  const std::vector<overview_series>& series() const { return series_; }
  /// The loss graph of the i-th run shown.
  QCPGraph* loss_graph(std::size_t run_index) const;

  /// Most points plotted per series; long runs are merged into buckets.
  static constexpr std::size_t max_points = 4000;

 signals:
  void loaded();
  void failed(const QString& message);

 private:
  void show_series();
  void show_skip_tooltip(QMouseEvent* event);

  QCustomPlot* plot_;
  QCPAxisRect* loss_rect_;
  QCPAxisRect* scale_rect_;
  QList<run_ref> runs_;
  std::vector<overview_series> series_;
  std::vector<QCPGraph*> loss_graphs_;
  std::uint64_t generation_ = 0;  // drops results of superseded loads
  std::optional<std::int64_t> marked_step_;
};

}  // namespace numlab_gui
