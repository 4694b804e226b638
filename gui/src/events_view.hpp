// Events: a table of a run's events (overflow, NaN, skipped step, trap,
// warning); activating a row asks the other views to jump to its step/layer.
#pragma once

#include <QWidget>

#include "run_data.hpp"

class QComboBox;
class QLabel;
class QTableWidget;

namespace numlab_gui {

class events_view : public QWidget {
  Q_OBJECT

 public:
  explicit events_view(QWidget* parent = nullptr);

  /// Shows `run`'s events; loads in the background, then emits loaded().
  void set_run(const run_ref& run);
  void reload();

  QTableWidget* table() const { return table_; }
  const event_list& data() const { return data_; }

 signals:
  void loaded();
  void failed(const QString& message);
  /// Jump to `step` (and `layer`, empty when the event names none).
  void jump_requested(const QString& layer, std::int64_t step);

 private:
  void show_data();

  QComboBox* kind_filter_;
  QLabel* summary_;
  QTableWidget* table_;
  run_ref run_;
  event_list data_;
  std::uint64_t generation_ = 0;
};

}  // namespace numlab_gui
