// Swamping: per layer, the fraction of update values that were swamped
// (w + δ == w with δ != 0) and partially swamped, against step; and the
// newest distribution of |δ| / ulp(w), where ratios below 1/2 are lost.
#pragma once

#include <QWidget>

#include "run_data.hpp"

class QCustomPlot;
class QCPAxisRect;
class QLabel;

namespace numlab_gui {

class swamping_view : public QWidget {
  Q_OBJECT

 public:
  explicit swamping_view(QWidget* parent = nullptr);

  /// Shows `run`; loads in the background, then emits loaded().
  void set_run(const run_ref& run);
  void reload();

  QCustomPlot* plot() const { return plot_; }
  const swamping_data& data() const { return data_; }

 signals:
  void loaded();
  void failed(const QString& message);

 private:
  void show_data();

  QLabel* caption_;
  QCustomPlot* plot_;
  QCPAxisRect* total_rect_;
  QCPAxisRect* partial_rect_;
  QCPAxisRect* ratio_rect_;
  run_ref run_;
  swamping_data data_;
  std::uint64_t generation_ = 0;
};

}  // namespace numlab_gui
