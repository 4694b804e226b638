// The scales view; see scales_view.hpp.
#include "scales_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <limits>

#include "live_queries.hpp"
#include "map_view.hpp"
#include "plot_fit.hpp"
#include "plot_style.hpp"
#include "run_queries.hpp"

namespace numlab_gui {
namespace {

QCPAxis* axis(QCPAxisRect* rect, QCPAxis::AxisType type) { return rect->axis(type); }

}  // namespace

scales_view::scales_view(QWidget* parent)
    : QWidget(parent),
      layer_box_(new QComboBox(this)),
      role_box_(new QComboBox(this)),
      step_field_(new QSpinBox(this)),
      caption_(new QLabel(this)),
      plot_(new QCustomPlot(this)),
      map_(new map_view(this)),
      queries_(new query_runner(this)),
      detail_queries_(new query_runner(this)) {
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel("Layer", this));
  controls->addWidget(layer_box_);
  controls->addWidget(new QLabel("role", this));
  controls->addWidget(role_box_);
  controls->addWidget(new QLabel("step", this));
  controls->addWidget(step_field_);
  controls->addStretch(1);
  for (auto* box : {layer_box_, role_box_}) box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  step_field_->setRange(0, std::numeric_limits<int>::max());
  step_field_->setKeyboardTracking(false);
  step_field_->setToolTip("The newest recorded step at or before it is shown");
  caption_->setWordWrap(true);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(plot_);
  split->addWidget(map_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(caption_);
  layout->addWidget(split, 1);

  amax_rect_ = plot_->axisRect();
  scale_rect_ = new QCPAxisRect(plot_);
  plot_->plotLayout()->addElement(1, 0, scale_rect_);
  auto* amax_axis = axis(amax_rect_, QCPAxis::atLeft);
  amax_axis->setScaleType(QCPAxis::stLogarithmic);
  amax_axis->setTicker(power_of_two_ticker());
  fit_text_on_layout(*plot_);
  label_axis(*amax_axis, {"|x|"});
  axis(amax_rect_, QCPAxis::atBottom)->setLabel("step");
  axis(amax_rect_, QCPAxis::atBottom)->setTicker(step_ticker());
  axis(scale_rect_, QCPAxis::atBottom)->setLabel("log2(block decode scale) at the chosen step");
  label_axis(*axis(scale_rect_, QCPAxis::atLeft), {"blocks"});
  saturated_ = plot_->addGraph(axis(amax_rect_, QCPAxis::atBottom), amax_axis);
  saturated_->setName("saturated (overflow) steps");
  saturated_->setLineStyle(QCPGraph::lsNone);
  saturated_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(214, 39, 40), QColor(214, 39, 40), 6));
  bar_group_ = new QCPBarsGroup(plot_);
  auto* margins = new QCPMarginGroup(plot_);
  for (auto* rect : {amax_rect_, scale_rect_}) rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
  legend_above_with_zoom_reset(*plot_);
  zoom_ = new user_zoom(*plot_, nullptr);  // the double-click's rescale is legend_above_with_zoom_reset's
  connect(plot_, &QCustomPlot::mouseMove, this,
          [this](QMouseEvent* event) { show_hover_text(*plot_, *event, hover_text(event->pos())); });
  // Each solid curve as one polyline (see the Overview).
  plot_->setPlottingHint(QCP::phFastPolylines, true);

  map_->set_metric(map_metric::block_underflow);
  connect(map_, &map_view::failed, this, &scales_view::failed);
  connect(map_, &map_view::cell_activated, this,
          [this](const QString& layer, const QString& role, std::int64_t step) { show_at(layer, role, step); });
  connect(layer_box_, qOverload<int>(&QComboBox::activated), this,
          [this] { show_at(layer_box_->currentText(), role_, step_); });
  connect(role_box_, qOverload<int>(&QComboBox::activated), this,
          [this] { show_at(layer_, role_box_->currentText(), step_); });
  connect(step_field_, &QSpinBox::valueChanged, this, [this](int step) {
    if (step == step_) return;
    step_ = step;
    load_detail(reload_cause::user);
  });
}

