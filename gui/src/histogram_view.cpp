// The gradient-histogram view; see histogram_view.hpp.
#include "histogram_view.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QLineEdit>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "async_query.hpp"
#include "band_label.hpp"
#include "plot_fit.hpp"
#include "plot_style.hpp"
#include "run_queries.hpp"

namespace numlab_gui {
namespace {

// Bars sit at the centre of their binade [e, e+1); the special bins one slot
// beyond the binades, so they never overlap a real binade.
double binade_key(std::int32_t first, std::size_t i) { return first + static_cast<double>(i) + 0.5; }

// A shaded band of the x axis with a label that stays whole (band_label).
void shade(QCustomPlot* plot, double from, double to, const QColor& color, const QStringList& labels) {
  if (!(to > from)) return;
  auto* rect = new QCPItemRect(plot);
  rect->setLayer("background");
  rect->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
  rect->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
  rect->topLeft->setCoords(from, 0);
  rect->bottomRight->setCoords(to, 1);
  rect->setPen(Qt::NoPen);
  rect->setBrush(color);
  auto* label = new band_label(plot, from, to, labels);
  label->setColor(Qt::darkGray);
}

}  // namespace

histogram_view::histogram_view(QWidget* parent)
    : QWidget(parent),
      layer_box_(new QComboBox(this)),
      role_box_(new QComboBox(this)),
      slider_(new QSlider(Qt::Horizontal, this)),
      step_field_(new QSpinBox(this)),
      play_(new QPushButton("Play", this)),
      log_counts_(new QCheckBox("log counts", this)),
      caption_(new QLabel(this)),
      player_(new QTimer(this)),
      plot_(new QCustomPlot(this)),
      waterfall_(new QCustomPlot(this)),
      queries_(new query_runner(this)) {
  play_->setCheckable(true);
  // A long caption wraps instead of holding the window at its own width.
  caption_->setWordWrap(true);
  // Layer search: type any part of a name.
  layer_box_->setEditable(true);
  layer_box_->setInsertPolicy(QComboBox::NoInsert);
  layer_box_->setMinimumContentsLength(12);
  layer_box_->completer()->setFilterMode(Qt::MatchContains);
  layer_box_->completer()->setCompletionMode(QCompleter::PopupCompletion);
  layer_box_->lineEdit()->setPlaceholderText("search layers");
  // The roles arrive with the run, after the box was first laid out.
  role_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel("Layer", this));
  controls->addWidget(layer_box_);
  controls->addWidget(new QLabel("role", this));
  controls->addWidget(role_box_);
  controls->addWidget(play_);
  controls->addWidget(slider_, 1);
  controls->addWidget(new QLabel("step", this));
  controls->addWidget(step_field_);
  controls->addWidget(log_counts_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(caption_);
  layout->addWidget(plot_, 3);
  layout->addWidget(waterfall_, 2);

  binades_ = new QCPBars(plot_->xAxis, plot_->yAxis);
  binades_->setName("binades");
  binades_->setBrush(QColor(31, 119, 180, 200));
  underflow_ = new QCPBars(plot_->xAxis, plot_->yAxis);
  underflow_->setName("underflowed to zero");
  underflow_->setBrush(QColor(120, 120, 120));
  overflow_ = new QCPBars(plot_->xAxis, plot_->yAxis);
  overflow_->setName("overflowed");
  overflow_->setBrush(QColor(214, 39, 40));
  for (auto* bars : {binades_, underflow_, overflow_}) {
    bars->setWidth(0.9);
    bars->setPen(Qt::NoPen);
  }
  plot_->xAxis->setLabel("log2 |x|");
  label_axis(*plot_->yAxis, {"values"});
  legend_above(*plot_);
  fit_text_on_layout(*plot_);
  fit_text_on_layout(*waterfall_);
  plot_->legend->setFont(QFont(font().family(), 8));
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  plot_->axisRect()->setRangeDrag(Qt::Horizontal);
  zoom_ = new user_zoom(*plot_, [this] { draw_selected(); });
  step_field_->setRange(0, std::numeric_limits<int>::max());
  step_field_->setKeyboardTracking(false);
  step_field_->setToolTip("Type a step: the newest recorded step at or before it is shown");
  // A typed step selects the newest recorded step at or before it, with no query.
  // The caption says when the typed step was not recorded.
  connect(step_field_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int step) {
    if (data_.steps.empty()) return;
    const std::size_t index = data_.index_of(step);
    const QSignalBlocker block(slider_);
    slider_->setValue(static_cast<int>(index));
    select(index, step);
  });
  waterfall_->xAxis->setLabel("step");
  label_axis(*waterfall_->yAxis, {"log2 |x|"});
  waterfall_map_ = new QCPColorMap(waterfall_->xAxis, waterfall_->yAxis);
  waterfall_map_->setGradient(QCPColorGradient::gpNight);
  waterfall_map_->setInterpolate(false);
  waterfall_scale_ = new QCPColorScale(waterfall_);
  waterfall_->plotLayout()->addElement(0, 1, waterfall_scale_);
  waterfall_scale_->setType(QCPAxis::atRight);
  label_axis(*waterfall_scale_->axis(), {"log10(1 + values)", "log10(1 + n)"});
  waterfall_map_->setColorScale(waterfall_scale_);
  auto* margins = new QCPMarginGroup(waterfall_);
  waterfall_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  waterfall_scale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  // Steps whose values overflowed: red squares on the overflow row, whatever
  // its colour on the map (a handful of overflows is dark on gpNight).
  waterfall_overflow_ = new QCPGraph(waterfall_->xAxis, waterfall_->yAxis);
  waterfall_overflow_->setLineStyle(QCPGraph::lsNone);
  waterfall_overflow_->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssSquare, QColor(214, 39, 40), QColor(214, 39, 40), 5));
  waterfall_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  waterfall_->axisRect()->setRangeZoom(Qt::Horizontal);
  waterfall_->axisRect()->setRangeDrag(Qt::Horizontal);
  waterfall_zoom_ = new user_zoom(*waterfall_, [this] {
    draw_waterfall();
    waterfall_->replot();
  });
  connect(plot_, &QCustomPlot::mouseMove, this,
          [this](QMouseEvent* event) { show_hover_text(*plot_, *event, hover_text(event->pos())); });
  connect(waterfall_, &QCustomPlot::mouseMove, this,
          [this](QMouseEvent* event) { show_hover_text(*waterfall_, *event, waterfall_hover_text(event->pos())); });

  player_->setInterval(150);
  connect(player_, &QTimer::timeout, this, [this] {
    slider_->setValue(slider_->value() + 1 > slider_->maximum() ? 0 : slider_->value() + 1);
  });
  connect(play_, &QPushButton::toggled, this, [this](bool on) {
    play_->setText(on ? "Pause" : "Play");
    if (on) player_->start();
    else player_->stop();
  });
  // Moving through a short run's steps needs no query: every record is loaded;
  // a long run's slider loads the one record it reaches.
  connect(slider_, &QSlider::valueChanged, this, [this](int index) {
    if (index < 0 || static_cast<std::size_t>(index) >= data_.steps.size()) return;
    const std::int64_t step = data_.steps[static_cast<std::size_t>(index)];
    const QSignalBlocker block(step_field_);
    step_field_->setValue(static_cast<int>(step));
    select(static_cast<std::size_t>(index), step);
  });
  connect(log_counts_, &QCheckBox::toggled, this, [this](bool on) {
    plot_->yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    // One labelled tick per decade, 10^k, instead of crowded 10..70.
    plot_->yAxis->setTicker(on ? power_of_ten_ticker() : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    draw_selected();
  });
  auto reselect = [this] { show_at(layer_box_->currentText(), role_box_->currentText(), requested_step_); };
  connect(layer_box_, qOverload<int>(&QComboBox::activated), this, reselect);
  connect(role_box_, qOverload<int>(&QComboBox::activated), this, reselect);
}

