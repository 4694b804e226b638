// What the Scales view's top panel costs the UI thread per replot (every
// live refresh replots it), side by side with the reference: the same
// curves with the pen the view used before session 9, its "largest
// representable" curves dashed 1.4 pixels wide with QCustomPlot's
// segment-by-segment stroking. Dashes are stroked dash by dash; the
// Overview's dashed 4000-point curves cost about 48 ms a replot (session 8,
// bench/RESULTS.md).
//
// The run: 4000 steps of one layer's weight, recorded for the forward and the
// wgrad GEMM, its per-tensor scale following a jagged amax every step (FP8
// current scaling), written to a scratch file before the benchmarks.
//   QT_QPA_PLATFORM=offscreen build/bench/gui_replot_bench
#include <QApplication>
#include <QEventLoop>
#include <QTimer>
#include <qcustomplot.h>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "rundb/writer.hpp"
#include "scales_view.hpp"

namespace {

constexpr std::int64_t steps = 4000;

std::filesystem::path write_run() {
  const auto file = std::filesystem::temp_directory_path() / ("gui_replot_bench_" + std::to_string(getpid()) + ".db");
  std::filesystem::remove(file);
  rundb::writer w(file);
  const auto id = w.begin_run({.name = "current", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
  for (std::int64_t s = 0; s < steps; ++s) {
    w.add_step({.run = id, .step = s, .loss = 1.0});
    for (const char* op : {"forward", "wgrad"}) {
      rundb::scale_stats_record r{.run = id, .step = s, .layer = "fc", .op = op, .role = "weight",
                                  .scaled_format = "fp8-tensor", .count = 4096, .blocks = 1};
      // A jagged amax, as a real tensor's is from step to step.
      const double amax = std::ldexp(1.0 + 0.5 * std::sin(0.9 * static_cast<double>(s)), -static_cast<int>(s / 500));
      r.amax = amax;
      r.scale = amax / 448;
      w.add_scale_stats(r);
    }
  }
  w.finish_run(id, rundb::run_status::finished);
  return file;
}

// The view, loaded once for every benchmark.
struct loaded_view {
  std::filesystem::path file = write_run();
  numlab_gui::scales_view view;

  loaded_view() {
    view.resize(1280, 800);
    view.show();
    QEventLoop wait;
    QObject::connect(&view, &numlab_gui::scales_view::loaded, &wait, &QEventLoop::quit);
    QObject::connect(&view, &numlab_gui::scales_view::failed, &wait, &QEventLoop::quit);
    QTimer::singleShot(60000, &wait, &QEventLoop::quit);
    view.set_run({QString::fromStdString(file.string()), 1, "current"});
    wait.exec();
    if (view.limit_graphs().size() != 2 || view.limit_graphs()[0]->dataCount() != steps)
      throw std::runtime_error("the Scales view did not load the bench's run");
  }
  ~loaded_view() { std::filesystem::remove(file); }
};

// Made on first use, and destroyed by main before the QApplication: a
// widget that outlived it (a function-local static, destroyed at exit)
// crashed the process after the last benchmark.
std::optional<loaded_view>& view_slot() {
  static std::optional<loaded_view> view;
  return view;
}

loaded_view& shared_view() {
  if (!view_slot()) view_slot().emplace();
  return *view_slot();
}

void replot(benchmark::State& state, QCustomPlot& plot) {
  for (auto _ : state) plot.replot(QCustomPlot::rpImmediateRefresh);
  state.counters["points"] = static_cast<double>(2 * 2 * steps);
}

void BM_scales_replot(benchmark::State& state) {
  auto& view = shared_view().view;
  replot(state, *view.plot());
}
BENCHMARK(BM_scales_replot)->Unit(benchmark::kMillisecond);

// The reference: the same curves drawn as before session 9: amax 1.4
// pixels solid, limits 1.4 pixels dashed, each stroked segment by segment.
void BM_scales_replot_dashed_reference(benchmark::State& state) {
  auto& view = shared_view().view;
  QCustomPlot& plot = *view.plot();
  const bool fast = plot.plottingHints().testFlag(QCP::phFastPolylines);
  std::vector<QPen> amax_pens, limit_pens;
  for (std::size_t i = 0; i < view.amax_graphs().size(); ++i) {
    QCPGraph* amax = view.amax_graphs()[i];
    QCPGraph* limit = view.limit_graphs()[i];
    amax_pens.push_back(amax->pen());
    limit_pens.push_back(limit->pen());
    const QColor color = amax->pen().color();
    amax->setPen(QPen(color, 1.4));
    limit->setPen(QPen(color, 1.4, Qt::DashLine));
  }
  plot.setPlottingHint(QCP::phFastPolylines, false);
  replot(state, plot);
  plot.setPlottingHint(QCP::phFastPolylines, fast);
  for (std::size_t i = 0; i < amax_pens.size(); ++i) {
    view.amax_graphs()[i]->setPen(amax_pens[i]);
    view.limit_graphs()[i]->setPen(limit_pens[i]);
  }
}
BENCHMARK(BM_scales_replot_dashed_reference)->Unit(benchmark::kMillisecond);

// Only the limits dashed as before; the amax curves and the plotting hint as now.
void BM_scales_replot_dashed_limits_only(benchmark::State& state) {
  auto& view = shared_view().view;
  std::vector<QPen> pens;
  for (QCPGraph* limit : view.limit_graphs()) {
    pens.push_back(limit->pen());
    limit->setPen(QPen(limit->pen().color(), 1.4, Qt::DashLine));
  }
  replot(state, *view.plot());
  for (std::size_t i = 0; i < pens.size(); ++i) view.limit_graphs()[i]->setPen(pens[i]);
}
BENCHMARK(BM_scales_replot_dashed_limits_only)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  view_slot().reset();
  return 0;
}
