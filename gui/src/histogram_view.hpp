// Gradient histograms: one layer's log2-magnitude histogram at a step picked
// with a slider (or played), over the format's shaded ranges (underflow to
// zero, subnormal, normal, overflow), with the loss scale's effect drawn as
// a shifted outline, and, for a scaled-format recipe, the band its element
// range covers at that step's scale; below, a waterfall of the same histogram over all steps,
// with a colour bar and the steps that overflowed marked red on its top row.
// The x axis opens on the populated binades (fp32's 2^-150..2^128 would
// crowd the labels); the wheel zooms, a drag pans, double-click resets (the
// waterfall's steps too); hovering shows a bar's or a cell's count.
#pragma once

#include <QPoint>
#include <QWidget>

#include <utility>
#include <vector>

#include "async_query.hpp"
#include "run_data.hpp"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPBars;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;

namespace numlab_gui {

class user_zoom;

class histogram_view : public QWidget {
  Q_OBJECT

 public:
  explicit histogram_view(QWidget* parent = nullptr);
  ~histogram_view() override;

  /// Shows `run` (its first layer and gradient role, newest step).
  void set_run(const run_ref& run);
  /// Shows `layer`/`role` at the largest recorded step <= `step` (negative: the newest).
  void show_at(const QString& layer, const QString& role, std::int64_t step);
  /// Loads again: at once for `user`, after the runner's rest for `live`.
  void reload(reload_cause cause = reload_cause::user);
  query_runner* queries() const { return queries_; }

  QCustomPlot* plot() const { return plot_; }
  QCustomPlot* waterfall() const { return waterfall_; }
  const histogram_data& data() const { return data_; }
  /// The bar heights drawn: the underflow-to-zero bin, each binade, the overflow bin.
  std::vector<double> bar_values() const;
  /// The step currently drawn, or -1 when there is none.
  std::int64_t shown_step() const;
  /// The layer picker, which is also a search field (matches any part of a name).
  QComboBox* layer_picker() const { return layer_box_; }
  /// The caption above the plot (what is drawn, and notes such as a requested step past the end).
  QString caption() const;
  /// What hovering at `pixel` (plot coordinates) shows: the binade (or
  /// special bin) under it with its count and share; empty elsewhere.
  QString hover_text(const QPoint& pixel) const;
  /// The same for the waterfall: its column's steps, the bin and about how many values.
  QString waterfall_hover_text(const QPoint& pixel) const;
  /// The waterfall's colour scale, and its overflow row's marks (one per column that overflowed).
  QCPColorScale* waterfall_scale() const { return waterfall_scale_; }
  QCPGraph* waterfall_overflow_marks() const { return waterfall_overflow_; }
  /// The step field beside the slider: typing a step shows the newest recorded step at or before it.
  QSpinBox* step_field() const { return step_field_; }
  /// The log2 |x| range the x axis opens on: the populated binades and a margin.
  static std::pair<double, double> populated_range(const rundb::histogram& h, double margin);

 signals:
  void loaded();
  void failed(const QString& message);

 private:
  void show_data();
  void draw_selected();
  void draw_waterfall();
  /// Shows the recorded step at `index`, for the step `asked` (the caption says when they differ).
  void select(std::size_t index, std::int64_t asked);
  /// Loads the selected step's record (long runs keep only one loaded).
  void load_selected_step();
  void shade_format_ranges(double left, double right);
  /// The scaled format's representable band at the shown step (log2 |x| edges).
  void outline_scaled_band(double low, double high);


  QComboBox* layer_box_;
  QComboBox* role_box_;
  QSlider* slider_;
  QSpinBox* step_field_;
  QPushButton* play_;
  QCheckBox* log_counts_;
  QLabel* caption_;
  QTimer* player_;
  QCustomPlot* plot_;
  QCustomPlot* waterfall_;
  QCPColorMap* waterfall_map_;
  QCPColorScale* waterfall_scale_;
  QCPGraph* waterfall_overflow_;
  user_zoom* waterfall_zoom_;
  QCPBars* binades_;
  QCPBars* underflow_;
  QCPBars* overflow_;
  run_ref run_;
  run_ref shown_run_;  // the run data_ holds: a live refresh of it reads only what is new
  histogram_data data_;
  std::int64_t requested_step_ = -1;
  user_zoom* zoom_;  // the user zoomed or panned: new steps and live refreshes keep the range
  query_runner* queries_;
};

}  // namespace numlab_gui