void scales_view::set_run(const run_ref& run) {
  run_ = run;
  zoom_->forget();
  layer_.clear();
  role_.clear();
  step_ = -1;
  map_->set_run(run);
  reload();
}

void scales_view::show_at(const QString& layer, const QString& role, std::int64_t step) {
  const bool same_tensor = (layer.isEmpty() || layer == layer_) && (role.isEmpty() || role == role_);
  if (!layer.isEmpty()) layer_ = layer;
  if (!role.isEmpty()) role_ = role;
  step_ = step;
  if (same_tensor && history_shown_) load_detail(reload_cause::user);
  else reload();
}

void scales_view::reload(reload_cause cause) {
  if (run_.file.isEmpty()) return;
  if (cause == reload_cause::live) map_->reload(cause);
  const run_ref run = run_;
  const std::string layer = layer_.toStdString(), role = role_.toStdString();
  const std::int64_t step = step_;
  // A live refresh of the tensor on screen reads only its steps recorded since (see refresh_scales).
  std::optional<scales_data> held;
  if (cause == reload_cause::live && shown_run_ == run && data_.layer == layer && data_.role == role) held = data_;
  queries_->load<scales_data>(
      cause,
      [=, held = std::move(held)](const interrupt_flag& interrupt) {
        return held ? refresh_scales(*held, run, interrupt) : load_scales(run, layer, role, step, interrupt);
      },
      [this, cause, run](scales_data value) {
        const std::int64_t newest_before = shown_run_ == run && !data_.history.empty() ? data_.history.back().step : -1;
        shown_run_ = run;
        data_ = std::move(value);
        layer_ = qstr(data_.layer);
        role_ = qstr(data_.role);
        show_history();
        // The detail at a fixed step never changes; at the newest, only when a newer step came.
        const bool detail_current = cause == reload_cause::live && !detail_.records.empty() &&
                                    (step_ >= 0 ? detail_.requested_step == step_
                                                : !data_.history.empty() && data_.history.back().step == newest_before);
        if (detail_current) emit loaded();
        else load_detail(cause);
      },
      [this](const QString& error) { emit failed(error); });
}

void scales_view::load_detail(reload_cause cause) {
  if (data_.history.empty()) {
    detail_ = {};
    show_detail();
    emit loaded();
    return;
  }
  const run_ref run = run_;
  const std::string layer = data_.layer, role = data_.role;
  const std::int64_t step = step_;
  detail_queries_->load<scale_detail>(
      cause, [=](const interrupt_flag& interrupt) { return load_scale_detail(run, layer, role, step, interrupt); },
      [this](scale_detail value) {
        detail_ = std::move(value);
        show_detail();
        emit loaded();
      },
      [this](const QString& error) { emit failed(error); });
}

