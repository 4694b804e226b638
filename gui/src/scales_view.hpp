// Scales: what a scaled-format recipe (FP8 delayed or current scaling,
// MXFP8, MXFP4, NVFP4; table scale_stats) did to one layer's tensor of one
// role. A tensor is quantized once per GEMM it feeds (forward, dgrad,
// wgrad: scale_stats.op), so each GEMM role gets its own series.
// Top: its amax over steps against the largest value the chosen scale can
// represent (per-tensor scale x the element's maximum, x 448 more for
// NVFP4's largest block scale; per-tensor scales only), on a 2^k axis,
// with every step that saturated elements marked.
// Middle: the histogram of the blocks' decode scales at the chosen step,
// bars side by side per GEMM role; MX blocks at the smallest scale 2^-127
// (all-zero blocks) are counted in the caption, not drawn.
// Bottom: the layers x steps map of block underflow (elements flushed to
// zero by their block's scale), which also switches to saturation; clicking
// a cell picks its layer and step here.
#pragma once

#include <QWidget>

#include <vector>

#include "async_query.hpp"
#include "run_data.hpp"

class QComboBox;
class QCPAxisRect;
class QCPBars;
class QCPBarsGroup;
class QCPGraph;
class QCustomPlot;
class QLabel;
class QPoint;
class QSpinBox;

namespace numlab_gui {

class map_view;
class user_zoom;

class scales_view : public QWidget {
  Q_OBJECT

 public:
  explicit scales_view(QWidget* parent = nullptr);

  /// Shows `run` (its first layer and role with scale statistics, newest step).
  void set_run(const run_ref& run);
  /// Shows `layer`/`role` (empty: keep the current ones) at the newest recorded step <= `step` (negative: newest).
  void show_at(const QString& layer, const QString& role, std::int64_t step);
  /// Loads again: at once for `user`, after the runners' rest for `live`.
  void reload(reload_cause cause = reload_cause::user);
  /// The runners of the history (with the map's) and of the chosen step's details.
  query_runner* queries() const { return queries_; }
  query_runner* detail_queries() const { return detail_queries_; }

  QCustomPlot* plot() const { return plot_; }
  map_view* underflow_map() const { return map_; }
  const scales_data& data() const { return data_; }
  const scale_detail& detail() const { return detail_; }
  /// Per GEMM role, in the order of data().ops: the amax curves and the
  /// representable-maximum curves (empty graphs where the format has no
  /// per-tensor scale).
  const std::vector<QCPGraph*>& amax_graphs() const { return amax_; }
  const std::vector<QCPGraph*>& limit_graphs() const { return limit_; }
  /// Steps where any GEMM role saturated elements.
  QCPGraph* saturation_marks() const { return saturated_; }
  /// Per record of detail().records: its block-scale histogram.
  const std::vector<QCPBars*>& scale_bars() const { return scale_bars_; }
  QString caption() const;
  /// What hovering at `pixel` (plot coordinates) shows: the amax and limit
  /// curves' values at the nearest step; empty off the amax chart.
  QString hover_text(const QPoint& pixel) const;

 signals:
  /// The history (and the chosen step's details) are drawn.
  void loaded();
  void failed(const QString& message);

 private:
  void load_detail(reload_cause cause);
  void show_history();
  void show_detail();

  QComboBox* layer_box_;
  QComboBox* role_box_;
  QSpinBox* step_field_;
  QLabel* caption_;
  QCustomPlot* plot_;
  user_zoom* zoom_;
  QCPAxisRect* amax_rect_;
  QCPAxisRect* scale_rect_;
  std::vector<QCPGraph*> amax_;
  std::vector<QCPGraph*> limit_;
  QCPGraph* saturated_;
  std::vector<QCPBars*> scale_bars_;
  QCPBarsGroup* bar_group_;
  map_view* map_;
  run_ref run_;
  run_ref shown_run_;  // the run data_ holds: a live refresh of it reads only what is new
  QString layer_, role_;
  std::int64_t step_ = -1;
  scales_data data_;
  scale_detail detail_;
  bool history_shown_ = false;
  query_runner* queries_;
  query_runner* detail_queries_;
};

}  // namespace numlab_gui
