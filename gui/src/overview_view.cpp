// The Overview view; see overview_view.hpp.
#include "overview_view.hpp"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "plot_fit.hpp"
#include "live_queries.hpp"
#include "plot_style.hpp"
#include "run_queries.hpp"
#include "smoothing.hpp"

namespace numlab_gui {
namespace {

QCPAxis* axis(QCPAxisRect* rect, QCPAxis::AxisType type) { return rect->axis(type); }

}  // namespace

overview_view::overview_view(QWidget* parent)
    : QWidget(parent),
      smoothing_(new QSlider(Qt::Horizontal, this)),
      smoothing_label_(new QLabel(this)),
      log_loss_(new QCheckBox("log loss axis", this)),
      plot_(new QCustomPlot(this)),
      queries_(new query_runner(this)) {
  smoothing_->setRange(0, 99);
  smoothing_->setValue(60);
  smoothing_->setMaximumWidth(240);
  smoothing_->setToolTip("Exponential moving average of the training loss, as in TensorBoard");
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel("Smoothing", this));
  controls->addWidget(smoothing_);
  controls->addWidget(smoothing_label_);
  controls->addWidget(log_loss_);
  controls->addStretch(1);
  controls->addWidget(new QLabel("wheel: zoom steps, drag: pan, double-click: reset", this));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(plot_, 1);