// The layer picker is an editable combo box: losing the focus while the
// widgets are torn down (closing the window) finishes its edit, which emits
// activated() into a view whose members are already gone.
histogram_view::~histogram_view() {
  layer_box_->blockSignals(true);
  role_box_->blockSignals(true);
}

void histogram_view::set_run(const run_ref& run) {
  // Another run keeps the layer, role and step in view (when it has them).
  if (!(run == run_)) data_.layers.clear();
  run_ = run;
  reload();
}

void histogram_view::show_at(const QString& layer, const QString& role, std::int64_t step) {
  zoom_->forget();
  data_.layer = layer.toStdString();
  data_.role = role.toStdString();
  requested_step_ = step;
  reload();
}

void histogram_view::reload(reload_cause cause) {
  if (run_.file.isEmpty()) return;
  const run_ref run = run_;
  const std::string layer = data_.layer, role = data_.role;
  const std::int64_t step = requested_step_;
  // A live refresh may bring new layers; a user's choice of layer or step does not.
  const std::vector<std::string> known_layers = cause == reload_cause::user ? data_.layers : std::vector<std::string>{};
  // A live refresh of the histograms on screen reads only the steps recorded since (see refresh_histogram).
  // (data_.layer and role change before a user's load lands: the records tell what data_ holds.)
  const bool same = cause == reload_cause::live && shown_run_ == run && data_.requested_step == step &&
                    !data_.history.empty() && data_.history.front().layer == layer && data_.history.front().role == role;
  std::optional<histogram_data> held = same ? std::optional<histogram_data>(data_) : std::nullopt;
  queries_->load<histogram_data>(
      cause,
      [=, held = std::move(held)](const interrupt_flag& interrupt) {
        return held ? refresh_histogram(*held, run, interrupt)
                    : load_histogram(run, known_layers, layer, role, step, interrupt);
      },
      [this, run](histogram_data value) {
        shown_run_ = run;
        data_ = std::move(value);
        show_data();
        emit loaded();
      },
      [this](const QString& error) { emit failed(error); });
}

