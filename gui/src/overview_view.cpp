// The Overview view; see overview_view.hpp.
#include "overview_view.hpp"

#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>

#include "async_query.hpp"
#include "plot_style.hpp"
#include "run_queries.hpp"

namespace numlab_gui {

overview_view::overview_view(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  loss_rect_ = plot_->axisRect();
  scale_rect_ = new QCPAxisRect(plot_);
  plot_->plotLayout()->addElement(1, 0, scale_rect_);
  auto* margins = new QCPMarginGroup(plot_);
  loss_rect_->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
  scale_rect_->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
  loss_rect_->axis(QCPAxis::atLeft)->setLabel("loss");
  loss_rect_->axis(QCPAxis::atRight)->setLabel("accuracy");
  loss_rect_->axis(QCPAxis::atRight)->setVisible(true);
  scale_rect_->axis(QCPAxis::atBottom)->setLabel("step");
  auto* scale_axis = scale_rect_->axis(QCPAxis::atLeft);
  scale_axis->setLabel("loss scale");
  scale_axis->setScaleType(QCPAxis::stLogarithmic);
  QSharedPointer<QCPAxisTickerLog> log2_ticker(new QCPAxisTickerLog);
  log2_ticker->setLogBase(2);
  scale_axis->setTicker(log2_ticker);
  // Steps line up between the two panels.
  connect(loss_rect_->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
          scale_rect_->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::setRange));
  connect(scale_rect_->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
          loss_rect_->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::setRange));
  plot_->legend->setVisible(true);
  plot_->legend->setFont(QFont(font().family(), 8));
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  for (auto* rect : {loss_rect_, scale_rect_}) rect->setRangeZoom(Qt::Horizontal);
  connect(plot_, &QCustomPlot::mouseMove, this, &overview_view::show_skip_tooltip);
}

void overview_view::set_runs(const QList<run_ref>& runs) {
  runs_ = runs;
  reload();
}

void overview_view::reload() {
  const auto generation = ++generation_;
  const QList<run_ref> runs = runs_;
  run_query<std::vector<overview_series>>(
      this,
      [runs] {
        std::vector<overview_series> loaded;
        for (const auto& run : runs) loaded.push_back(load_overview(run, max_points));
        return loaded;
      },
      [this, generation](query_result<std::vector<overview_series>> result) {
        if (generation != generation_) return;
        if (!result.value) {
          emit failed(result.error);
          return;
        }
        series_ = std::move(*result.value);
        show_series();
        emit loaded();
      });
}

QCPGraph* overview_view::loss_graph(std::size_t run_index) const {
  return run_index < loss_graphs_.size() ? loss_graphs_[run_index] : nullptr;
}

void overview_view::mark_step(std::int64_t step) {
  marked_step_ = step;
  show_series();
}

