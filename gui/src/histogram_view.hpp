// Gradient histograms: one layer's log2-magnitude histogram at a step picked
// with a slider (or played), over the format's shaded ranges (underflow to
// zero, subnormal, normal, overflow), with the loss scale's effect drawn as
// a shifted outline; below, a waterfall of the same histogram over all steps.
#pragma once

#include <QWidget>

#include <vector>

#include "run_data.hpp"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPBars;
class QCPColorMap;
class QLabel;
class QPushButton;
class QSlider;
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
  void reload();

  QCustomPlot* plot() const { return plot_; }
  QCustomPlot* waterfall() const { return waterfall_; }
  const histogram_data& data() const { return data_; }
  /// The bar heights drawn: the underflow-to-zero bin, each binade, the overflow bin.
  std::vector<double> bar_values() const;
  /// The step currently drawn, or -1 when there is none.
  std::int64_t shown_step() const;

 signals:
  void loaded();
  void failed(const QString& message);

 private:
  void show_data();
  void draw_selected();
  void draw_waterfall();
  void shade_format_ranges(double left, double right);

  QComboBox* layer_box_;
  QComboBox* role_box_;
  QSlider* slider_;
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
  std::uint64_t generation_ = 0;
};

}  // namespace numlab_gui