void histogram_view::select(std::size_t index, std::int64_t asked) {
  data_.selected = index;
  requested_step_ = asked;
  data_.requested_step = asked;
  if (data_.selected_stats() == nullptr) load_selected_step();
  else draw_selected();
}

void histogram_view::load_selected_step() {
  const run_ref run = run_;
  const std::string layer = data_.layer, role = data_.role;
  const std::size_t index = data_.selected;
  const std::int64_t step = data_.steps[index];
  caption_->setText(QString("loading step %1 ...").arg(step));
  queries_->submit<histogram_step>(
      [=](const interrupt_flag& interrupt) { return load_histogram_step(run, layer, role, index, step, interrupt); },
      [this](histogram_step value) {
        // Dropped when the view moved on to another layer, role or step meanwhile.
        if (value.layer != data_.layer || value.role != data_.role || value.index != data_.selected) return;
        data_.history.clear();
        data_.loss_scales.clear();
        data_.scaled_bands.clear();
        data_.history_first = value.index;
        if (value.record) {
          data_.history.push_back(std::move(*value.record));
          data_.loss_scales.push_back(value.loss_scale);
          data_.scaled_bands.push_back(value.scaled_band);
        }
        draw_selected();
        emit loaded();
      },
      [this](const QString& error) { emit failed(error); });
}

std::int64_t histogram_view::shown_step() const {
  const auto* stats = data_.selected_stats();
  return stats ? stats->step : -1;
}

std::vector<double> histogram_view::bar_values() const {
  std::vector<double> values;
  auto append = [&](QCPBars* bars) {
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) values.push_back(it->value);
  };
  append(underflow_);
  append(binades_);
  append(overflow_);
  return values;
}

void histogram_view::show_data() {
  layer_box_->clear();
  for (const auto& l : data_.layers) layer_box_->addItem(qstr(l));
  layer_box_->setCurrentText(qstr(data_.layer));
  role_box_->clear();
  for (const auto& r : data_.roles) role_box_->addItem(qstr(r));
  role_box_->setCurrentText(qstr(data_.role));
  const QSignalBlocker block(slider_);
  slider_->setRange(0, std::max(0, static_cast<int>(data_.steps.size()) - 1));
  slider_->setValue(static_cast<int>(data_.selected));
  const QSignalBlocker block_field(step_field_);
  if (const auto* stats = data_.selected_stats()) {
    step_field_->setValue(static_cast<int>(data_.requested_step >= 0 ? data_.requested_step : stats->step));
  }
  draw_waterfall();
  draw_selected();
}

