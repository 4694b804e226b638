// Off-screen rendering of one view; see screenshot.hpp.
#include "screenshot.hpp"

#include <QEventLoop>
#include <QList>
#include <QImage>
#include <QPixmap>
#include <QStringList>
#include <QTimer>
#include <qcustomplot.h>

#include <algorithm>
#include <memory>

#include "comparison_view.hpp"
#include "events_view.hpp"
#include "histogram_view.hpp"
#include "map_view.hpp"
#include "overview_view.hpp"
#include "problems_view.hpp"
#include "run_queries.hpp"
#include "scales_view.hpp"
#include "swamping_view.hpp"

namespace numlab_gui {
namespace {

// Waits for the view's loaded() or failed(); returns the failure message.
template <typename View>
QString wait_for(View* view, int timeout_ms) {
  QEventLoop loop;
  QString error = "timed out loading the run";
  QObject::connect(view, &View::loaded, &loop, [&] {
    error.clear();
    loop.quit();
  });
  QObject::connect(view, &View::failed, &loop, [&](const QString& message) {
    error = message;
    loop.quit();
  });
  QTimer::singleShot(timeout_ms, &loop, &QEventLoop::quit);
  loop.exec();
  return error;
}

QString render_comparison(const screenshot_request& request, int timeout_ms);
// Draws `widget` off-screen at the request's size into its PNG.
QString grab(QWidget& widget, const screenshot_request& request);

}  // namespace

QStringList screenshot_views() {
  return {"problems", "overview", "map", "histograms", "swamping", "scales", "events", "comparison"};
}

QStringList screenshot_metrics() {
  return {"overflow", "underflow", "subnormal", "nan", "swamped", "partially_swamped", "block_underflow", "saturated"};
}

QString render_screenshot(const screenshot_request& request, QStringList& notes) {
  if (!screenshot_views().contains(request.view)) {
    return QString("unknown view '%1' (choose one of %2)").arg(request.view, screenshot_views().join(", "));
  }
  const auto metric_index = request.metric.isEmpty() ? 0 : screenshot_metrics().indexOf(request.metric);
  if (metric_index < 0) {
    return QString("unknown metric '%1' (choose one of %2)").arg(request.metric, screenshot_metrics().join(", "));
  }
  constexpr int timeout_ms = 120000;
  if (request.view == "comparison") return render_comparison(request, timeout_ms);
  QList<run_ref> runs;
  try {
    const interrupt_flag never{false};
    const auto listing = load_listing(request.database, never);
    if (listing.runs.empty()) return request.database + ": no runs recorded";
    std::vector<std::int64_t> ids = request.runs;
    if (ids.empty()) ids.push_back(listing.runs.front().id);
    for (const auto id : ids) {
      const auto chosen = std::find_if(listing.runs.begin(), listing.runs.end(), [id](const auto& r) { return r.id == id; });
      if (chosen == listing.runs.end()) return QString("%1: no run with id %2").arg(request.database).arg(id);
      runs.push_back({request.database, id,
                      QString("%1 (#%2)").arg(QString::fromStdString(chosen->name)).arg(chosen->id)});
    }
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  if (runs.size() > 1 && request.view != "overview") return "only the overview compares runs: give --run one id";
  const run_ref run = runs.front();

  std::unique_ptr<QWidget> widget;
  QString error;
  if (request.view == "problems") {
    auto* view = new problems_view;
    widget.reset(view);
    view->set_run(run);
    error = wait_for(view, timeout_ms);
    // The underflow ranking follows the summary; draw it too.
    if (error.isEmpty() && view->ranking_queries()->busy()) {
      QEventLoop loop;
      QObject::connect(view, &problems_view::ranking_loaded, &loop, &QEventLoop::quit);
      QObject::connect(view, &problems_view::failed, &loop, &QEventLoop::quit);
      QTimer::singleShot(timeout_ms, &loop, &QEventLoop::quit);
      loop.exec();
    }
  } else if (request.view == "overview") {
    auto* view = new overview_view;
    widget.reset(view);
    view->set_runs(runs);
    error = wait_for(view, timeout_ms);
    if (error.isEmpty() && request.step) view->mark_step(*request.step);
  } else if (request.view == "map") {
    auto* view = new map_view;
    widget.reset(view);
    view->set_metric(static_cast<map_metric>(metric_index));
    view->set_role(request.role);
    view->set_run(run);
    error = wait_for(view, timeout_ms);
  } else if (request.view == "histograms") {
    auto* view = new histogram_view;
    widget.reset(view);
    view->set_run(run);
    view->show_at(request.layer, request.role, request.step.value_or(-1));
    error = wait_for(view, timeout_ms);
    if (error.isEmpty() && !request.layer.isEmpty() && view->data().layer != request.layer.toStdString()) {
      QStringList layers;
      for (const auto& l : view->data().layers) layers << QString::fromStdString(l);
      error = QString("%1: run %2 has no layer '%3' (layers: %4)")
                  .arg(request.database).arg(run.id).arg(request.layer, layers.join(", "));
    }
    if (error.isEmpty() && !request.role.isEmpty() && view->data().role != request.role.toStdString()) {
      QStringList roles;
      for (const auto& r : view->data().roles) roles << QString::fromStdString(r);
      error = QString("%1: layer '%2' has no role '%3' (roles: %4)")
                  .arg(request.database, QString::fromStdString(view->data().layer), request.role, roles.join(", "));
    }
    if (error.isEmpty() && request.step && !view->data().steps.empty() &&
        *request.step > view->data().steps.back()) {
      notes << QString("step %1 is past the last recorded step %2 of %3 / %4: showing %2")
                   .arg(*request.step)
                   .arg(view->data().steps.back())
                   .arg(QString::fromStdString(view->data().layer), QString::fromStdString(view->data().role));
    }
  } else if (request.view == "swamping") {
    auto* view = new swamping_view;
    widget.reset(view);
    view->set_run(run);
    error = wait_for(view, timeout_ms);
  } else if (request.view == "scales") {
    auto* view = new scales_view;
    widget.reset(view);
    view->set_run(run);
    view->show_at(request.layer, request.role, request.step.value_or(-1));
    error = wait_for(view, timeout_ms);
    // The block-underflow map below loads on its own runner.
    if (error.isEmpty() && view->underflow_map()->queries()->busy()) error = wait_for(view->underflow_map(), timeout_ms);
    if (error.isEmpty() && view->data().history.empty()) notes << "this run recorded no scale statistics";
    if (error.isEmpty() && !request.layer.isEmpty() && !view->data().history.empty() &&
        view->data().layer != request.layer.toStdString()) {
      QStringList layers;
      for (const auto& l : view->data().layers) layers << QString::fromStdString(l);
      error = QString("%1: run %2 has no scale statistics of layer '%3' (layers: %4)")
                  .arg(request.database).arg(run.id).arg(request.layer, layers.join(", "));
    }
  } else {
    auto* view = new events_view;
    widget.reset(view);
    view->set_run(run);
    error = wait_for(view, timeout_ms);
  }
  if (!error.isEmpty()) return error;
  return grab(*widget, request);
}

namespace {

QString render_comparison(const screenshot_request& request, int timeout_ms) {
  auto view = std::make_unique<comparison_view>();
  if (!request.group_by.isEmpty()) view->set_group_key(request.group_by);
  view->set_files(QStringList{request.database} + request.more_databases);
  const QString error = wait_for(view.get(), timeout_ms);
  if (!error.isEmpty()) return error;
  if (!request.group_by.isEmpty() && view->group_key() != request.group_by) {
    QStringList keys;
    for (const auto& k : view->data().keys) keys << QString::fromStdString(k);
    return QString("no run has the sweep key '%1' (keys: %2)")
        .arg(request.group_by, keys.isEmpty() ? QString("none, the runs have no coordinates") : keys.join(", "));
  }
  return grab(*view, request);
}

QString grab(QWidget& widget, const screenshot_request& request) {
  widget.setAttribute(Qt::WA_DontShowOnScreen);
  widget.resize(request.size);
  widget.show();
  QCoreApplication::processEvents();
  // Plots redraw into their buffers at the final size before the grab.
  for (auto* plot : widget.findChildren<QCustomPlot*>()) plot->replot(QCustomPlot::rpImmediateRefresh);
  const QImage image = widget.grab().toImage();
  if (image.isNull() || !image.save(request.output, "PNG")) return QString("could not write %1").arg(request.output);
  return {};
}

}  // namespace

}  // namespace numlab_gui
