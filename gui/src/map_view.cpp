// The overflow / underflow map; see map_view.hpp.
#include "map_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <cmath>

#include "async_query.hpp"
#include "plot_style.hpp"
#include "run_queries.hpp"

namespace numlab_gui {
namespace {

constexpr map_metric all_metrics[] = {map_metric::overflow, map_metric::underflow, map_metric::subnormal,
                                      map_metric::nan, map_metric::swamped, map_metric::partially_swamped};

}  // namespace

map_view::map_view(QWidget* parent)
    : QWidget(parent),
      metric_box_(new QComboBox(this)),
      role_box_(new QComboBox(this)),
      caption_(new QLabel(this)),
      plot_(new QCustomPlot(this)) {
  for (auto metric : all_metrics) metric_box_->addItem(metric_name(metric), static_cast<int>(metric));
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel("Colour by", this));
  controls->addWidget(metric_box_);
  controls->addWidget(new QLabel("of role", this));
  controls->addWidget(role_box_);
  controls->addWidget(caption_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(plot_, 1);

  map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  auto* scale = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(0, 1, scale);
  scale->setType(QCPAxis::atRight);
  scale->axis()->setLabel("fraction of values");
  map_->setColorScale(scale);
  QCPColorGradient gradient(QCPColorGradient::gpThermal);
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  map_->setGradient(gradient);
  map_->setInterpolate(false);
  plot_->xAxis->setLabel("step");
  plot_->yAxis->setLabel("layer");
  auto* margins = new QCPMarginGroup(plot_);
  plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);

  connect(metric_box_, qOverload<int>(&QComboBox::activated), this, [this] { reload(); });
  connect(role_box_, qOverload<int>(&QComboBox::activated), this, [this] {
    role_ = role_box_->currentText();
    reload();
  });
  connect(plot_, &QCustomPlot::mousePress, this, &map_view::on_click);
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

map_metric map_view::metric() const { return static_cast<map_metric>(metric_box_->currentData().toInt()); }

void map_view::reload() {
  if (run_.file.isEmpty()) return;
  const run_ref run = run_;
  const std::string role = role_.toStdString();
  const map_metric metric = this->metric();
  run_latest_query<map_grid>(
      this, generation_, [run, role, metric] { return load_map(run, role, metric, max_columns); },
      [this](map_grid value) {
        grid_ = std::move(value);
        show_grid();
        emit loaded();
      },
      [this](const QString& error) { emit failed(error); });
}

void map_view::show_grid() {
  role_box_->clear();
  for (const auto& r : grid_.roles) role_box_->addItem(qstr(r));
  // load_map falls back to a default role when the wanted one is absent.
  QString shown = role_;
  if (role_box_->findText(shown) < 0) shown = role_box_->findText("grad_weight") >= 0 ? "grad_weight" : role_box_->itemText(0);
  role_box_->setCurrentText(shown);
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
      data->setCell(c, l, v);
      if (std::isfinite(v)) highest = std::max(highest, v);
    }
  }
  map_->setDataRange(QCPRange(0, highest > 0 ? highest : 1));

  QSharedPointer<QCPAxisTickerText> layer_ticks(new QCPAxisTickerText);
  for (int l = 0; l < rows; ++l) layer_ticks->addTick(l, qstr(grid_.layers[static_cast<std::size_t>(l)]));
  plot_->yAxis->setTicker(layer_ticks);
  QSharedPointer<QCPAxisTickerText> step_ticks(new QCPAxisTickerText);
  const int stride = std::max(1, columns / 8);
  for (int c = 0; c < columns; c += stride) step_ticks->addTick(c, QString::number(grid_.steps[static_cast<std::size_t>(c)]));
  plot_->xAxis->setTicker(step_ticks);
  plot_->xAxis->setRange(-0.5, std::max(columns, 1) - 0.5);
  plot_->yAxis->setRange(-0.5, std::max(rows, 1) - 0.5);
  caption_->setText(grid_.layers.empty() ? QString("no tensor statistics in this run")
                                         : QString("%1 layers x %2 recorded steps; highest %3 = %4")
                                               .arg(rows).arg(columns).arg(metric_name(metric())).arg(highest, 0, 'g', 4));
  plot_->replot();
}

double map_view::cell_value(std::size_t layer, std::size_t column) const {
  return map_->data()->cell(static_cast<int>(column), static_cast<int>(layer));
}

void map_view::activate_cell(std::size_t layer, std::size_t column) {
  if (layer >= grid_.layers.size() || column >= grid_.steps.size()) return;
  emit cell_activated(qstr(grid_.layers[layer]), role_, grid_.steps[column]);
}

void map_view::on_click(QMouseEvent* event) {
  if (!plot_->axisRect()->rect().contains(event->pos())) return;
  const double key = plot_->xAxis->pixelToCoord(event->pos().x());
  const double value = plot_->yAxis->pixelToCoord(event->pos().y());
  const long column = std::lround(key);
  const long layer = std::lround(value);
  if (column < 0 || layer < 0) return;
  activate_cell(static_cast<std::size_t>(layer), static_cast<std::size_t>(column));
}

}  // namespace numlab_gui
