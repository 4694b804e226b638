// Overflow / underflow map: a layers x steps heatmap of the fraction of a
// tensor role's values that overflow, underflow, are subnormal, NaN or
// swamped. Clicking a cell asks for that layer's histogram at that step.
#pragma once

#include <QWidget>

#include "run_data.hpp"

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QLabel;
class QMouseEvent;

namespace numlab_gui {

class map_view : public QWidget {
  Q_OBJECT

 public:
  explicit map_view(QWidget* parent = nullptr);

  /// Shows `run`; loads in the background, then emits loaded().
  void set_run(const run_ref& run);
  void reload();
  void set_metric(map_metric metric);
  void set_role(const QString& role);
  map_metric metric() const;
  QString role() const { return role_; }

  QCustomPlot* plot() const { return plot_; }
  /// The grid last loaded.
  const map_grid& grid() const { return grid_; }
  /// The value the colour map holds for a cell (layer row, step column).
  double cell_value(std::size_t layer, std::size_t column) const;
  /// Acts as if the user clicked that cell.
  void activate_cell(std::size_t layer, std::size_t column);

  /// Most step columns drawn; longer runs merge consecutive steps per column.
  static constexpr std::size_t max_columns = 2000;

 signals:
  void loaded();
  void failed(const QString& message);
  /// The user picked a cell: show `layer`'s `role` histogram at `step`.
  void cell_activated(const QString& layer, const QString& role, std::int64_t step);

 private:
  void show_grid();
  void on_click(QMouseEvent* event);

  QComboBox* metric_box_;
  QComboBox* role_box_;
  QLabel* caption_;
  QCustomPlot* plot_;
  QCPColorMap* map_;
  run_ref run_;
  QString role_;
  map_grid grid_;
  std::uint64_t generation_ = 0;
};

}  // namespace numlab_gui
