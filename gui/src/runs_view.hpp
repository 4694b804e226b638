// Runs: the open files and their runs (name, status, steps, config). One run
// is shown in the other views; selecting two compares them in the Overview.
#pragma once

#include <QList>
#include <QStringList>
#include <QWidget>

#include <map>
#include <optional>

#include "run_data.hpp"

class QLabel;
class QPlainTextEdit;
class QTreeWidget;
class QTreeWidgetItem;

namespace numlab_gui {

class runs_view : public QWidget {
  Q_OBJECT

 public:
  explicit runs_view(QWidget* parent = nullptr);

  /// Opens `file` (or refreshes it when already open); loads in the
  /// background, then emits file_loaded() or failed().
  void open_file(const QString& file);
  /// Selects the given runs (at most two are used).
  void select_runs(const QList<run_ref>& runs);
  QList<run_ref> selected_runs() const;
  QStringList files() const;
  /// What the last listing of `run`'s file said about it.
  std::optional<rundb::run_info> info(const run_ref& run) const;
  QTreeWidget* tree() const { return tree_; }
  /// The last error shown (empty when none).
  QString error_text() const;

 signals:
  void file_loaded(const QString& file);
  void failed(const QString& message);
  /// The selection changed: the first run is the main one, a second one is compared.
  void selection_changed(const QList<run_ref>& runs);

 private:
  void show_listing(const file_listing& listing);
  QTreeWidgetItem* file_item(const QString& file) const;

  QLabel* error_;
  QTreeWidget* tree_;
  QPlainTextEdit* config_;
  std::map<QString, file_listing> listings_;
};

}  // namespace numlab_gui
