// The comparison view; see comparison_view.hpp.
#include "comparison_view.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <cmath>
#include <map>

#include "plot_style.hpp"

namespace numlab_gui {
namespace {

// The key box's first entry: no grouping, every run its own curve.
const QString each_run = "(each run)";

QString with_spread(const mean_sd& s) {
  if (s.n == 0) return "—";
  if (s.n < 2) return QString::number(s.mean, 'g', 3);
  // Identical values leave rounding noise (1e-16) in the sd: show it as 0.
  const double sd = s.sd <= 1e-12 * std::abs(s.mean) ? 0.0 : s.sd;
  return QString("%1 ± %2").arg(s.mean, 0, 'g', 3).arg(sd, 0, 'g', 2);
}

// Counts of a band's members by outcome, for its legend entry: "5 finished, 1 diverged".
QString outcomes(const comparison_data& data, const seed_band& band) {
  std::map<rundb::run_status, int> by_status;
  for (const auto m : band.members) ++by_status[data.runs[m].status];
  QStringList parts;
  for (const auto& [status, n] : by_status) parts << QString("%1 %2").arg(n).arg(QString::fromUtf8(rundb::to_string(status).data()));
  return parts.join(", ");
}

// A load's result: the runs read, grouped as the view asked when it started.
struct loaded_comparison {
  std::shared_ptr<const comparison_data> data;
  comparison_grouping grouping;
};

// A regroup's result, with the runs it grouped: a newer load may have replaced them meanwhile.
struct regrouped_comparison {
  std::shared_ptr<const comparison_data> data;
  comparison_grouping grouping;
  qint64 ms = 0;
};

}  // namespace

comparison_view::comparison_view(QWidget* parent)
    : QWidget(parent),
      key_box_(new QComboBox(this)),
      log_loss_(new QCheckBox("log loss axis", this)),
      caption_(new QLabel(this)),
      progress_(new QProgressBar(this)),
      progress_timer_(new QTimer(this)),
      plot_(new QCustomPlot(this)),
      grid_(new QTableView(this)),
      model_(new comparison_grid(this)),
      sorted_(new QSortFilterProxyModel(this)),
      queries_(new query_runner(this)),
      grouping_(new query_runner(this)) {
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel("group by", this));
  controls->addWidget(key_box_);
  controls->addWidget(log_loss_);
  controls->addWidget(caption_, 1);
  controls->addWidget(progress_);
  // A long caption wraps instead of holding the window at its own width.
  caption_->setWordWrap(true);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(plot_);
  split->addWidget(grid_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(split, 1);
  key_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  key_box_->setToolTip("The sweep key (run_coordinates) whose values form the groups; each band is the mean ± sd "
                       "of the group's finished runs (its seeds)");
  plot_->xAxis->setLabel("step");
  plot_->xAxis->setTicker(step_ticker());
  plot_->yAxis->setLabel("training loss (mean ± sd of finished runs)");
  legend_above_with_zoom_reset(*plot_);
  connect(plot_, &QCustomPlot::mouseMove, this,
          [this](QMouseEvent* event) { show_hover_text(*plot_, *event, hover_text(event->pos())); });
  sorted_->setSourceModel(model_);
  sorted_->setSortRole(comparison_grid::sort_role);
  grid_->setModel(sorted_);
  grid_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  grid_->setSelectionBehavior(QAbstractItemView::SelectRows);
  grid_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // the order read until a header is clicked
  grid_->setSortingEnabled(true);
  grid_->verticalHeader()->hide();
  // Column widths from the first rows, not from every one of thousands.
  grid_->horizontalHeader()->setResizeContentsPrecision(100);
  connect(grid_, &QTableView::doubleClicked, this, [this](const QModelIndex& at) {
    const int row = sorted_->mapToSource(at).row();
    if (row >= 0 && static_cast<std::size_t>(row) < data_->runs.size())
      emit run_activated(data_->runs[static_cast<std::size_t>(row)].run);
  });
  connect(key_box_, &QComboBox::currentTextChanged, this, [this](const QString& key) {
    if (key.isEmpty()) return;
    wanted_key_ = key;
    if (asked_key() != bands_key_) regroup();
  });
  connect(log_loss_, &QCheckBox::toggled, this, [this] { draw_bands(); });
  progress_->setRange(0, 1000);
  progress_->setMinimumWidth(220);
  progress_->hide();
  progress_timer_->setInterval(100);
  connect(progress_timer_, &QTimer::timeout, this, &comparison_view::show_progress);
  connect(queries_, &query_runner::busy_changed, this, [this](bool busy) {
    progress_->setVisible(busy);
    if (busy) {
      show_progress();
      progress_timer_->start();
    } else {
      progress_timer_->stop();
    }
  });
}

void comparison_view::show_progress() {
  const auto& p = *load_progress_;
  const int files = p.files.load();
  QString text = QString("reading runs: %1 of %2").arg(p.runs_read.load()).arg(p.runs.load());
  if (files > 1) text = QString("file %1 of %2, ").arg(p.file.load() + 1).arg(files) + text;
  progress_->setFormat(text);
  progress_->setValue(p.permille());
}

void comparison_view::set_files(const QStringList& files) {
  files_ = files;
  reload();
}

void comparison_view::set_group_key(const QString& key) {
  wanted_key_ = key.isEmpty() ? each_run : key;
  const int at = key_box_->findText(wanted_key_);
  if (at >= 0) key_box_->setCurrentIndex(at);
}

QString comparison_view::group_key() const {
  const QString key = key_box_->currentText();
  return key == each_run ? QString() : key;
}

std::optional<std::string> comparison_view::asked_key() const {
  if (wanted_key_.isEmpty()) return std::nullopt;
  if (wanted_key_ == each_run) return std::string();
  return wanted_key_.toStdString();
}

void comparison_view::reload(reload_cause cause) {
  if (files_.isEmpty()) return;
  const QStringList files = files_;
  auto progress = std::make_shared<load_progress>();
  load_progress_ = progress;
  queries_->load<loaded_comparison>(
      cause,
      [files, asked = asked_key(), progress](const interrupt_flag& interrupt) {
        auto data =
            std::make_shared<const comparison_data>(load_comparison(files, max_points, interrupt, progress.get()));
        auto grouping = group_as_asked(*data, asked, max_points);
        return loaded_comparison{std::move(data), std::move(grouping)};
      },
      [this](loaded_comparison value) {
        QElapsedTimer clock;
        clock.start();
        data_ = std::move(value.data);
        load_ms_ = data_->load_ms;
        show_data(std::move(value.grouping));
        apply_ms_ = clock.elapsed();
        emit loaded();
        // The key box changed while the load ran: group the new runs by what it shows now.
        if (asked_key() != bands_key_) regroup();
      },
      [this](const QString& error) { emit failed(error); });
}

void comparison_view::regroup() {
  grouping_->submit<regrouped_comparison>(
      [data = data_, asked = asked_key()](const interrupt_flag&) {
        QElapsedTimer clock;
        clock.start();
        auto grouping = group_as_asked(*data, asked, max_points);
        return regrouped_comparison{data, std::move(grouping), clock.elapsed()};
      },
      [this](regrouped_comparison value) {
        if (value.data != data_) return;  // runs a newer load replaced; that load groups its own
        QElapsedTimer clock;
        clock.start();
        group_ms_ = value.ms;
        bands_ = std::move(value.grouping.bands);
        bands_key_ = std::move(value.grouping.key);
        draw_bands();
        draw_ms_ = clock.elapsed();
        emit grouped();
      },
      [this](const QString& error) { emit failed(error); });
}

void comparison_view::show_data(comparison_grouping grouping) {
  QStringList keys{each_run};
  for (const auto& k : data_->keys) keys << qstr(k);
  // Nothing asked yet, or a key these runs lack: show what the worker fell back to.
  if (!keys.contains(wanted_key_)) wanted_key_ = grouping.key.empty() ? each_run : qstr(grouping.key);
  {
    const QSignalBlocker quiet(key_box_);
    key_box_->clear();
    key_box_->addItems(keys);
    key_box_->setCurrentText(wanted_key_);
  }
  bands_ = std::move(grouping.bands);
  bands_key_ = std::move(grouping.key);
  model_->set_runs(data_);
  grid_->resizeColumnsToContents();
  draw_bands();
}

void comparison_view::draw_bands() {
  plot_->clearGraphs();
  plot_->yAxis->setScaleType(log_loss_->isChecked() ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  plot_->yAxis->setTicker(log_loss_->isChecked() ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog)
                                                 : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  std::size_t scored = 0;
  for (std::size_t i = 0; i < bands_.size(); ++i) {
    const auto& band = bands_[i];
    const QColor color = run_color(i);
    QVector<double> steps, mean, low, high;
    for (std::size_t k = 0; k < band.steps.size(); ++k) {
      if (band.n[k] == 0) continue;
      steps << band.steps[k];
      mean << band.mean[k];
      low << band.mean[k] - band.sd[k];
      high << band.mean[k] + band.sd[k];
    }
    scored += band.finished;
    QColor fill = color;
    fill.setAlpha(50);
    auto* lower = plot_->addGraph();
    lower->setPen(Qt::NoPen);
    lower->setData(steps, low, true);
    lower->removeFromLegend();
    auto* upper = plot_->addGraph();
    upper->setPen(Qt::NoPen);
    upper->setBrush(fill);
    upper->setChannelFillGraph(lower);
    upper->setData(steps, high, true);
    upper->removeFromLegend();
    auto* middle = plot_->addGraph();
    middle->setPen(QPen(color, 1.6));
    middle->setData(steps, mean, true);
    const QString label =
        bands_key_.empty() ? qstr(band.value) : QString("%1 = %2").arg(qstr(bands_key_), qstr(band.value));
    middle->setName(QString("%1 — accuracy %2 (%3)").arg(label, with_spread(band.final_accuracy), outcomes(*data_, band)));
  }
  caption_->setText(QString("%1 runs in %2 file(s), %3 groups; %4 finished runs scored, the others counted but "
                            "never averaged")
                        .arg(data_->runs.size())
                        .arg(data_->files.size())
                        .arg(bands_.size())
                        .arg(scored));
  plot_->rescaleAxes();
  plot_->replot();
}

QString comparison_view::hover_text(const QPoint& pixel) const {
  return curve_values_at(*plot_->axisRect(), pixel, [](double key) { return step_key_text(key) + ", mean loss"; });
}

}  // namespace numlab_gui
