// Runs: the open files and their runs (name, status, steps, skipped steps,
// overflow and NaN events, the worst underflowing layer, config). The first selected run is shown in the
// other views; selecting more compares them all in the Overview.
#pragma once

#include <QList>
#include <QStringList>
#include <QWidget>

#include <map>
#include <optional>

#include "async_query.hpp"
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
  void open_file(const QString& file, reload_cause cause = reload_cause::user);
  /// Selects the given runs.
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
  /// The selection changed: the first run is the main one, the others are compared with it.
  void selection_changed(const QList<run_ref>& runs);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void show_listing(const file_listing& listing);
  // The worst-underflow column scans every statistics row: it follows each
  // listing on a runner of its own, so the listing (and the first view,
  // which waits for it) never waits for the scan, and only while the view
  // is shown.
  void load_underflows(const file_listing& listing, reload_cause cause);
  void show_underflows(const QString& file);
  QTreeWidgetItem* file_item(const QString& file) const;

  QLabel* error_;
  QTreeWidget* tree_;
  QPlainTextEdit* config_;
  std::map<QString, file_listing> listings_;
  std::map<QString, query_runner*> listers_;  // one per file, so files load side by side
  // Per file and run: the worst underflowing layer and role, once scanned (nullopt: nothing underflowed).
  std::map<QString, std::map<rundb::run_id, std::optional<rundb::layer_totals>>> underflows_;
  std::map<QString, query_runner*> underflow_loaders_;
  std::map<QString, reload_cause> unscanned_;  // files whose scan waits for the view to be shown
};

}  // namespace numlab_gui
