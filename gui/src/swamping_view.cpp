// The swamping view; see swamping_view.hpp.
#include "swamping_view.hpp"

#include <QLabel>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <cmath>
#include <optional>

#include "async_query.hpp"
#include "live_queries.hpp"
#include "plot_fit.hpp"
#include "plot_style.hpp"
#include "run_queries.hpp"

namespace numlab_gui {

swamping_view::swamping_view(QWidget* parent)
    : QWidget(parent), caption_(new QLabel(this)), plot_(new QCustomPlot(this)), queries_(new query_runner(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(caption_);
  layout->addWidget(plot_, 1);
  total_rect_ = plot_->axisRect();
  partial_rect_ = new QCPAxisRect(plot_);
  plot_->plotLayout()->addElement(1, 0, partial_rect_);
  ratio_rect_ = new QCPAxisRect(plot_);
  plot_->plotLayout()->addElement(2, 0, ratio_rect_);
  auto* margins = new QCPMarginGroup(plot_);
  for (auto* rect : {total_rect_, partial_rect_, ratio_rect_}) rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
  fit_text_on_layout(*plot_);
  label_axis(*ratio_rect_->axis(QCPAxis::atLeft), {"fraction of elements", "fraction"});
  ratio_rect_->axis(QCPAxis::atBottom)->setLabel("log2(|δ| / ulp(w)), newest step");
  label_axis(*total_rect_->axis(QCPAxis::atLeft), {"swamped fraction", "swamped"});
  label_axis(*partial_rect_->axis(QCPAxis::atLeft), {"partially swamped fraction", "partially swamped", "partial"});
  partial_rect_->axis(QCPAxis::atBottom)->setLabel("step");
  legend_above(*plot_);
  plot_->legend->setFont(QFont(font().family(), 8));
  for (auto* rect : {total_rect_, partial_rect_}) rect->axis(QCPAxis::atBottom)->setTicker(step_ticker());
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  zoom_ = new user_zoom(*plot_, [this] { show_data(); });
  connect(plot_, &QCustomPlot::mouseMove, this,
          [this](QMouseEvent* event) { show_hover_text(*plot_, *event, hover_text(event->pos())); });
}

QString swamping_view::hover_text(const QPoint& pixel) const {
  if (ratio_rect_->rect().contains(pixel)) {
    return curve_values_at(*ratio_rect_, pixel, [](double key) {
      const auto k = static_cast<long long>(std::floor(key));
      return QString("2^%1 <= |δ|/ulp(w) < 2^%2").arg(k).arg(k + 1);
    });
  }
  for (const QCPAxisRect* rect : {total_rect_, partial_rect_}) {
    if (!rect->rect().contains(pixel)) continue;
    const QString values = curve_values_at(*rect, pixel, step_key_text);
    return values.isEmpty() ? values : QString(rect == total_rect_ ? "swamped\n" : "partially swamped\n") + values;
  }
  return {};
}

void swamping_view::set_run(const run_ref& run) {
  run_ = run;
  zoom_->forget();
  reload();
}

void swamping_view::reload(reload_cause cause) {
  if (run_.file.isEmpty()) return;
  const run_ref run = run_;
  // A live refresh of the run on screen reads only the steps recorded since (see refresh_swamping).
  std::optional<swamping_data> held;
  if (cause == reload_cause::live && shown_run_ == run) held = data_;
  queries_->load<swamping_data>(
      cause,
      [run, held = std::move(held)](const interrupt_flag& interrupt) {
        return held ? refresh_swamping(*held, run, max_points, interrupt) : load_swamping(run, max_points, interrupt);
      },
      [this, run](swamping_data value) {
        shown_run_ = run;
        data_ = std::move(value);
        show_data();
        emit loaded();
      },
      [this](const QString& error) { emit failed(error); });
}

void swamping_view::show_data() {
  plot_->clearGraphs();
  for (std::size_t i = 0; i < data_.layers.size(); ++i) {
    const auto& series = data_.layers[i];
    const QVector<double> steps(series.steps.begin(), series.steps.end());
    auto* total = plot_->addGraph(total_rect_->axis(QCPAxis::atBottom), total_rect_->axis(QCPAxis::atLeft));
    total->setName(qstr(series.layer));
    // Solid 1-pixel pens: the raster engine's fast path (dashed or wider
    // pens over 40 curves of 2000 points stall the UI thread for 300 ms).
    total->setPen(QPen(layer_color(i), 1));
    total->setData(steps, QVector<double>(series.swamped.begin(), series.swamped.end()), true);
    auto* partial = plot_->addGraph(partial_rect_->axis(QCPAxis::atBottom), partial_rect_->axis(QCPAxis::atLeft));
    partial->setPen(QPen(layer_color(i), 1));
    partial->setName(qstr(series.layer));  // for the hover values
    partial->setData(steps, QVector<double>(series.partially_swamped.begin(), series.partially_swamped.end()), true);
    partial->removeFromLegend();
    if (series.ulp_ratio.bins.size() >= 2) {
      const auto& h = series.ulp_ratio;
      double total = 0;
      for (auto c : h.bins) total += static_cast<double>(c);
      // Bin 0 (below range) sits one binade left of the first; the last bin one right.
      QVector<double> keys, fractions;
      for (std::size_t b = 0; b < h.bins.size(); ++b) {
        keys.push_back(h.first_exponent - 1 + static_cast<double>(b) + 0.5);
        fractions.push_back(total > 0 ? static_cast<double>(h.bins[b]) / total : 0.0);
      }
      auto* ratio = plot_->addGraph(ratio_rect_->axis(QCPAxis::atBottom), ratio_rect_->axis(QCPAxis::atLeft));
      ratio->setLineStyle(QCPGraph::lsStepCenter);
      ratio->setPen(QPen(layer_color(i), 1.2));
      ratio->setData(keys, fractions, true);
      ratio->setName(qstr(series.layer));
      ratio->removeFromLegend();
    }
  }
  // Below |δ| = ulp(w)/2 round-to-nearest leaves w unchanged.
  plot_->clearItems();
  auto* lost = new QCPItemStraightLine(plot_);
  lost->setClipAxisRect(ratio_rect_);
  for (auto* point : {lost->point1, lost->point2}) point->setAxes(ratio_rect_->axis(QCPAxis::atBottom), ratio_rect_->axis(QCPAxis::atLeft));
  lost->point1->setCoords(-1, 0);
  lost->point2->setCoords(-1, 1);
  lost->setPen(QPen(QColor(214, 39, 40), 1.5, Qt::DashLine));
  caption_->setText(data_.layers.empty()
                        ? QString("no update statistics in this run (swamping is measured on role 'update')")
                        : QString("%1 layers; top: swamped (update lost entirely), middle: partially swamped")
                              .arg(data_.layers.size()));
  // Nothing to plot: the caption says why (an empty legend would also squeeze
  // the plots below it to its own width).
  plot_->setVisible(!data_.layers.empty());
  // A live refresh keeps what the user zoomed to or panned.
  if (zoom_->active()) {
    plot_->replot();
    return;
  }
  for (auto* rect : {total_rect_, partial_rect_, ratio_rect_}) {
    rect->axis(QCPAxis::atBottom)->rescale();
    rect->axis(QCPAxis::atLeft)->rescale();
    auto range = rect->axis(QCPAxis::atLeft)->range();
    rect->axis(QCPAxis::atLeft)->setRange(0, std::max(range.upper * 1.05, 1e-6));
  }
  plot_->replot();
}

}  // namespace numlab_gui
