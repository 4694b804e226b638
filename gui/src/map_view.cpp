// The overflow / underflow map; see map_view.hpp.
#include "map_view.hpp"


#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <cmath>

#include "live_queries.hpp"
#include "plot_fit.hpp"
#include "plot_style.hpp"
#include "run_queries.hpp"

namespace numlab_gui {
namespace {

constexpr map_metric all_metrics[] = {map_metric::overflow,        map_metric::underflow, map_metric::subnormal,
                                      map_metric::nan,             map_metric::swamped,   map_metric::partially_swamped,
                                      map_metric::block_underflow, map_metric::saturated};

constexpr const char* all_roles_label = "all roles (worst)";

// The smallest fraction the log scale shows: one value in a billion.
constexpr double log_floor = 1e-9;

}  // namespace

map_view::map_view(QWidget* parent)
    : QWidget(parent),
      metric_box_(new QComboBox(this)),
      role_box_(new QComboBox(this)),
      caption_(new QLabel(this)),
      plot_(new QCustomPlot(this)),
      log_scale_(new QCheckBox("log colour scale", this)),
      queries_(new query_runner(this)) {
  for (auto metric : all_metrics) metric_box_->addItem(metric_name(metric), static_cast<int>(metric));
  // The roles arrive with the run, after the box was first laid out.
  role_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel("Colour by", this));
  controls->addWidget(metric_box_);
  controls->addWidget(new QLabel("of role", this));
  controls->addWidget(role_box_);
  controls->addWidget(log_scale_);
  controls->addWidget(caption_, 1);
  // A long caption wraps instead of holding the window at its own width.
  caption_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(plot_, 1);

  map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  auto* scale = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(0, 1, scale);
  scale->setType(QCPAxis::atRight);
  label_axis(*scale->axis(), {"fraction of values", "fraction"});
  map_->setColorScale(scale);
  map_->setGradient(fraction_gradient());
  map_->setInterpolate(false);
  // Every skipped step, traced or not: a red tick above the top row.
  skip_marks_ = plot_->addGraph();
  skip_marks_->setName("skipped steps");
  skip_marks_->setLineStyle(QCPGraph::lsNone);
  skip_marks_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangleInverted, QColor(214, 39, 40),
                                               QColor(214, 39, 40), 8));
  // Every overflow event, skipped or not, beside them.
  overflow_marks_ = plot_->addGraph();
  overflow_marks_->setName("overflow events");
  overflow_marks_->setLineStyle(QCPGraph::lsNone);
  QCPScatterStyle cross(QCPScatterStyle::ssCross, 9);
  cross.setPen(QPen(QColor(255, 127, 14), 2));
  overflow_marks_->setScatterStyle(cross);
  plot_->xAxis->setLabel("step");
  label_axis(*plot_->yAxis, {"layer"});
  fit_text_on_layout(*plot_);
  auto* margins = new QCPMarginGroup(plot_);
  plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  plot_->axisRect()->setRangeDrag(Qt::Horizontal);

  connect(metric_box_, qOverload<int>(&QComboBox::activated), this, [this] { reload(); });
  connect(role_box_, qOverload<int>(&QComboBox::activated), this, [this] {
    role_ = role_box_->currentData().toString();
    reload();
  });
  connect(log_scale_, &QCheckBox::toggled, this, [this] { show_grid(); });
  connect(plot_, &QCustomPlot::mouseMove, this, &map_view::on_hover);
  zoom_ = new user_zoom(*plot_, [this] { reset_zoom(); });
  // A drag pans; only a click that did not move opens the histogram.
  zoom_->on_click([this](const QMouseEvent& event) {
    if (const auto cell = cell_at(event.pos())) activate_cell(cell->first, cell->second);
  });
}

void map_view::set_run(const run_ref& run) {
  run_ = run;
  reload();
}

void map_view::set_metric(map_metric metric) {
  metric_box_->setCurrentIndex(metric_box_->findData(static_cast<int>(metric)));
  reload();
}