void histogram_view::shade_format_ranges(double left, double right) {
  if (!data_.format) return;
  const auto& f = *data_.format;
  const double subnormal_start = f.min_exponent();
  shade(plot_, left, subnormal_start, QColor(160, 160, 160, 50), {"underflow to 0", "underflow", "→ 0"});
  shade(plot_, subnormal_start, f.emin, QColor(255, 200, 0, 50), {"subnormal", "subn."});
  shade(plot_, f.emin, f.emax + 1, QColor(44, 160, 44, 35), {"normal " + qstr(f.name), "normal", "norm."});
  shade(plot_, f.emax + 1, right, QColor(214, 39, 40, 45), {"overflow", "ovf."});
}

void histogram_view::outline_scaled_band(double low, double high) {
  // An outline, not a fill: the format's own ranges stay readable beneath it.
  auto* rect = new QCPItemRect(plot_);
  rect->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
  rect->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
  rect->topLeft->setCoords(low, 0);
  rect->bottomRight->setCoords(high, 1);
  rect->setPen(QPen(QColor(148, 103, 189), 2, Qt::DashLine));
  rect->setBrush(Qt::NoBrush);
  // The second row of labels: the band overlaps the format's own bands.
  const QString format = qstr(data_.scaled_format);
  auto* label = new band_label(plot_, low, high, {format + " at this step's scale", format + " scaled", format}, 1);
  label->setColor(QColor(148, 103, 189));
}

void histogram_view::draw_selected() {
  plot_->clearItems();
  for (int i = plot_->graphCount() - 1; i >= 0; --i) plot_->removeGraph(i);
  QVector<double> keys, counts;
  const auto* stats = data_.selected_stats();
  if (stats == nullptr || stats->hist.bins.size() < 2) {
    for (auto* bars : {binades_, underflow_, overflow_}) bars->data()->clear();
    caption_->setText(stats == nullptr ? (data_.steps.empty() ? QString("no tensor statistics for this layer and role")
                                                              : QString("loading step %1 ...").arg(data_.steps[data_.selected]))
                                       : QString("step %1: no histogram recorded").arg(stats->step));
    plot_->replot();
    return;
  }
  const auto& h = stats->hist;
  for (std::size_t i = 0; i < h.binade_count(); ++i) {
    keys.push_back(binade_key(h.first_exponent, i));
    counts.push_back(static_cast<double>(h.bins[i + 1]));
  }
  binades_->setData(keys, counts, true);
  const double underflow_key = h.first_exponent - 1.5;
  const double overflow_key = binade_key(h.first_exponent, h.binade_count()) + 1;
  underflow_->setData({underflow_key}, {static_cast<double>(h.bins.front())}, true);
  overflow_->setData({overflow_key}, {static_cast<double>(h.bins.back())}, true);
  double left = underflow_key - 1.5;
  const double right = overflow_key + 1.5;
  auto [view_left, view_right] = populated_range(h, 2);

  // 0 stands for "no loss scale recorded" (a scale is always positive).
  const std::size_t at = *data_.selected_record();
  const double scale = at < data_.loss_scales.size() ? data_.loss_scales[at].value_or(0.0) : 0.0;
  QString scale_text = "no loss scale recorded";
  // Scaled gradients sit log2(scale) binades above the true ones: show where they came from.
  if (scale > 0) {
    const double shift = std::log2(scale);
    scale_text = QString("loss scale 2^%1").arg(shift, 0, 'g', 4);
    if (data_.role.rfind("grad", 0) == 0 && shift != 0) {
      auto* unscaled = plot_->addGraph();
      unscaled->setName(QString("unscaled (÷ 2^%1)").arg(shift, 0, 'g', 4));
      unscaled->setLineStyle(QCPGraph::lsStepCenter);
      unscaled->setPen(QPen(QColor(148, 103, 189), 1.5, Qt::DashLine));
      QVector<double> shifted = keys;
      for (double& k : shifted) k -= shift;
      unscaled->setData(shifted, counts, true);
      if (!shifted.isEmpty()) left = std::min(left, shifted.front() - 1);
      view_left = std::min(view_left, view_left - shift);
      view_right = std::max(view_right, view_right - shift);
    }
  }
  shade_format_ranges(left, right);
  const auto* band = at < data_.scaled_bands.size() && data_.scaled_bands[at] ? &*data_.scaled_bands[at] : nullptr;
  if (band != nullptr) outline_scaled_band(band->low, band->high);
  QString note;
  const std::int64_t asked = data_.requested_step;
  if (asked >= 0 && asked > data_.steps.back()) {
    note = QString("\nstep %1 was asked for, past the last recorded step %2: showing %2").arg(asked).arg(data_.steps.back());
  } else if (asked >= 0 && asked != stats->step) {
    note = QString("\nstep %1 has no statistics (not traced): showing the newest recorded step before it, %2")
               .arg(asked).arg(stats->step);
  }
  caption_->setText(QString("%1 / %2 (%3) at step %4: %5 values, %6 zeros, %7 subnormal, %8 underflowed, "
                            "%9 overflowed (%10 inf, %11 NaN); %12%13")
                        .arg(qstr(stats->layer), qstr(stats->role), qstr(stats->format))
                        .arg(stats->step).arg(stats->count).arg(stats->zeros).arg(stats->subnormals)
                        .arg(stats->underflows).arg(stats->overflows).arg(stats->infs).arg(stats->nans)
                        .arg(scale_text, note));
  if (!zoom_->active()) plot_->xAxis->setRange(std::max(left, view_left), std::min(right, view_right));
  plot_->yAxis->rescale(true);
  if (log_counts_->isChecked()) plot_->yAxis->setRangeLower(0.5);
  else plot_->yAxis->setRangeLower(0);
  plot_->yAxis->setRangeUpper(std::max(1.0, plot_->yAxis->range().upper * 1.1));
  plot_->replot();

  waterfall_->clearItems();
  auto* marker = new QCPItemStraightLine(waterfall_);
  const double column = static_cast<double>(data_.waterfall_column(data_.selected));
  marker->point1->setCoords(column, 0);
  marker->point2->setCoords(column, 1);
  marker->setPen(QPen(Qt::white, 1.5, Qt::DashLine));
  waterfall_->replot();
}

