// The main window; see main_window.hpp.
#include "main_window.hpp"

#include <QAction>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTime>
#include <qcustomplot.h>

#include "events_view.hpp"
#include "histogram_view.hpp"
#include "live_watcher.hpp"
#include "map_view.hpp"
#include "overview_view.hpp"
#include "plot_export.hpp"
#include "runs_view.hpp"
#include "swamping_view.hpp"

namespace numlab_gui {
namespace {

constexpr int max_recent_files = 10;

}  // namespace

main_window::main_window(QWidget* parent)
    : QMainWindow(parent),
      tabs_(new QTabWidget(this)),
      runs_(new runs_view(this)),
      overview_(new overview_view(this)),
      map_(new map_view(this)),
      histograms_(new histogram_view(this)),
      swamping_(new swamping_view(this)),
      events_(new events_view(this)),
      watcher_(new live_watcher(this)),
      live_label_(new QLabel(this)) {
  setWindowTitle("numlab-gui");
  setAcceptDrops(true);
  tabs_->addTab(runs_, "Runs");
  tabs_->addTab(overview_, "Overview");
  tabs_->addTab(map_, "Overflow / underflow map");
  tabs_->addTab(histograms_, "Gradient histograms");
  tabs_->addTab(swamping_, "Swamping");
  tabs_->addTab(events_, "Events");
  setCentralWidget(tabs_);
  statusBar()->addPermanentWidget(live_label_);
  build_menus();

  connect(runs_, &runs_view::selection_changed, this, &main_window::show_runs);
  connect(runs_, &runs_view::failed, this, &main_window::report);
  connect(runs_, &runs_view::file_loaded, this, [this](const QString&) {
    watcher_->watch(runs_->files());
    update_live_state();
  });
  connect(overview_, &overview_view::failed, this, &main_window::report);
  connect(map_, &map_view::failed, this, &main_window::report);
  connect(histograms_, &histogram_view::failed, this, &main_window::report);
  connect(swamping_, &swamping_view::failed, this, &main_window::report);
  connect(events_, &events_view::failed, this, &main_window::report);
  connect(map_, &map_view::cell_activated, this, [this](const QString& layer, const QString& role, std::int64_t step) {
    histograms_->show_at(layer, role, step);
    tabs_->setCurrentWidget(histograms_);
  });
  connect(events_, &events_view::jump_requested, this, [this](const QString& layer, std::int64_t step) {
    overview_->mark_step(step);
    if (layer.isEmpty()) {
      tabs_->setCurrentWidget(overview_);
    } else {
      histograms_->show_at(layer, {}, step);
      tabs_->setCurrentWidget(histograms_);
    }
  });
  connect(watcher_, &live_watcher::changed, this, &main_window::refresh_file);
  // Every plot, not just each tab's first, exports from its context menu.
  for (auto* plot : findChildren<QCustomPlot*>()) {
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(plot, &QWidget::customContextMenuRequested, this, [this, plot](const QPoint& at) {
      QMenu menu(plot);
      menu.addAction("Export PNG / PDF...", this, [this, plot] { export_plot_interactively(*plot, this, "plot.png"); });
      menu.exec(plot->mapToGlobal(at));
    });
  }

  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  tabs_->setCurrentIndex(settings.value("window/tab", 0).toInt());
  map_->set_metric(static_cast<map_metric>(settings.value("map/metric", 0).toInt()));
  update_live_state();
}

void main_window::build_menus() {
  auto* file = menuBar()->addMenu("&File");
  file->addAction("&Open...", QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, "Open run database", {},
                                                      "Run databases (*.db *.sqlite);;All files (*)");
    if (!path.isEmpty()) open_file(path);
  });
  recent_menu_ = file->addMenu("Open &Recent");
  rebuild_recent_menu();
  file->addAction("&Export plot (PNG / PDF)...", QKeySequence("Ctrl+E"), this, &main_window::export_current_plot);
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
  auto* view = menuBar()->addMenu("&View");
  auto* live = view->addAction("&Live refresh");
  live->setCheckable(true);
  live->setChecked(QSettings().value("live/enabled", true).toBool());
  watcher_->set_enabled(live->isChecked());
  connect(live, &QAction::toggled, this, [this](bool on) {
    watcher_->set_enabled(on);
    QSettings().setValue("live/enabled", on);
    update_live_state();
  });
}

void main_window::open_file(const QString& file) {
  const QString absolute = QFileInfo(file).absoluteFilePath();
  runs_->open_file(absolute);
  remember_recent(absolute);
}

void main_window::show_runs(const QList<run_ref>& runs) {
  // A refreshed listing re-announces the same selection: keep the views' state.
  if (runs.isEmpty() || runs == shown_) {
    update_live_state();
    return;
  }
  shown_ = runs;
  overview_->set_runs(runs);
  map_->set_run(runs.front());
  histograms_->set_run(runs.front());
  swamping_->set_run(runs.front());
  events_->set_run(runs.front());
  update_live_state();
}

void main_window::refresh_file(const QString& file) {
  runs_->open_file(file);  // statuses and step counts
  bool main_run_here = false;
  bool any_here = false;
  for (const auto& run : shown_) any_here = any_here || run.file == file;
  if (!shown_.isEmpty()) main_run_here = shown_.front().file == file;
  if (any_here) overview_->reload();
  if (main_run_here) {
    map_->reload();
    histograms_->reload();
    swamping_->reload();
    events_->reload();
  }
  live_label_->setToolTip(QString("last change seen at %1").arg(QTime::currentTime().toString()));
}

QString main_window::live_state() const { return live_label_->text(); }

void main_window::update_live_state() {
  QString state = "no run";
  if (!shown_.isEmpty()) {
    const auto info = runs_->info(shown_.front());
    const bool running = info && info->status == rundb::run_status::running;
    if (!info) state = "loading";
    else if (running && watcher_->enabled()) state = "● live";
    else if (running) state = "running (live refresh off)";
    else state = QString::fromUtf8(rundb::to_string(info->status).data());
  }
  live_label_->setText(state);
  live_label_->setStyleSheet(state.startsWith("●") ? "QLabel { color: #2ca02c; font-weight: bold; }" : "");
}

void main_window::remember_recent(const QString& file) {
  QSettings settings;
  QStringList recent = settings.value("files/recent").toStringList();
  recent.removeAll(file);
  recent.prepend(file);
  while (recent.size() > max_recent_files) recent.removeLast();
  settings.setValue("files/recent", recent);
  rebuild_recent_menu();
}

void main_window::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value("files/recent").toStringList();
  for (const QString& file : recent) recent_menu_->addAction(file, this, [this, file] { open_file(file); });
  recent_menu_->setEnabled(!recent.isEmpty());
}

void main_window::export_current_plot() {
  auto* plot = tabs_->currentWidget()->findChild<QCustomPlot*>();
  if (plot == nullptr) {
    report("this view has no plot to export");
    return;
  }
  export_plot_interactively(*plot, this, tabs_->tabText(tabs_->currentIndex()).toLower().replace(' ', '-') + ".png");
}

void main_window::report(const QString& message) { statusBar()->showMessage(message, 15000); }

void main_window::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  settings.setValue("window/tab", tabs_->currentIndex());
  settings.setValue("map/metric", static_cast<int>(map_->metric()));
  QMainWindow::closeEvent(event);
}

void main_window::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void main_window::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) open_file(url.toLocalFile());
  }
  event->acceptProposedAction();
}

}  // namespace numlab_gui