void map_view::set_role(const QString& role) {
  role_ = role;
  reload();
}

void map_view::set_log_scale(bool on) { log_scale_->setChecked(on); }

map_metric map_view::selected_metric() const { return static_cast<map_metric>(metric_box_->currentData().toInt()); }

void map_view::reload(reload_cause cause) {
  if (run_.file.isEmpty()) return;
  const run_ref run = run_;
  const std::string role = role_.toStdString();
  const map_metric metric = selected_metric();
  if (cause == reload_cause::user) zoom_->forget();
  // A live refresh of the grid on screen reads only the steps recorded since (see refresh_map).
  const bool same = cause == reload_cause::live && shown_run_ == run && shown_role_ == role_ && shown_metric_ == metric;
  const std::optional<map_grid> held = same ? std::optional<map_grid>(grid_) : std::nullopt;
  queries_->load<map_grid>(
      cause,
      [run, role, metric, held](const interrupt_flag& interrupt) {
        return held ? refresh_map(*held, run, metric, max_columns, interrupt)
                    : load_map(run, role, metric, max_columns, interrupt);
      },
      [this, run, requested = role_, metric](map_grid value) {
        shown_run_ = run;
        shown_role_ = requested;
        shown_metric_ = metric;
        grid_ = std::move(value);
        show_grid();
        emit loaded();
      },
      [this](const QString& error) { emit failed(error); });
}

double map_view::shown_value(double fraction) const {
  if (!log_scale_->isChecked() || !std::isfinite(fraction)) return fraction;
  return std::max(fraction, log_floor);
}

void map_view::show_grid() {
  role_box_->clear();
  role_box_->addItem(all_roles_label, QString(all_roles));
  for (const auto& r : grid_.roles) role_box_->addItem(qstr(r), qstr(r));
  // load_map falls back to a default role when the wanted one is absent.
  const QString shown = grid_.role.empty() ? QString(all_roles) : qstr(grid_.role);
  role_box_->setCurrentIndex(std::max(0, role_box_->findData(shown)));
  role_ = shown;

  const int columns = static_cast<int>(grid_.steps.size());
  const int rows = static_cast<int>(grid_.layers.size());
  auto* data = map_->data();
  data->setSize(std::max(columns, 1), std::max(rows, 1));
  // Cells are indexed by column, not step, so uneven cadences still tile.
  data->setRange(QCPRange(0, std::max(columns - 1, 1)), QCPRange(0, std::max(rows - 1, 1)));
  data->fill(std::nan(""));
  double highest = 0;
  for (int l = 0; l < rows; ++l) {
    for (int c = 0; c < columns; ++c) {
      const double v = grid_.at(static_cast<std::size_t>(l), static_cast<std::size_t>(c));
      data->setCell(c, l, shown_value(v));
      if (std::isfinite(v)) highest = std::max(highest, v);
    }
  }
  const bool log = log_scale_->isChecked();
  map_->setDataScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  map_->colorScale()->axis()->setTicker(log ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog)
                                            : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  map_->setDataRange(log ? QCPRange(log_floor, std::max(highest, 10 * log_floor)) : QCPRange(0, highest > 0 ? highest : 1));

  // A mark per row of `records` (skipped steps, events) in its step's column, above the top row.
  const auto mark = [&](QCPGraph* marks, const auto& records) {
    QVector<double> columns, heights;
    for (const auto& r : records) {
      if (grid_.steps.empty()) break;
      columns.push_back(static_cast<double>(grid_.column_of(r.step)));
      heights.push_back(rows - 0.5 + 0.35);
    }
    marks->setData(columns, heights);
  };
  mark(skip_marks_, grid_.skipped);
  mark(overflow_marks_, grid_.overflow_events);
  const bool marks = !grid_.skipped.empty() || !grid_.overflow_events.empty();

  QStringList layer_names;
  for (const auto& layer : grid_.layers) layer_names << qstr(layer);
  plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new name_ticker(layer_names)));
  QSharedPointer<QCPAxisTickerText> step_ticks(new QCPAxisTickerText);
  const int stride = std::max(1, columns / 8);
  for (int c = 0; c < columns; c += stride) step_ticks->addTick(c, QString::number(grid_.steps[static_cast<std::size_t>(c)]));
  plot_->xAxis->setTicker(step_ticks);
  // A live refresh keeps the user's zoom.
  if (!zoom_->active()) plot_->xAxis->setRange(-0.5, std::max(columns, 1) - 0.5);
  plot_->yAxis->setRange(-0.5, std::max(rows, 1) - 0.5 + (marks ? 0.7 : 0));
  const QString pooling = grid_.column_steps > 1 ? QString(" (columns of %1 steps, each its worst)").arg(grid_.column_steps) : "";
  caption_->setText(grid_.layers.empty() ? QString("no tensor statistics in this run")
                                         : QString("%1 layers x %2 columns%3; highest %4 = %5; %6 skipped steps ▼, "
                                                   "%7 overflow events ×")
                                               .arg(rows).arg(columns).arg(pooling).arg(metric_name(selected_metric()))
                                               .arg(highest, 0, 'g', 4).arg(grid_.skipped.size())
                                               .arg(grid_.overflow_events.size()));
  plot_->replot();
}

