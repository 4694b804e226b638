// The numlab-gui main window: the views in tabs (Problems first), File menu
// with recent files, Go menu to the first overflow / NaN, drag and drop,
// PNG/PDF export with a title, live refresh and persisted layout.
//
// Only the tab on screen queries the database: the others remember what they
// missed (a new run, a live change) and load when shown, so opening a big run
// costs one view's queries, and a busy indicator shows while they run.
#pragma once

#include <QList>
#include <QMainWindow>
#include <QSize>
#include <QStringList>

#include <functional>
#include <map>

#include "async_query.hpp"
#include "run_data.hpp"

class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;

namespace numlab_gui {

class comparison_view;
class events_view;
class histogram_view;
class live_watcher;
class map_view;
class overview_view;
class problems_view;
class query_runner;
class runs_view;
class scales_view;
class swamping_view;

class main_window : public QMainWindow {
  Q_OBJECT

 public:
  explicit main_window(QWidget* parent = nullptr);

  /// Opens a run database (adds it to the recent files).
  void open_file(const QString& file);

  problems_view* problems() const { return problems_; }
  runs_view* runs() const { return runs_; }
  overview_view* overview() const { return overview_; }
  map_view* map() const { return map_; }
  histogram_view* histograms() const { return histograms_; }
  swamping_view* swamping() const { return swamping_; }
  scales_view* scales() const { return scales_; }
  comparison_view* comparison() const { return comparison_; }
  events_view* events() const { return events_; }
  live_watcher* watcher() const { return watcher_; }
  QTabWidget* tabs() const { return tabs_; }
  /// The text of the live indicator in the status bar.
  QString live_state() const;
  /// True while the tab on screen is loading (the busy indicator shows).
  bool loading() const;
  /// The title exported plots carry: run, view, and layer / role / step where they apply.
  QString plot_title() const;
  /// The size of a first window on a screen with this available area.
  static QSize default_size(const QSize& available);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void build_menus();
  /// Runs `load` now if `view` is the tab on screen, else when it is next
  /// shown. A user's load replaces one waiting; a live one never replaces one.
  void when_shown(QWidget* view, reload_cause cause, std::function<void()> load);
  void show_tab(int index);
  void update_busy();
  void open_histogram(const QString& layer, const QString& role, std::int64_t step);
  void show_runs(const QList<run_ref>& runs);
  void refresh_file(const QString& file);
  void update_live_state();
  void remember_recent(const QString& file);
  void rebuild_recent_menu();
  void export_current_plot();
  void report(const QString& message);

  QTabWidget* tabs_;
  problems_view* problems_;
  runs_view* runs_;
  overview_view* overview_;
  map_view* map_;
  histogram_view* histograms_;
  swamping_view* swamping_;
  scales_view* scales_;
  comparison_view* comparison_;
  events_view* events_;
  live_watcher* watcher_;
  QLabel* live_label_;
  QProgressBar* busy_;
  std::map<QWidget*, std::function<void()>> deferred_;  // loads waiting for their tab
  std::map<QWidget*, std::vector<query_runner*>> runners_;  // each tab's queries
  QMenu* recent_menu_ = nullptr;
  QList<run_ref> shown_;
  QStringList compared_;  // the files the comparison reads
};

}  // namespace numlab_gui
