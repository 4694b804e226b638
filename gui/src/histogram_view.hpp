// Gradient histograms: one layer's log2-magnitude histogram at a step picked
// with a slider (or played), over the format's shaded ranges (underflow to
// zero, subnormal, normal, overflow), with the loss scale's effect drawn as
// a shifted outline, and, for a scaled-format recipe, the band its element
// range covers at that step's scale; below, a waterfall of the same histogram over all steps.
// The x axis opens on the populated binades (fp32's 2^-150..2^128 would
// crowd the labels); the wheel zooms, a drag pans, double-click resets.
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
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;

namespace numlab_gui {

class histogram_view : public QWidget {
  Q_OBJECT

 public:
  explicit histogram_view(QWidget* parent = nullptr);

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
  /// The log2 |x| range the x axis opens on: the populated binades and a margin.
  static std::pair<double, double> populated_range(const rundb::histogram& h, double margin);

 signals:
  void loaded();
  void failed(const QString& message);

 private:
  void show_data();
  void draw_selected();
  void draw_waterfall();
  /// Loads the selected step's record (long runs keep only one loaded).
  void load_selected_step();
  void shade_format_ranges(double left, double right);
  /// The scaled format's representable band at the shown step (log2 |x| edges).
  void outline_scaled_band(double low, double high);
  void reset_zoom();


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
  QCPBars* binades_;
  QCPBars* underflow_;
  QCPBars* overflow_;
  run_ref run_;
  histogram_data data_;
  std::int64_t requested_step_ = -1;
  bool zoomed_ = false;  // the user zoomed or panned: new steps and live refreshes keep the range
  QPoint press_at_;
  query_runner* queries_;
};

}  // namespace numlab_gui
