// The main window; see main_window.hpp.
#include "main_window.hpp"

#include <QAction>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTime>
#include <qcustomplot.h>

#include "comparison_view.hpp"
#include "events_view.hpp"
#include "histogram_view.hpp"
#include "live_watcher.hpp"
#include "map_view.hpp"
#include "overview_view.hpp"
#include "plot_export.hpp"
#include "plot_style.hpp"
#include "problems_view.hpp"
#include "runs_view.hpp"
#include "scales_view.hpp"
#include "swamping_view.hpp"

namespace numlab_gui {
namespace {

constexpr int max_recent_files = 10;

}  // namespace

QSize main_window::default_size(const QSize& available) {
  // Room for every tab label and a readable plot, never larger than the screen.
  return QSize(std::min(1400, available.width() * 9 / 10), std::min(900, available.height() * 9 / 10))
      .expandedTo(QSize(std::min(available.width(), 1024), std::min(available.height(), 700)));
}

main_window::main_window(QWidget* parent)
    : QMainWindow(parent),
      tabs_(new QTabWidget(this)),
      problems_(new problems_view(this)),
      runs_(new runs_view(this)),
      overview_(new overview_view(this)),
      map_(new map_view(this)),
      histograms_(new histogram_view(this)),
      swamping_(new swamping_view(this)),
      scales_(new scales_view(this)),
      comparison_(new comparison_view(this)),
      events_(new events_view(this)),
      watcher_(new live_watcher(this)),
      live_label_(new QLabel(this)),
      busy_(new QProgressBar(this)) {
  setWindowTitle("numlab-gui");
  setAcceptDrops(true);
  tabs_->addTab(problems_, "Problems");
  tabs_->addTab(overview_, "Overview");
  tabs_->addTab(map_, "Overflow / underflow map");
  tabs_->addTab(histograms_, "Histograms");
  tabs_->addTab(swamping_, "Swamping");
  tabs_->addTab(scales_, "Scales");
  tabs_->addTab(events_, "Events");
  tabs_->addTab(comparison_, "Compare");
  tabs_->addTab(runs_, "Runs");
  setCentralWidget(tabs_);
  busy_->setRange(0, 0);  // indeterminate
  busy_->setMaximumWidth(120);
  busy_->setFormat("loading");
  busy_->hide();
  statusBar()->addPermanentWidget(busy_);
  statusBar()->addPermanentWidget(live_label_);
  build_menus();

  runners_[problems_] = {problems_->queries(), problems_->ranking_queries()};
  runners_[overview_] = {overview_->queries()};
  runners_[map_] = {map_->queries()};
  runners_[histograms_] = {histograms_->queries()};
  runners_[swamping_] = {swamping_->queries()};
  runners_[scales_] = {scales_->queries(), scales_->detail_queries(), scales_->underflow_map()->queries()};
  runners_[comparison_] = {comparison_->queries(), comparison_->grouping_queries()};
  runners_[events_] = {events_->queries()};
  for (const auto& [view, runners] : runners_) {
    for (auto* runner : runners) connect(runner, &query_runner::busy_changed, this, &main_window::update_busy);
  }
  connect(tabs_, &QTabWidget::currentChanged, this, &main_window::show_tab);

  connect(runs_, &runs_view::selection_changed, this, &main_window::show_runs);
  connect(runs_, &runs_view::failed, this, &main_window::report);
  connect(runs_, &runs_view::file_loaded, this, [this](const QString&) {
    watcher_->watch(runs_->files());
    update_live_state();
    if (runs_->files() != compared_) {
      compared_ = runs_->files();
      when_shown(comparison_, reload_cause::user, [this] { comparison_->set_files(compared_); });
    }
  });
  connect(problems_, &problems_view::failed, this, &main_window::report);
  connect(overview_, &overview_view::failed, this, &main_window::report);
  connect(map_, &map_view::failed, this, &main_window::report);
  connect(histograms_, &histogram_view::failed, this, &main_window::report);
  connect(swamping_, &swamping_view::failed, this, &main_window::report);
  connect(scales_, &scales_view::failed, this, &main_window::report);
  connect(comparison_, &comparison_view::failed, this, &main_window::report);
  connect(comparison_, &comparison_view::run_activated, this, [this](const run_ref& run) {
    show_runs({run});
    tabs_->setCurrentWidget(problems_);
  });
  connect(events_, &events_view::failed, this, &main_window::report);
  connect(problems_, &problems_view::histogram_requested, this, &main_window::open_histogram);
  connect(problems_, &problems_view::overview_requested, this, [this](std::int64_t step) {
    overview_->mark_step(step);
    tabs_->setCurrentWidget(overview_);
  });
  connect(map_, &map_view::cell_activated, this, &main_window::open_histogram);
  connect(events_, &events_view::jump_requested, this, [this](const QString& layer, std::int64_t step) {
    overview_->mark_step(step);
    if (layer.isEmpty()) tabs_->setCurrentWidget(overview_);
    else open_histogram(layer, {}, step);
  });
  connect(watcher_, &live_watcher::changed, this, &main_window::refresh_file);
  // Every plot, not just each tab's first, exports from its context menu.
  for (auto* plot : findChildren<QCustomPlot*>()) {
    plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(plot, &QWidget::customContextMenuRequested, this, [this, plot](const QPoint& at) {
      QMenu menu(plot);
      menu.addAction("Export PNG / PDF...", this,
                     [this, plot] { export_plot_interactively(*plot, this, "plot.png", plot_title()); });
      menu.exec(plot->mapToGlobal(at));
    });
  }

  QSettings settings;
  if (!restoreGeometry(settings.value("window/geometry").toByteArray())) {
    const QScreen* screen = QGuiApplication::primaryScreen();
    resize(default_size(screen != nullptr ? screen->availableGeometry().size() : QSize(1400, 900)));
  }
  restoreState(settings.value("window/state").toByteArray());
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
  auto* go = menuBar()->addMenu("&Go");
  go->addAction("First &overflow / Inf", QKeySequence("Ctrl+Shift+O"), this, [this] {
    if (!problems_->go_to_first_overflow()) report("no overflow in this run");
  });
  go->addAction("First &NaN", QKeySequence("Ctrl+Shift+N"), this, [this] {
    if (!problems_->go_to_first_nan()) report("no NaN in this run");
  });
  go->addAction("&Problems", QKeySequence("Ctrl+1"), this, [this] { tabs_->setCurrentWidget(problems_); });
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

void main_window::when_shown(QWidget* view, reload_cause cause, std::function<void()> load) {
  if (tabs_->currentWidget() == view) {
    load();
    return;
  }
  if (cause == reload_cause::user) deferred_[view] = std::move(load);
  else deferred_.try_emplace(view, std::move(load));
}

void main_window::show_tab(int index) {
  auto* view = tabs_->widget(index);
  const auto waiting = deferred_.find(view);
  if (waiting != deferred_.end()) {
    auto load = std::move(waiting->second);
    deferred_.erase(waiting);
    load();
  }
  update_busy();
}

bool main_window::loading() const { return !busy_->isHidden(); }

void main_window::update_busy() {
  bool busy = false;
  const auto it = runners_.find(tabs_->currentWidget());
  if (it != runners_.end()) {
    for (auto* runner : it->second) busy = busy || runner->busy();
  }
  busy_->setVisible(busy);
}

void main_window::open_histogram(const QString& layer, const QString& role, std::int64_t step) {
  tabs_->setCurrentWidget(histograms_);  // runs a deferred set_run first
  histograms_->show_at(layer, role, step);
}

void main_window::show_runs(const QList<run_ref>& runs) {
  // A refreshed listing re-announces the same selection: keep the views' state.
  if (runs.isEmpty() || runs == shown_) {
    update_live_state();
    return;
  }
  shown_ = runs;
  const run_ref main_run = runs.front();
  setWindowTitle(QString("numlab-gui — %1").arg(main_run.label));
  when_shown(problems_, reload_cause::user, [this, main_run] { problems_->set_run(main_run); });
  when_shown(overview_, reload_cause::user, [this, runs] { overview_->set_runs(runs); });
  when_shown(map_, reload_cause::user, [this, main_run] { map_->set_run(main_run); });
  when_shown(histograms_, reload_cause::user, [this, main_run] { histograms_->set_run(main_run); });
  when_shown(swamping_, reload_cause::user, [this, main_run] { swamping_->set_run(main_run); });
  when_shown(scales_, reload_cause::user, [this, main_run] { scales_->set_run(main_run); });
  when_shown(events_, reload_cause::user, [this, main_run] { events_->set_run(main_run); });
  update_live_state();
}

void main_window::refresh_file(const QString& file) {
  runs_->open_file(file, reload_cause::live);  // statuses and step counts
  bool main_run_here = false;
  bool any_here = false;
  for (const auto& run : shown_) any_here = any_here || run.file == file;
  if (!shown_.isEmpty()) main_run_here = shown_.front().file == file;
  constexpr auto live = reload_cause::live;
  if (any_here) when_shown(overview_, live, [this] { overview_->reload(live); });
  if (compared_.contains(file)) when_shown(comparison_, live, [this] { comparison_->reload(live); });
  if (main_run_here) {
    when_shown(problems_, live, [this] { problems_->reload(live); });
    when_shown(map_, live, [this] { map_->reload(live); });
    when_shown(histograms_, live, [this] { histograms_->reload(live); });
    when_shown(swamping_, live, [this] { swamping_->reload(live); });
    when_shown(scales_, live, [this] { scales_->reload(live); });
    when_shown(events_, live, [this] { events_->reload(live); });
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

QString main_window::plot_title() const {
  QString title = tabs_->tabText(tabs_->currentIndex());
  if (shown_.isEmpty()) return title;
  if (tabs_->currentWidget() == comparison_) {
    const QString key = comparison_->group_key();
    return title + QString(" — %1 runs").arg(comparison_->data().runs.size()) +
           (key.isEmpty() ? QString() : " grouped by " + key);
  }
  if (tabs_->currentWidget() == overview_) {
    QStringList labels;
    for (const auto& run : shown_) labels << run.label;
    return title + " — " + labels.join(" vs ");
  }
  title += " — " + shown_.front().label;
  if (tabs_->currentWidget() == histograms_) {
    const auto& data = histograms_->data();
    title += QString(" — %1 / %2 at step %3").arg(qstr(data.layer), qstr(data.role)).arg(histograms_->shown_step());
  } else if (tabs_->currentWidget() == scales_) {
    const auto& detail = scales_->detail();
    title += QString(" — %1 / %2").arg(qstr(scales_->data().layer), qstr(scales_->data().role));
    if (!detail.records.empty())
      title += QString(" (%1) at step %2").arg(qstr(detail.records.front().scaled_format)).arg(detail.records.front().step);
  } else if (tabs_->currentWidget() == map_) {
    title += QString(" — %1 of %2").arg(metric_name(map_->selected_metric()),
                                        map_->grid().role.empty() ? QString("every role") : qstr(map_->grid().role));
  }
  return title;
}

void main_window::export_current_plot() {
  auto* plot = tabs_->currentWidget()->findChild<QCustomPlot*>();
  if (plot == nullptr) {
    report("this view has no plot to export");
    return;
  }
  export_plot_interactively(*plot, this, tabs_->tabText(tabs_->currentIndex()).toLower().replace(' ', '-') + ".png",
                            plot_title());
}

void main_window::report(const QString& message) { statusBar()->showMessage(message, 15000); }

void main_window::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  settings.setValue("map/metric", static_cast<int>(map_->selected_metric()));
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