void map_view::reset_zoom() {
  plot_->xAxis->setRange(-0.5, std::max<double>(static_cast<double>(grid_.steps.size()), 1) - 0.5);
  plot_->replot();
}

double map_view::cell_value(std::size_t layer, std::size_t column) const {
  return map_->data()->cell(static_cast<int>(column), static_cast<int>(layer));
}

void map_view::activate_cell(std::size_t layer, std::size_t column) {
  if (layer >= grid_.layers.size() || column >= grid_.steps.size()) return;
  const std::size_t at = layer * grid_.steps.size() + column;
  // Open the step and role the cell shows, which a merged column picked as its worst.
  const std::int64_t step = grid_.worst_steps[at] >= 0 ? grid_.worst_steps[at] : grid_.steps[column];
  const QString role = grid_.cell_roles[at].empty() ? qstr(grid_.role) : qstr(grid_.cell_roles[at]);
  emit cell_activated(qstr(grid_.layers[layer]), role, step);
}

std::optional<std::pair<std::size_t, std::size_t>> map_view::cell_at(const QPoint& pixel) const {
  if (!plot_->axisRect()->rect().contains(pixel)) return std::nullopt;
  const long column = std::lround(plot_->xAxis->pixelToCoord(pixel.x()));
  const long layer = std::lround(plot_->yAxis->pixelToCoord(pixel.y()));
  if (column < 0 || layer < 0 || static_cast<std::size_t>(column) >= grid_.steps.size() ||
      static_cast<std::size_t>(layer) >= grid_.layers.size()) {
    return std::nullopt;
  }
  return std::pair{static_cast<std::size_t>(layer), static_cast<std::size_t>(column)};
}

void map_view::on_hover(QMouseEvent* event) { show_hover_text(*plot_, *event, hover_text(event->pos())); }

QString map_view::hover_text(const QPoint& pixel) const {
  const auto cell = cell_at(pixel);
  if (!cell) return {};
  const auto [layer, column] = *cell;
  const std::size_t at = layer * grid_.steps.size() + column;
  const double v = grid_.fractions[at];
  return QString("%1 / %2 at step %3\n%4 fraction %5\nclick: open its histogram")
      .arg(qstr(grid_.layers[layer]), qstr(grid_.cell_roles[at]))
      .arg(grid_.worst_steps[at])
      .arg(metric_name(selected_metric()))
      .arg(std::isfinite(v) ? QString::number(v, 'g', 4) : QString("(no record)"));
}

}  // namespace numlab_gui