void scales_view::show_history() {
  history_shown_ = true;
  {
    const QSignalBlocker quiet_layers(layer_box_), quiet_roles(role_box_);
    layer_box_->clear();
    for (const auto& l : data_.layers) layer_box_->addItem(qstr(l));
    layer_box_->setCurrentText(layer_);
    role_box_->clear();
    for (const auto& r : data_.roles) role_box_->addItem(qstr(r));
    role_box_->setCurrentText(role_);
  }
  for (auto* graph : amax_) plot_->removeGraph(graph);
  for (auto* graph : limit_) plot_->removeGraph(graph);
  amax_.clear();
  limit_.clear();
  auto* steps_axis = axis(amax_rect_, QCPAxis::atBottom);
  auto* values_axis = axis(amax_rect_, QCPAxis::atLeft);
  const bool several = data_.ops.size() > 1;
  for (std::size_t i = 0; i < data_.ops.size(); ++i) {
    const QString op = several ? QString(" (%1)").arg(qstr(data_.ops[i])) : QString();
    auto* amax = plot_->addGraph(steps_axis, values_axis);
    amax->setName("amax" + op);
    amax->setPen(QPen(layer_color(i), 1));
    auto* limit = plot_->addGraph(steps_axis, values_axis);
    // NVFP4: 6 (E2M1) × 448 (the largest UE4M3 block scale) = 2688.
    limit->setName("largest representable" + op + ": scale × " +
                   QString::number(data_.largest_per_tensor_scale.value_or(0), 'g', 6));
    // Solid and lighter, not dashed: a dashed pen is stroked dash by dash.
    // On a 4000-step run the dashed limits cost 108 ms of the UI thread per
    // replot; every curve as a solid polyline, 3 ms (bench/gui_replot_bench).
    limit->setPen(QPen(layer_color(i).lighter(150), 1));
    amax_.push_back(amax);
    limit_.push_back(limit);
  }
  // One series per GEMM role: the records of a step alternate between them.
  std::vector<QVector<double>> steps(data_.ops.size()), amax(data_.ops.size()), limit_steps(data_.ops.size()),
      limit(data_.ops.size());
  QVector<double> saturated_steps, saturated_amax;
  for (const auto& r : data_.history) {
    const auto i = static_cast<std::size_t>(std::find(data_.ops.begin(), data_.ops.end(), r.op) - data_.ops.begin());
    const auto step = static_cast<double>(r.step);
    if (r.amax && *r.amax > 0) {
      steps[i] << step;
      amax[i] << *r.amax;
    }
    if (r.scale && data_.largest_per_tensor_scale) {
      limit_steps[i] << step;
      limit[i] << *r.scale * *data_.largest_per_tensor_scale;
    }
    if (r.saturated > 0) {
      saturated_steps << step;
      // Marked on the amax curve; at the limit when the amax is not recorded.
      saturated_amax << (r.amax && *r.amax > 0 ? *r.amax : (limit[i].isEmpty() ? 1.0 : limit[i].back()));
    }
  }
  for (std::size_t i = 0; i < data_.ops.size(); ++i) {
    amax_[i]->setData(steps[i], amax[i], true);
    limit_[i]->setData(limit_steps[i], limit[i], true);
    // Without a per-tensor scale (MX) there is no limit to draw or list.
    if (limit[i].isEmpty()) limit_[i]->removeFromLegend();
  }
  saturated_->setData(saturated_steps, saturated_amax);
  // A live refresh keeps what the user zoomed to or panned.
  if (!zoom_->active()) {
    steps_axis->rescale();
    values_axis->rescale();
    // A little room above and below on the 2^k axis.
    const auto range = values_axis->range();
    if (range.lower > 0) values_axis->setRange(range.lower / 2, range.upper * 2);
  }
  plot_->replot();
}

