// Events: a table of a run's events (overflow, NaN, skipped step, trap,
// warning); activating a row asks the other views to jump to its step/layer.
// The events shown (after the kind filter) export to CSV.
#pragma once

#include <QWidget>

#include <optional>

#include "async_query.hpp"
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
  /// Loads again: at once for `user`, after the runner's rest for `live`.
  void reload(reload_cause cause = reload_cause::user);
  query_runner* queries() const { return queries_; }

  QTableWidget* table() const { return table_; }
  const event_list& data() const { return data_; }
  /// Writes the events the filter shows to `file` as CSV (RFC 4180); returns
  /// the error message, empty on success. Nothing is left behind on failure.
  QString export_csv(const QString& file) const;
  /// Shows only events of this kind (nullopt: all).
  void set_kind_filter(std::optional<rundb::event_kind> kind);

 signals:
  void loaded();
  void failed(const QString& message);
  /// Jump to `step` (and `layer`, empty when the event names none).
  void jump_requested(const QString& layer, std::int64_t step);

 private:
  void show_data();
  bool shown(const rundb::event_record& e) const;

  QComboBox* kind_filter_;
  QLabel* summary_;
  QTableWidget* table_;
  run_ref run_;
  run_ref shown_run_;  // the run data_ holds: a live refresh of it appends
  event_list data_;
  query_runner* queries_;
};

}  // namespace numlab_gui