  loss_rect_ = plot_->axisRect();
  scale_rect_ = new QCPAxisRect(plot_);
  training_rect_ = new QCPAxisRect(plot_);
  plot_->plotLayout()->addElement(1, 0, scale_rect_);
  plot_->plotLayout()->addElement(2, 0, training_rect_);
  plot_->plotLayout()->setRowStretchFactors({3, 2, 2});
  legend_above(*plot_);
  plot_->legend->setFont(QFont(font().family(), 8));
  auto* margins = new QCPMarginGroup(plot_);
  for (auto* rect : {loss_rect_, scale_rect_, training_rect_}) {
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    axis(rect, QCPAxis::atBottom)->setTicker(step_ticker());
    rect->setRangeZoom(Qt::Horizontal);
    rect->setRangeDrag(Qt::Horizontal);
    axis(rect, QCPAxis::atRight)->setVisible(true);
  }
  fit_text_on_layout(*plot_);
  label_axis(*axis(loss_rect_, QCPAxis::atLeft), {"loss"});
  label_axis(*axis(loss_rect_, QCPAxis::atRight), {"accuracy", "acc."});
  axis(training_rect_, QCPAxis::atBottom)->setLabel("step");
  label_axis(*axis(training_rect_, QCPAxis::atLeft), {"gradient norm", "grad norm"});
  label_axis(*axis(training_rect_, QCPAxis::atRight), {"learning rate", "lr"});
  auto* scale_axis = axis(scale_rect_, QCPAxis::atLeft);
  label_axis(*scale_axis, {"loss scale", "scale"});
  scale_axis->setScaleType(QCPAxis::stLogarithmic);
  scale_axis->setTicker(power_of_two_ticker());
  axis(scale_rect_, QCPAxis::atRight)->setTickLabels(false);
  // Steps line up between the panels.
  for (auto* from : {loss_rect_, scale_rect_, training_rect_}) {
    for (auto* to : {loss_rect_, scale_rect_, training_rect_}) {
      if (from == to) continue;
      connect(axis(from, QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
              axis(to, QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::setRange));
    }
  }
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  // Each solid curve drawn as one polyline: stroking 4000-point curves wider
  // than a pixel segment by segment with antialiasing took about 70 ms of the
  // UI thread per replot (2.5 ms as polylines), on every live refresh.
  plot_->setPlottingHint(QCP::phFastPolylines, true);
  connect(plot_, &QCustomPlot::mouseMove, this, &overview_view::show_tooltip);
  // A drag pans; a click that did not move leaves the range to the data.
  zoom_ = new user_zoom(*plot_, [this] { show_series(); });
  connect(smoothing_, &QSlider::valueChanged, this, [this] { show_series(); });
  connect(log_loss_, &QCheckBox::toggled, this, [this] { show_series(); });
}

void overview_view::set_runs(const QList<run_ref>& runs) {
  runs_ = runs;
  zoom_->forget();
  reload();
}

void overview_view::set_smoothing(double weight) { smoothing_->setValue(static_cast<int>(std::lround(weight * 100))); }
void overview_view::set_log_loss(bool on) { log_loss_->setChecked(on); }

void overview_view::reload(reload_cause cause) {
  const QList<run_ref> runs = runs_;
  // A live refresh reads only the rows written since the shown series (at
  // most max_points steps each, so copying them here is cheap).
  std::vector<overview_series> held;
  if (cause == reload_cause::live) held = series_;
  queries_->load<std::vector<overview_series>>(
      cause,
      [runs, held = std::move(held)](const interrupt_flag& interrupt) {
        std::vector<overview_series> loaded;
        for (qsizetype i = 0; i < runs.size(); ++i) {
          const auto at = static_cast<std::size_t>(i);
          if (at < held.size() && held[at].run == runs[i]) loaded.push_back(refresh_overview(held[at], max_points, interrupt));
          else loaded.push_back(load_overview(runs[i], max_points, interrupt));
        }
        return loaded;
      },
      [this](std::vector<overview_series> value) {
        series_ = std::move(value);
        show_series();
        emit loaded();
      },
      [this](const QString& error) { emit failed(error); });
}

QCPGraph* overview_view::loss_graph(std::size_t run_index) const {
  return run_index < loss_graphs_.size() ? loss_graphs_[run_index] : nullptr;
}
QCPGraph* overview_view::smoothed_graph(std::size_t run_index) const {
  return run_index < smoothed_graphs_.size() ? smoothed_graphs_[run_index] : nullptr;
}
QCPGraph* overview_view::skipped_graph(std::size_t run_index) const {
  return run_index < skipped_graphs_.size() ? skipped_graphs_[run_index] : nullptr;
}
QCPGraph* overview_view::grad_norm_graph(std::size_t run_index) const {
  return run_index < grad_norm_graphs_.size() ? grad_norm_graphs_[run_index] : nullptr;
}
QCPGraph* overview_view::lr_graph(std::size_t run_index) const {
  return run_index < lr_graphs_.size() ? lr_graphs_[run_index] : nullptr;
}

void overview_view::mark_step(std::int64_t step) {
  marked_step_ = step;
  show_series();
}

void overview_view::show_series() {
  const QCPRange kept_steps = axis(loss_rect_, QCPAxis::atBottom)->range();
  plot_->clearGraphs();
  plot_->clearItems();
  loss_graphs_.clear();
  smoothed_graphs_.clear();
  skipped_graphs_.clear();
  grad_norm_graphs_.clear();
  lr_graphs_.clear();
  const double weight = smoothing_->value() / 100.0;
  smoothing_label_->setText(QString::number(weight, 'f', 2));
  auto* loss_axis = axis(loss_rect_, QCPAxis::atLeft);
  auto* accuracy_axis = axis(loss_rect_, QCPAxis::atRight);
  auto* scale_axis = axis(scale_rect_, QCPAxis::atLeft);
  auto* grad_axis = axis(training_rect_, QCPAxis::atLeft);
  auto* lr_axis = axis(training_rect_, QCPAxis::atRight);
  loss_axis->setScaleType(log_loss_->isChecked() ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  loss_axis->setTicker(log_loss_->isChecked() ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog)
                                              : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  auto add = [this](QCPAxisRect* rect, QCPAxis* value_axis, const QString& name, const QPen& pen) {
    auto* g = plot_->addGraph(axis(rect, QCPAxis::atBottom), value_axis);
    g->setName(name);
    g->setPen(pen);
    return g;
  };
  for (std::size_t i = 0; i < series_.size(); ++i) {
    const auto& s = series_[i];
    const QColor color = run_color(i);
    QVector<double> steps, loss, scale_steps, scales, lr_steps, lrs, grad_steps, grads;
    for (const auto& st : s.steps) {
      const auto step = static_cast<double>(st.step);
      if (st.loss) {
        steps.push_back(step);
        loss.push_back(*st.loss);
      }
      if (st.loss_scale && *st.loss_scale > 0) {
        scale_steps.push_back(step);
        scales.push_back(*st.loss_scale);
      }
      if (st.lr) {
        lr_steps.push_back(step);
        lrs.push_back(*st.lr);
      }
      if (st.grad_norm) {
        grad_steps.push_back(step);
        grads.push_back(*st.grad_norm);
      }
    }
    QColor faint = color;
    faint.setAlpha(weight > 0 ? 70 : 255);
    auto* raw = add(loss_rect_, loss_axis, s.run.label + " loss (raw)", QPen(faint, 1));
    raw->setData(steps, loss, true);
    raw->removeFromLegend();
    loss_graphs_.push_back(raw);
    const auto smoothed_values = ema_smooth(std::span<const double>(loss.constData(), static_cast<std::size_t>(loss.size())), weight);
    auto* smoothed = add(loss_rect_, loss_axis, s.run.label + " loss", QPen(color, 1.6));
    smoothed->setData(steps, QVector<double>(smoothed_values.begin(), smoothed_values.end()), true);
    smoothed_graphs_.push_back(smoothed);

    QVector<double> eval_steps, eval_loss, eval_accuracy_steps, eval_accuracy;
    for (const auto& e : s.evaluations) {
      eval_steps.push_back(static_cast<double>(e.step));
      eval_loss.push_back(e.loss);
      if (e.accuracy) {
        eval_accuracy_steps.push_back(static_cast<double>(e.step));
        eval_accuracy.push_back(*e.accuracy);
      }
    }
    if (!eval_steps.isEmpty()) {
      auto* eval = add(loss_rect_, loss_axis, s.run.label + " eval loss", QPen(color.darker(150), 1.5, Qt::DashLine));
      eval->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
      eval->setData(eval_steps, eval_loss, true);
    }
    if (!eval_accuracy.isEmpty()) {
      auto* accuracy = add(loss_rect_, accuracy_axis, s.run.label + " eval accuracy",
                           QPen(color.lighter(130), 1.5, Qt::DotLine));
      accuracy->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle, 5));
      accuracy->setData(eval_accuracy_steps, eval_accuracy, true);
    }

    auto* scale_graph = add(scale_rect_, scale_axis, s.run.label + " loss scale", QPen(color, 1.2));
    scale_graph->setLineStyle(QCPGraph::lsStepLeft);
    scale_graph->setData(scale_steps, scales, true);
    scale_graph->removeFromLegend();

    QVector<double> skipped_steps, skipped_scales;
    for (const auto& st : s.skipped) {
      skipped_steps.push_back(static_cast<double>(st.step));
      skipped_scales.push_back(st.loss_scale && *st.loss_scale > 0 ? *st.loss_scale : 1.0);
    }
    skipped_graphs_.push_back(nullptr);
    if (!skipped_steps.isEmpty()) {
      // The run's own colour, so the skips of compared runs stay apart.
      auto* skipped = add(scale_rect_, scale_axis, s.run.label + " skipped steps", QPen(color));
      skipped->setLineStyle(QCPGraph::lsNone);
      skipped->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QPen(color, 2), color, 8));
      skipped->setData(skipped_steps, skipped_scales, true);
      skipped_graphs_.back() = skipped;
    }

    auto* grad = add(training_rect_, grad_axis, s.run.label + " gradient norm", QPen(color, 1));
    grad->setData(grad_steps, grads, true);
    grad->removeFromLegend();
    grad_norm_graphs_.push_back(grad);
    // Solid, not dashed: a dashed pen over thousands of points is stroked
    // dash by dash (about 50 ms per replot); its own axis names it.
    auto* lr = add(training_rect_, lr_axis, s.run.label + " learning rate", QPen(color.lighter(140), 1));
    lr->setData(lr_steps, lrs, true);
    lr->removeFromLegend();
    lr_graphs_.push_back(lr);
  }
  if (marked_step_) {
    for (auto* rect : {loss_rect_, scale_rect_, training_rect_}) {
      auto* line = new QCPItemStraightLine(plot_);
      line->setClipAxisRect(rect);
      line->point1->setAxes(axis(rect, QCPAxis::atBottom), axis(rect, QCPAxis::atLeft));
      line->point2->setAxes(axis(rect, QCPAxis::atBottom), axis(rect, QCPAxis::atLeft));
      line->point1->setCoords(static_cast<double>(*marked_step_), 1);
      line->point2->setCoords(static_cast<double>(*marked_step_), 2);
      line->setPen(QPen(Qt::darkGray, 1, Qt::DashDotLine));
    }
  }
  auto* step_axis = axis(loss_rect_, QCPAxis::atBottom);
  if (zoom_->active()) {
    step_axis->setRange(kept_steps);
  } else {
    step_axis->rescale();
    // A margin, so markers at the first and last step are drawn whole.
    const double pad = std::max(1.0, step_axis->range().size() * 0.02);
    step_axis->setRange(step_axis->range().lower - pad, step_axis->range().upper + pad);
  }
  loss_axis->rescale();
  accuracy_axis->setRange(0, 1);
  scale_axis->rescale();
  scale_axis->scaleRange(1.5, scale_axis->range().center());
  grad_axis->rescale();
  lr_axis->rescale();
  for (auto* a : {loss_axis, grad_axis, lr_axis}) {
    if (a->scaleType() != QCPAxis::stLinear) continue;
    std::optional<QCPRange> data;
    for (auto* g : a->graphs()) {
      bool found = false;
      const QCPRange r = g->getValueRange(found);
      if (found) data = data ? QCPRange(std::min(data->lower, r.lower), std::max(data->upper, r.upper)) : r;
    }
    if (!data) continue;
    const double centre = data->center();
    // A constant series (a fixed learning rate) gets a range from 0 to twice its value.
    if (data->size() <= 1e-9 * std::abs(centre)) {
      if (centre == 0) a->setRange(-1, 1);
      else a->setRange(std::min(0.0, 2 * centre), std::max(0.0, 2 * centre));
    } else {
      a->setRange(*data);
      a->scaleRange(1.1, centre);
    }
  }
  plot_->replot();
}