std::pair<double, double> histogram_view::populated_range(const rundb::histogram& h, double margin) {
  const std::size_t n = h.binade_count();
  std::optional<std::size_t> first, last;
  for (std::size_t i = 0; i < n; ++i) {
    if (h.bins[i + 1] == 0) continue;
    if (!first) first = i;
    last = i;
  }
  // The special bins sit one slot beyond the binades (see binade_key).
  double lo = first ? binade_key(h.first_exponent, *first) - 0.5 : h.first_exponent;
  double hi = last ? binade_key(h.first_exponent, *last) + 0.5 : h.first_exponent + static_cast<double>(n);
  if (h.bins.front() > 0 || !first) lo = std::min(lo, h.first_exponent - 2.0);
  if (h.bins.back() > 0 || !last) hi = std::max(hi, binade_key(h.first_exponent, n) + 1.5);
  // Never narrower than a dozen binades: the format bands need room to read.
  const double widen = std::max(0.0, (12 - (hi - lo)) / 2);
  return {lo - margin - widen, hi + margin + widen};
}

QString histogram_view::caption() const { return caption_->text(); }



void histogram_view::draw_waterfall() {
  const int columns = static_cast<int>(data_.waterfall_columns);
  const int rows = static_cast<int>(data_.waterfall_rows);
  const bool empty = columns == 0 || rows == 0;
  waterfall_map_->setVisible(!empty);
  waterfall_scale_->setVisible(!empty);
  waterfall_overflow_->data()->clear();
  if (empty) {
    waterfall_->replot();
    return;
  }
  const double first_exponent = data_.waterfall_first_exponent;
  auto* cells = waterfall_map_->data();
  cells->setSize(columns, rows);
  cells->setRange(QCPRange(0, std::max(columns - 1, 1)),
                  QCPRange(first_exponent - 0.5, first_exponent - 0.5 + std::max(rows - 1, 1)));
  QVector<double> overflow_columns, overflow_rows;
  for (int c = 0; c < columns; ++c) {
    for (int r = 0; r < rows; ++r) cells->setCell(c, r, data_.waterfall[static_cast<std::size_t>(c * rows + r)]);
    if (data_.waterfall[static_cast<std::size_t>(c * rows + rows - 1)] > 0) {
      overflow_columns.push_back(c);
      overflow_rows.push_back(first_exponent - 0.5 + (rows - 1));
    }
  }
  waterfall_overflow_->setData(overflow_columns, overflow_rows, true);
  waterfall_map_->rescaleDataRange(true);
  QSharedPointer<QCPAxisTickerText> step_ticks(new QCPAxisTickerText);
  const int stride = std::max(1, columns / 8);
  for (int c = 0; c < columns; c += stride) step_ticks->addTick(c, QString::number(data_.waterfall_starts[static_cast<std::size_t>(c)]));
  waterfall_->xAxis->setTicker(step_ticks);
  const QCPRange kept = waterfall_->xAxis->range();
  waterfall_map_->rescaleAxes();
  if (waterfall_zoom_->active()) waterfall_->xAxis->setRange(kept);
}