void scales_view::show_detail() {
  plot_->clearItems();
  for (auto* bars : scale_bars_) plot_->removePlottable(bars);
  scale_bars_.clear();
  bar_group_->clear();
  QString text;
  double lowest = 0, highest = 0;
  bool any = false;
  if (detail_.records.empty()) {
    text = data_.history.empty() ? QString("no scale statistics in this run (it did not use a scaled-format recipe)")
                                 : QString("no scale statistics at or before step %1").arg(detail_.requested_step);
  }
  const bool several = detail_.records.size() > 1;
  for (std::size_t k = 0; k < detail_.records.size(); ++k) {
    const auto& r = detail_.records[k];
    const auto op = static_cast<std::size_t>(std::find(data_.ops.begin(), data_.ops.end(), r.op) - data_.ops.begin());
    auto* bars = new QCPBars(axis(scale_rect_, QCPAxis::atBottom), axis(scale_rect_, QCPAxis::atLeft));
    bars->setName("block scales" + (several ? QString(" (%1)").arg(qstr(r.op)) : QString()));
    bars->setWidth(0.9 / static_cast<double>(detail_.records.size()));
    bars->setPen(Qt::NoPen);
    QColor colour = layer_color(op);
    colour.setAlpha(200);
    bars->setBrush(colour);
    bars->setBarsGroup(bar_group_);
    QVector<double> keys, counts;
    const auto& h = r.scale_hist;
    for (std::size_t i = 0; i < h.bins.size(); ++i) {
      // bins[0] lies below the first binade, the last bin above the last one.
      const double key = static_cast<double>(h.first_exponent) - 1 + static_cast<double>(i) + 0.5;
      keys << key;
      counts << static_cast<double>(h.bins[i]);
      if (h.bins[i] == 0) continue;
      lowest = any ? std::min(lowest, key) : key;
      highest = any ? std::max(highest, key) : key;
      any = true;
    }
    bars->setData(keys, counts, true);
    scale_bars_.push_back(bars);

    const auto fraction = [&](std::uint64_t n) {
      return r.count > 0 ? QString::number(100.0 * static_cast<double>(n) / static_cast<double>(r.count), 'g', 3) + "%"
                         : QString("—");
    };
    double history_max = 0;
    for (const double a : r.amax_history) history_max = std::max(history_max, a);
    if (k == 0) text = QString("%1 / %2 (%3) at step %4").arg(qstr(r.layer), qstr(r.role), qstr(r.scaled_format)).arg(r.step);
    text += QString("\n%1: %2 elements in %3 blocks; amax %4, scale %5; block underflow %6, saturated %7, "
                    "scale underflow %8, scale overflow %9; SNR %10 dB")
                .arg(qstr(r.op)).arg(r.count).arg(r.blocks)
                .arg(r.amax ? QString::number(*r.amax, 'g', 4) : QString("—"))
                .arg(r.scale ? QString::number(*r.scale, 'g', 4) : QString("per block"))
                .arg(fraction(r.block_underflow), fraction(r.saturated))
                .arg(r.scale_underflow).arg(r.scale_overflow)
                .arg(r.snr_db ? QString::number(*r.snr_db, 'f', 1) : QString("—"));
    if (!r.amax_history.empty())
      text += QString("; amax history: %1 entries, max %2").arg(r.amax_history.size()).arg(history_max, 0, 'g', 4);
    if (k < detail_.zero_blocks.size() && detail_.zero_blocks[k] > 0) {
      const auto range = scaled_range(r.scaled_format);
      text += QString("; %1 all-zero blocks (%2), not drawn")
                  .arg(detail_.zero_blocks[k])
                  .arg(range && range->floor_scale_binade ? QString("scale 2^%1, E8M0's smallest").arg(*range->floor_scale_binade)
                                                          : QString("scale 0"));
    }
  }
  if (!detail_.records.empty()) {
    const auto step = detail_.records.front().step;
    {
      const QSignalBlocker quiet(step_field_);
      step_field_->setValue(static_cast<int>(std::min<std::int64_t>(step, std::numeric_limits<int>::max())));
    }
    auto* marker = new QCPItemStraightLine(plot_);
    marker->setClipAxisRect(amax_rect_);
    marker->point1->setAxes(amax_rect_->axis(QCPAxis::atBottom), amax_rect_->axis(QCPAxis::atLeft));
    marker->point2->setAxes(amax_rect_->axis(QCPAxis::atBottom), amax_rect_->axis(QCPAxis::atLeft));
    marker->point1->setCoords(static_cast<double>(step), 1);
    marker->point2->setCoords(static_cast<double>(step), 2);
    marker->setPen(QPen(Qt::darkGray, 1, Qt::DashLine));
    if (detail_.requested_step >= 0 && detail_.requested_step != step)
      text += QString("\nstep %1 has no scale statistics: showing the newest recorded step before it, %2")
                  .arg(detail_.requested_step).arg(step);
  }
  // Open on the populated binades (a histogram spans 80 binades, mostly empty).
  if (any) scale_rect_->axis(QCPAxis::atBottom)->setRange(lowest - 3, highest + 3);
  else scale_rect_->axis(QCPAxis::atBottom)->rescale();
  scale_rect_->axis(QCPAxis::atLeft)->rescale();
  scale_rect_->axis(QCPAxis::atLeft)->setRangeLower(0);
  caption_->setText(text);
  plot_->replot();
}

QString scales_view::caption() const { return caption_->text(); }

QString scales_view::hover_text(const QPoint& pixel) const {
  return curve_values_at(*amax_rect_, pixel, step_key_text);
}

}  // namespace numlab_gui