void overview_view::show_tooltip(QMouseEvent* event) { show_hover_text(*plot_, *event, hover_text(event->pos())); }

QString overview_view::hover_text(const QPoint& pixel) const {
  if (scale_rect_->rect().contains(pixel)) return skip_text(pixel);
  const bool on_loss = loss_rect_->rect().contains(pixel);
  if (!on_loss && !training_rect_->rect().contains(pixel)) return {};
  // Hover values: every run's values at the step nearest the cursor.
  const double key = axis(loss_rect_, QCPAxis::atBottom)->pixelToCoord(pixel.x());
  QString text;
  for (std::size_t i = 0; i < series_.size(); ++i) {
    const QString run = QString("%1%2").arg(text.isEmpty() ? "" : "\n", series_[i].run.label);
    if (on_loss) {
      const auto at = nearest_point(smoothed_graphs_[i], key);
      const auto raw = nearest_point(loss_graphs_[i], key);
      if (!at || !raw) continue;
      text += QString("%1 — step %2: loss %3 (smoothed %4)")
                  .arg(run)
                  .arg(static_cast<qlonglong>(at->first))
                  .arg(raw->second, 0, 'g', 5)
                  .arg(at->second, 0, 'g', 5);
    } else {
      const auto norm = nearest_point(grad_norm_graphs_[i], key);
      const auto lr = nearest_point(lr_graphs_[i], key);
      if (!norm && !lr) continue;
      text += QString("%1 — step %2:").arg(run).arg(static_cast<qlonglong>(norm ? norm->first : lr->first));
      if (norm) text += QString(" gradient norm %1").arg(norm->second, 0, 'g', 5);
      if (lr) text += QString("%1 learning rate %2").arg(norm ? "," : "").arg(lr->second, 0, 'g', 5);
    }
  }
  return text;
}