QString histogram_view::hover_text(const QPoint& pixel) const {
  const auto* stats = data_.selected_stats();
  if (!plot_->axisRect()->rect().contains(pixel) || stats == nullptr || stats->hist.bins.size() < 2) return {};
  const auto& h = stats->hist;
  const double x = plot_->xAxis->pixelToCoord(pixel.x());
  const auto binades = static_cast<std::int64_t>(h.binade_count());
  // The keys drawn (binade_key): binade i at first + i + 0.5, the special bins one slot beyond.
  const auto slot = static_cast<std::int64_t>(std::floor(x)) - h.first_exponent;
  const auto of = [&](std::uint64_t n) {
    return QString("%1 values (%2% of %3)")
        .arg(n)
        .arg(stats->count == 0 ? 0.0 : 100.0 * static_cast<double>(n) / static_cast<double>(stats->count), 0, 'g', 3)
        .arg(stats->count);
  };
  if (slot == -2) return QString("underflowed to zero: %1").arg(of(h.bins.front()));
  if (slot == binades + 1) return QString("overflowed: %1").arg(of(h.bins.back()));
  if (slot < 0 || slot >= binades) return {};
  const auto e = h.first_exponent + slot;
  return QString("2^%1 <= |x| < 2^%2: %3").arg(e).arg(e + 1).arg(of(h.bins[static_cast<std::size_t>(slot) + 1]));
}

QString histogram_view::waterfall_hover_text(const QPoint& pixel) const {
  const auto columns = static_cast<long>(data_.waterfall_columns), rows = static_cast<long>(data_.waterfall_rows);
  if (!waterfall_->axisRect()->rect().contains(pixel) || columns == 0 || rows == 0) return {};
  const long c = std::lround(waterfall_->xAxis->pixelToCoord(pixel.x()));
  const long r = std::lround(waterfall_->yAxis->pixelToCoord(pixel.y()) - (data_.waterfall_first_exponent - 0.5));
  if (c < 0 || c >= columns || r < 0 || r >= rows) return {};
  const auto column = static_cast<std::size_t>(c);
  // The recorded steps the column holds: from its start to the next column's.
  const std::int64_t start = data_.waterfall_starts[column];
  const auto end = column + 1 < data_.waterfall_starts.size()
                       ? std::lower_bound(data_.steps.begin(), data_.steps.end(), data_.waterfall_starts[column + 1])
                       : data_.steps.end();
  const std::int64_t last = end == data_.steps.begin() ? start : std::max(start, *std::prev(end));
  const QString steps = last == start ? QString("step %1").arg(start) : QString("steps %1..%2").arg(start).arg(last);
  const long e = data_.waterfall_first_exponent + r - 1;
  const QString bin = r == 0 ? QString("underflowed to zero")
                      : r == rows - 1 ? QString("overflowed")
                                      : QString("2^%1 <= |x| < 2^%2").arg(e).arg(e + 1);
  const double cell = data_.waterfall[column * data_.waterfall_rows + static_cast<std::size_t>(r)];
  return QString("%1, %2: about %3 values (log10(1 + n) = %4)")
      .arg(steps, bin)
      .arg(std::pow(10.0, cell) - 1, 0, 'g', 4)
      .arg(cell, 0, 'g', 3);
}

}  // namespace numlab_gui
