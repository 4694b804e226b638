// The comparison's grid: one row per run, in the order read, with its label,
// its coordinates (one column per sweep key), outcome, final loss and
// accuracy and trouble counts, every cell coloured by the run's outcome.
//
// A table model over the runs read rather than a QTableWidget: a sweep of
// thousands of runs would otherwise build a widget item per cell on the UI
// thread, where this model only answers for the cells on screen. Sorting (by
// sort_role) compares numbers as numbers: seed 10 after seed 9.
#pragma once

#include <QAbstractTableModel>
#include <QColor>

#include <memory>
#include <vector>

#include "comparison.hpp"

namespace numlab_gui {

class comparison_grid : public QAbstractTableModel {
  Q_OBJECT

 public:
  /// The role a QSortFilterProxyModel sorts by: a double for numbers (a
  /// missing one sorts first), the text otherwise.
  static constexpr int sort_role = Qt::UserRole + 1;

  explicit comparison_grid(QObject* parent = nullptr);

  /// Shows `data`'s runs (row r is data->runs[r]); resets the model.
  void set_runs(std::shared_ptr<const comparison_data> data);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  /// Background colour of the cells of a run that ended so.
  static QColor outcome_color(rundb::run_status status);

 private:
  // The columns after the label and the coordinates, in order.
  enum class column { outcome, final_loss, final_accuracy, skipped, overflow, nan };

  std::shared_ptr<const comparison_data> data_ = std::make_shared<const comparison_data>();
  std::vector<bool> numeric_key_;  // per coordinate key: every value a number
};

}  // namespace numlab_gui
