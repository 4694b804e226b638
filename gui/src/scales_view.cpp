// The scales view; see scales_view.hpp.
#include "scales_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <cmath>
#include <limits>

#include "map_view.hpp"
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
  amax_axis->setLabel("|x|");
  axis(amax_rect_, QCPAxis::atBottom)->setLabel("step");
  axis(amax_rect_, QCPAxis::atBottom)->setTicker(step_ticker());
  axis(scale_rect_, QCPAxis::atBottom)->setLabel("log2(block decode scale) at the chosen step");
  axis(scale_rect_, QCPAxis::atLeft)->setLabel("blocks");
  amax_ = plot_->addGraph(axis(amax_rect_, QCPAxis::atBottom), amax_axis);
  amax_->setName("amax");
  amax_->setPen(QPen(QColor(31, 119, 180), 1.4));
  limit_ = plot_->addGraph(axis(amax_rect_, QCPAxis::atBottom), amax_axis);
  limit_->setName("largest representable: scale × element max");
  limit_->setPen(QPen(QColor(44, 160, 44), 1.4, Qt::DashLine));
  saturated_ = plot_->addGraph(axis(amax_rect_, QCPAxis::atBottom), amax_axis);
  saturated_->setName("saturated (overflow) steps");
  saturated_->setLineStyle(QCPGraph::lsNone);
  saturated_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(214, 39, 40), QColor(214, 39, 40), 6));
  scale_bars_ = new QCPBars(axis(scale_rect_, QCPAxis::atBottom), axis(scale_rect_, QCPAxis::atLeft));
  scale_bars_->setName("block scales");
  scale_bars_->setWidth(0.9);
  scale_bars_->setPen(Qt::NoPen);
  scale_bars_->setBrush(QColor(148, 103, 189, 200));
  auto* margins = new QCPMarginGroup(plot_);
  for (auto* rect : {amax_rect_, scale_rect_}) rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
  legend_above_with_zoom_reset(*plot_);

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
  queries_->load<scales_data>(
      cause, [=](const interrupt_flag& interrupt) { return load_scales(run, layer, role, step, interrupt); },
      [this, cause](scales_data value) {
        data_ = std::move(value);
        layer_ = qstr(data_.layer);
        role_ = qstr(data_.role);
        show_history();
        load_detail(cause);
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
  QVector<double> steps, amax, limit_steps, limit, saturated_steps, saturated_amax;
  for (const auto& r : data_.history) {
    const auto step = static_cast<double>(r.step);
    if (r.amax && *r.amax > 0) {
      steps << step;
      amax << *r.amax;
    }
    if (r.scale && data_.element_max) {
      limit_steps << step;
      limit << *r.scale * *data_.element_max;
    }
    if (r.saturated > 0) {
      saturated_steps << step;
      // Marked on the amax curve; at the limit when the amax is not recorded.
      saturated_amax << (r.amax && *r.amax > 0 ? *r.amax : (limit.isEmpty() ? 1.0 : limit.back()));
    }
  }
  amax_->setData(steps, amax, true);
  limit_->setData(limit_steps, limit, true);
  saturated_->setData(saturated_steps, saturated_amax, true);
  amax_rect_->axis(QCPAxis::atBottom)->rescale();
  amax_rect_->axis(QCPAxis::atLeft)->rescale();
  // A little room above and below on the 2^k axis.
  const auto range = amax_rect_->axis(QCPAxis::atLeft)->range();
  if (range.lower > 0) amax_rect_->axis(QCPAxis::atLeft)->setRange(range.lower / 2, range.upper * 2);
  plot_->replot();
}

void scales_view::show_detail() {
  plot_->clearItems();
  QVector<double> keys, counts;
  QString text;
  if (!detail_.record) {
    text = data_.history.empty() ? QString("no scale statistics in this run (it did not use a scaled-format recipe)")
                                 : QString("no scale statistics at or before step %1").arg(detail_.requested_step);
  } else {
    const auto& r = *detail_.record;
    {
      const QSignalBlocker quiet(step_field_);
      step_field_->setValue(static_cast<int>(std::min<std::int64_t>(r.step, std::numeric_limits<int>::max())));
    }
    auto* marker = new QCPItemStraightLine(plot_);
    marker->setClipAxisRect(amax_rect_);
    marker->point1->setAxes(amax_rect_->axis(QCPAxis::atBottom), amax_rect_->axis(QCPAxis::atLeft));
    marker->point2->setAxes(amax_rect_->axis(QCPAxis::atBottom), amax_rect_->axis(QCPAxis::atLeft));
    marker->point1->setCoords(static_cast<double>(r.step), 1);
    marker->point2->setCoords(static_cast<double>(r.step), 2);
    marker->setPen(QPen(Qt::darkGray, 1, Qt::DashLine));
    const auto& h = r.scale_hist;
    for (std::size_t i = 0; i < h.bins.size(); ++i) {
      // bins[0] lies below the first binade, the last bin above the last one.
      keys << static_cast<double>(h.first_exponent) - 1 + static_cast<double>(i) + 0.5;
      counts << static_cast<double>(h.bins[i]);
    }
    const auto fraction = [&](std::uint64_t n) {
      return r.count > 0 ? QString::number(100.0 * static_cast<double>(n) / static_cast<double>(r.count), 'g', 3) + "%"
                         : QString("—");
    };
    double history_max = 0;
    for (const double a : r.amax_history) history_max = std::max(history_max, a);
    text = QString("%1 / %2 (%3) at step %4: %5 elements in %6 blocks; amax %7, scale %8; block underflow %9, "
                   "saturated %10, scale underflow %11, scale overflow %12; SNR %13 dB")
               .arg(qstr(r.layer), qstr(r.role), qstr(r.scaled_format))
               .arg(r.step).arg(r.count).arg(r.blocks)
               .arg(r.amax ? QString::number(*r.amax, 'g', 4) : QString("—"))
               .arg(r.scale ? QString::number(*r.scale, 'g', 4) : QString("per block"))
               .arg(fraction(r.block_underflow), fraction(r.saturated))
               .arg(r.scale_underflow).arg(r.scale_overflow)
               .arg(r.snr_db ? QString::number(*r.snr_db, 'f', 1) : QString("—"));
    if (!r.amax_history.empty())
      text += QString("; amax history: %1 entries, max %2").arg(r.amax_history.size()).arg(history_max, 0, 'g', 4);
    if (detail_.requested_step >= 0 && detail_.requested_step != r.step)
      text += QString("\nstep %1 has no scale statistics: showing the newest recorded step before it, %2")
                  .arg(detail_.requested_step).arg(r.step);
  }
  scale_bars_->setData(keys, counts, true);
  // Open on the populated binades (a histogram spans 80 binades, mostly empty).
  double lowest = 0, highest = 0;
  bool any = false;
  for (int i = 0; i < keys.size(); ++i) {
    if (counts[i] <= 0) continue;
    lowest = any ? std::min(lowest, keys[i]) : keys[i];
    highest = any ? std::max(highest, keys[i]) : keys[i];
    any = true;
  }
  if (any) scale_rect_->axis(QCPAxis::atBottom)->setRange(lowest - 3, highest + 3);
  else scale_rect_->axis(QCPAxis::atBottom)->rescale();
  scale_rect_->axis(QCPAxis::atLeft)->rescale();
  scale_rect_->axis(QCPAxis::atLeft)->setRangeLower(0);
  caption_->setText(text);
  plot_->replot();
}

QString scales_view::caption() const { return caption_->text(); }

}  // namespace numlab_gui