void overview_view::show_series() {
  plot_->clearGraphs();
  plot_->clearItems();
  loss_graphs_.clear();
  auto* step_axis = loss_rect_->axis(QCPAxis::atBottom);
  auto* loss_axis = loss_rect_->axis(QCPAxis::atLeft);
  auto* accuracy_axis = loss_rect_->axis(QCPAxis::atRight);
  auto* scale_step_axis = scale_rect_->axis(QCPAxis::atBottom);
  auto* scale_axis = scale_rect_->axis(QCPAxis::atLeft);
  for (std::size_t i = 0; i < series_.size(); ++i) {
    const auto& s = series_[i];
    const QColor color = run_color(i);
    QVector<double> steps, loss, scale_steps, scales;
    for (const auto& st : s.steps) {
      if (st.loss) {
        steps.push_back(static_cast<double>(st.step));
        loss.push_back(*st.loss);
      }
      if (st.loss_scale && *st.loss_scale > 0) {
        scale_steps.push_back(static_cast<double>(st.step));
        scales.push_back(*st.loss_scale);
      }
    }
    auto* loss_graph = plot_->addGraph(step_axis, loss_axis);
    loss_graph->setName(s.run.label + " loss");
    loss_graph->setPen(QPen(color, 1.2));
    loss_graph->setData(steps, loss, true);
    loss_graphs_.push_back(loss_graph);

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
      auto* eval = plot_->addGraph(step_axis, loss_axis);
      eval->setName(s.run.label + " eval loss");
      eval->setPen(QPen(color.darker(150), 1.5, Qt::DashLine));
      eval->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
      eval->setData(eval_steps, eval_loss, true);
    }
    if (!eval_accuracy.isEmpty()) {
      auto* accuracy = plot_->addGraph(step_axis, accuracy_axis);
      accuracy->setName(s.run.label + " eval accuracy");
      accuracy->setPen(QPen(color.lighter(130), 1.5, Qt::DotLine));
      accuracy->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle, 5));
      accuracy->setData(eval_accuracy_steps, eval_accuracy, true);
    }

    auto* scale_graph = plot_->addGraph(scale_step_axis, scale_axis);
    scale_graph->setName(s.run.label + " loss scale");
    scale_graph->setLineStyle(QCPGraph::lsStepLeft);
    scale_graph->setPen(QPen(color, 1.2));
    scale_graph->setData(scale_steps, scales, true);
    scale_graph->removeFromLegend();

    QVector<double> skipped_steps, skipped_scales;
    for (const auto& st : s.skipped) {
      skipped_steps.push_back(static_cast<double>(st.step));
      skipped_scales.push_back(st.loss_scale && *st.loss_scale > 0 ? *st.loss_scale : 1.0);
    }
    if (!skipped_steps.isEmpty()) {
      auto* skipped = plot_->addGraph(scale_step_axis, scale_axis);
      skipped->setName(s.run.label + " skipped steps");
      skipped->setLineStyle(QCPGraph::lsNone);
      skipped->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QPen(Qt::red, 1.5), Qt::red, 7));
      skipped->setData(skipped_steps, skipped_scales, true);
    }
  }
  if (marked_step_) {
    for (auto* rect : {loss_rect_, scale_rect_}) {
      auto* line = new QCPItemStraightLine(plot_);
      line->setClipAxisRect(rect);
      line->point1->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
      line->point2->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
      line->point1->setCoords(static_cast<double>(*marked_step_), 1);
      line->point2->setCoords(static_cast<double>(*marked_step_), 2);
      line->setPen(QPen(Qt::darkGray, 1, Qt::DashDotLine));
    }
  }
  step_axis->rescale();
  loss_axis->rescale();
  accuracy_axis->setRange(0, 1);
  scale_axis->rescale();
  scale_axis->scaleRange(1.2, scale_axis->range().center());
  plot_->replot();
}

void overview_view::show_skip_tooltip(QMouseEvent* event) {
  auto* key_axis = scale_rect_->axis(QCPAxis::atBottom);
  auto* value_axis = scale_rect_->axis(QCPAxis::atLeft);
  if (!scale_rect_->rect().contains(event->pos())) return;
  constexpr double tolerance_px = 6;
  for (const auto& s : series_) {
    const double key = key_axis->pixelToCoord(event->pos().x());
    // Skipped steps are sorted: look at the neighbours of the cursor's step.
    auto it = std::lower_bound(s.skipped.begin(), s.skipped.end(), key,
                               [](const rundb::step_record& r, double k) { return static_cast<double>(r.step) < k; });
    for (auto candidate : {it, it == s.skipped.begin() ? it : std::prev(it)}) {
      if (candidate == s.skipped.end()) continue;
      const double x = key_axis->coordToPixel(static_cast<double>(candidate->step));
      const double y = value_axis->coordToPixel(candidate->loss_scale.value_or(1.0));
      if (std::abs(x - event->pos().x()) <= tolerance_px && std::abs(y - event->pos().y()) <= tolerance_px) {
        QToolTip::showText(event->globalPosition().toPoint(),
                           QString("%1: step %2 skipped\n%3")
                               .arg(s.run.label)
                               .arg(candidate->step)
                               .arg(candidate->skip_reason.empty() ? QString("(no reason recorded)")
                                                                   : qstr(candidate->skip_reason)),
                           plot_);
        return;
      }
    }
  }
  QToolTip::hideText();
}

}  // namespace numlab_gui
