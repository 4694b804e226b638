// The numlab-gui main window: the views in tabs, File menu with recent
// files, drag and drop, PNG/PDF export, live refresh and persisted layout.
#pragma once

#include <QList>
#include <QMainWindow>

#include "run_data.hpp"

class QLabel;
class QMenu;
class QTabWidget;

namespace numlab_gui {

class events_view;
class histogram_view;
class live_watcher;
class map_view;
class overview_view;
class runs_view;
class swamping_view;

class main_window : public QMainWindow {
  Q_OBJECT

 public:
  explicit main_window(QWidget* parent = nullptr);

  /// Opens a run database (adds it to the recent files).
  void open_file(const QString& file);

  runs_view* runs() const { return runs_; }
  overview_view* overview() const { return overview_; }
  map_view* map() const { return map_; }
  histogram_view* histograms() const { return histograms_; }
  swamping_view* swamping() const { return swamping_; }
  events_view* events() const { return events_; }
  live_watcher* watcher() const { return watcher_; }
  QTabWidget* tabs() const { return tabs_; }
  /// The text of the live indicator in the status bar.
  QString live_state() const;

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void build_menus();
  void show_runs(const QList<run_ref>& runs);
  void refresh_file(const QString& file);
  void update_live_state();
  void remember_recent(const QString& file);
  void rebuild_recent_menu();
  void export_current_plot();
  void report(const QString& message);

  QTabWidget* tabs_;
  runs_view* runs_;
  overview_view* overview_;
  map_view* map_;
  histogram_view* histograms_;
  swamping_view* swamping_;
  events_view* events_;
  live_watcher* watcher_;
  QLabel* live_label_;
  QMenu* recent_menu_ = nullptr;
  QList<run_ref> shown_;
};

}  // namespace numlab_gui