QString overview_view::skip_text(const QPoint& pixel) const {
  auto* key_axis = axis(scale_rect_, QCPAxis::atBottom);
  auto* value_axis = axis(scale_rect_, QCPAxis::atLeft);
  constexpr double tolerance_px = 6;
  for (const auto& s : series_) {
    const double key = key_axis->pixelToCoord(pixel.x());
    // Skipped steps are sorted: look at the neighbours of the cursor's step.
    auto it = std::lower_bound(s.skipped.begin(), s.skipped.end(), key,
                               [](const rundb::step_record& r, double k) { return static_cast<double>(r.step) < k; });
    for (auto candidate : {it, it == s.skipped.begin() ? it : std::prev(it)}) {
      if (candidate == s.skipped.end()) continue;
      const double x = key_axis->coordToPixel(static_cast<double>(candidate->step));
      const double y = value_axis->coordToPixel(candidate->loss_scale.value_or(1.0));
      if (std::abs(x - pixel.x()) <= tolerance_px && std::abs(y - pixel.y()) <= tolerance_px) {
        return QString("%1: step %2 skipped\n%3")
            .arg(s.run.label)
            .arg(candidate->step)
            .arg(candidate->skip_reason.empty() ? QString("(no reason recorded)") : qstr(candidate->skip_reason));
      }
    }
  }
  return {};
}

}  // namespace numlab_gui
