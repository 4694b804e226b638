// The plots as TensorBoard / W&B users expect them: every skipped step on the
// map, log colour scale; live refreshes keep the zoom; legends off the data;
// loss scale in 2^k, counts in 10^k; fp32 histograms open on their populated
// binades; roles filtered by layer; runs keep their step; N runs in N
// colours with file names; integer steps; smoothing; CSV export of events.
#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTreeWidget>
#include <qcustomplot.h>

#include <array>
#include <cmath>

#include "../rundb/sample_database.hpp"
#include "events_view.hpp"
#include "histogram_view.hpp"
#include "map_view.hpp"
#include "overview_view.hpp"
#include "plot_input.hpp"
#include "runs_view.hpp"
#include "scales_view.hpp"
#include "smoothing.hpp"
#include "swamping_view.hpp"
#include "trouble_database.hpp"

using namespace numlab_gui;

namespace {

using gui_test::pixel_at;
using gui_test::wheel_over;

// One run of `steps` steps whose fc weight is scaled per tensor to FP8
// (scale 1/448), its amax 1 throughout or, `growing`, 1 + step.
void write_fp8_run(const std::filesystem::path& file, std::int64_t steps, bool growing) {
  rundb::writer w(file);
  const auto id = w.begin_run({.name = "fp8", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
  for (std::int64_t s = 0; s < steps; ++s) {
    w.add_step({.run = id, .step = s, .loss = 1.0});
    rundb::scale_stats_record r{.run = id, .step = s, .layer = "fc", .op = "dense", .role = "weight",
                                .scaled_format = "fp8-tensor", .count = 10, .blocks = 1};
    r.amax = growing ? 1.0 + static_cast<double>(s) : 1.0;
    r.scale = 1.0 / 448;
    w.add_scale_stats(r);
  }
  w.finish_run(id, rundb::run_status::finished);
}

bool all_match(const QVector<QString>& labels, const QString& pattern) {
  const QRegularExpression re(pattern);
  for (const auto& l : labels)
    if (!re.match(l).hasMatch()) return false;
  return !labels.isEmpty();
}

}  // namespace

class plots_test : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    sample_ = path("sample.db");
    rundb_test::write_sample(dir_ / "sample.db");
    trouble_ = path("trouble.db");
    gui_test::write_trouble(dir_ / "trouble.db", "first");
    gui_test::write_trouble(dir_ / "trouble.db", "second");
    other_ = path("other.db");
    gui_test::write_trouble(dir_ / "other.db", "first");
  }

  void map_marks_untraced_skips_and_has_a_log_scale() {
    map_view view;
    QSignalSpy loaded(&view, &map_view::loaded);
    view.set_run({sample_, 1, "baseline"});
    QVERIFY(loaded.wait(10000));
    // Steps 16 and 33 were skipped; statistics exist only every 5 steps.
    QCOMPARE(view.grid().skipped.size(), std::size_t{2});
    const auto marks = view.skip_marks()->data();
    QCOMPARE(marks->size(), 2);
    QCOMPARE(marks->at(0)->key, 3.0);  // the column of step 15
    QCOMPARE(marks->at(1)->key, 6.0);  // the column of step 30
    QCOMPARE(view.color_map()->dataScaleType(), QCPAxis::stLinear);
    view.set_log_scale(true);
    QCOMPARE(view.color_map()->dataScaleType(), QCPAxis::stLogarithmic);
    QVERIFY(view.color_map()->dataRange().lower > 0);
    // A cell of fraction 0 is drawn at the floor, not as "no record".
    QVERIFY(std::isfinite(view.cell_value(0, 0)));
  }

  void all_roles_map_keeps_each_cells_worst_role() {
    map_view view;
    QSignalSpy loaded(&view, &map_view::loaded);
    view.set_metric(map_metric::swamped);
    view.set_role("*");
    view.set_run({sample_, 1, "baseline"});
    QVERIFY(loaded.wait(10000));
    QCOMPARE(view.grid().role, std::string());
    QCOMPARE(view.grid().cell_roles[2 * view.grid().steps.size()], std::string("update"));  // fc, column 0
    QCOMPARE(view.cell_value(2, 0), 20.0 / 1000.0);
  }

  void live_refresh_keeps_the_zoom() {
    overview_view view;
    view.resize(1000, 700);
    view.show();
    QSignalSpy loaded(&view, &overview_view::loaded);
    view.set_runs({{sample_, 1, "baseline"}});
    QVERIFY(loaded.wait(10000));
    auto* steps = view.loss_rect()->axis(QCPAxis::atBottom);
    const QCPRange full = steps->range();
    wheel_over(view.plot(), view.loss_rect());
    const QCPRange zoomed = steps->range();
    QVERIFY(zoomed.size() < full.size() * 0.9);
    view.reload(reload_cause::live);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(steps->range().lower, zoomed.lower);
    QCOMPARE(steps->range().upper, zoomed.upper);
    // Double-click resets.
    QTest::mouseDClick(view.plot(), Qt::LeftButton, Qt::NoModifier, view.loss_rect()->rect().center());
    QCOMPARE(steps->range().size(), full.size());
  }

  void legends_never_cover_the_plots() {
    overview_view overview;
    histogram_view histograms;
    swamping_view swamping;
    const std::array<QCustomPlot*, 3> plots{overview.plot(), histograms.plot(), swamping.plot()};
    for (QCustomPlot* plot : plots) QCOMPARE(plot->legend->layout(), static_cast<QCPLayout*>(plot->plotLayout()));
  }

  void axes_read_in_powers_and_whole_steps() {
    overview_view view;
    view.resize(1000, 700);
    QSignalSpy loaded(&view, &overview_view::loaded);
    view.set_runs({{sample_, 1, "baseline"}});
    QVERIFY(loaded.wait(10000));
    view.show();  // tick labels are laid out for the plot's size (plot_fit.hpp)
    view.plot()->replot();
    const auto scale_labels = view.scale_rect()->axis(QCPAxis::atLeft)->tickVectorLabels();
    QVERIFY2(all_match(scale_labels, "^2\\^-?\\d+$"), qPrintable(QStringList(scale_labels.begin(), scale_labels.end()).join(" ")));
    // Zoomed to three steps: whole step numbers only.
    auto* steps = view.loss_rect()->axis(QCPAxis::atBottom);
    steps->setRange(10.2, 12.7);
    view.plot()->replot();
    QVERIFY(all_match(steps->tickVectorLabels(), "^\\d+$"));
    for (double tick : steps->tickVector()) QCOMPARE(tick, std::round(tick));
    // The last evaluation (step 49) is inside the step axis, not on its edge.
    view.set_runs({{sample_, 1, "baseline"}});
    QVERIFY(loaded.wait(10000));
    QVERIFY(steps->range().upper > 49.5);
    // The sample's learning rate is a constant 0.1: the axis spans 0 .. 0.2, not a unit range around it.
    const QCPRange lr = view.training_rect()->axis(QCPAxis::atRight)->range();
    QCOMPARE(lr.lower, 0.0);
    QCOMPARE(lr.upper, 0.2);
    // Live refreshes replot curves of up to 4000 points: wide solid curves go
    // as one polyline each, and the learning rate (a point per step, unlike
    // the dashed evaluations) is not dashed, which is stroked dash by dash:
    // about 70 and 50 ms of the UI thread per replot otherwise.
    QVERIFY(view.plot()->plottingHints().testFlag(QCP::phFastPolylines));
    int lr_curves = 0;
    for (int g = 0; g < view.plot()->graphCount(); ++g) {
      const QCPGraph* graph = view.plot()->graph(g);
      if (graph->valueAxis() != view.training_rect()->axis(QCPAxis::atRight)) continue;
      ++lr_curves;
      QCOMPARE(graph->pen().style(), Qt::SolidLine);
    }
    QCOMPARE(lr_curves, 1);
  }

  void log_counts_read_in_decades() {
    histogram_view view;
    view.resize(1000, 700);
    QSignalSpy loaded(&view, &histogram_view::loaded);
    view.set_run({sample_, 1, "baseline"});
    QVERIFY(loaded.wait(10000));
    view.show();  // tick labels are laid out for the plot's size (plot_fit.hpp)
    view.findChild<QCheckBox*>()->setChecked(true);
    view.plot()->replot();
    const auto labels = view.plot()->yAxis->tickVectorLabels();
    QVERIFY2(all_match(labels, "^10\\^-?\\d+$"), qPrintable(QStringList(labels.begin(), labels.end()).join(" ")));
  }

  void fp32_histograms_open_on_their_populated_binades() {
    const auto file = dir_ / "fp32.db";
    {
      rundb::writer w(file);
      const auto id = w.begin_run({.name = "fp32", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
      w.add_step({.run = id, .step = 0, .loss = 1.0});
      // binary32: binades 2^-149 .. 2^127; values only in 2^-25 .. 2^-15.
      rundb::tensor_stats_record t{.run = id, .step = 0, .layer = "fc", .op = "dense", .role = "update",
                                   .format = "binary32", .count = 1100};
      t.hist = {-149, std::vector<std::uint64_t>(277 + 2, 0)};
      for (int e = -25; e <= -15; ++e) t.hist.bins[static_cast<std::size_t>(e + 149) + 1] = 100;
      w.add_tensor_stats(t);
      w.finish_run(id, rundb::run_status::finished);
    }
    histogram_view view;
    view.resize(1000, 700);
    QSignalSpy loaded(&view, &histogram_view::loaded);
    view.set_run({QString::fromStdString(file.string()), 1, "fp32"});
    QVERIFY(loaded.wait(10000));
    view.show();
    view.plot()->replot();
    const QCPRange x = view.plot()->xAxis->range();
    QVERIFY2(x.lower <= -25 && x.upper >= -14 && x.size() < 20, qPrintable(QString("%1..%2").arg(x.lower).arg(x.upper)));
    wheel_over(view.plot(), view.plot()->axisRect());
    QVERIFY(view.plot()->xAxis->range().size() < x.size());
  }

  void roles_follow_the_layer_and_runs_keep_the_step() {
    const auto file = dir_ / "roles.db";
    {
      rundb::writer w(file);
      const auto id = w.begin_run({.name = "roles", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
      for (std::int64_t s = 0; s < 4; ++s) {
        w.add_step({.run = id, .step = s, .loss = 1.0});
        for (const auto& [layer, role] : {std::pair{"a", "activation"}, {"a", "grad_weight"}, {"b", "activation"}}) {
          w.add_tensor_stats({.run = id, .step = s, .layer = layer, .op = "dense", .role = role, .format = "binary16",
                              .count = 10, .hist = {-24, std::vector<std::uint64_t>(42, 1)}});
        }
      }
      w.finish_run(id, rundb::run_status::finished);
    }
    histogram_view view;
    QSignalSpy loaded(&view, &histogram_view::loaded);
    view.set_run({QString::fromStdString(file.string()), 1, "roles"});
    view.show_at("b", "grad_weight", -1);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(view.data().roles, std::vector<std::string>{"activation"});
    // The layer picker searches: any part of a name matches.
    auto* completer = view.layer_picker()->completer();
    QVERIFY(completer != nullptr);
    QCOMPARE(completer->filterMode(), Qt::MatchContains);
    completer->setCompletionPrefix("b");
    QCOMPARE(completer->completionCount(), 1);
    QCOMPARE(completer->currentCompletion(), QString("b"));
    QCOMPARE(view.data().role, std::string("activation"));
    QVERIFY(view.data().selected_stats() != nullptr);

    // Another run keeps layer, role and step.
    histogram_view two;
    QSignalSpy two_loaded(&two, &histogram_view::loaded);
    two.set_run({trouble_, 1, "first"});
    two.show_at("a", "activation", 20);
    QVERIFY(two_loaded.wait(10000));
    two.set_run({trouble_, 2, "second"});
    QVERIFY(two_loaded.wait(10000));
    QCOMPARE(two.shown_step(), std::int64_t{20});
    QCOMPARE(two.data().layer, std::string("a"));
    QCOMPARE(two.data().role, std::string("activation"));
  }

  // Every live refresh replots the Scales view's curves: dashed limits cost
  // 108 ms of the UI thread per replot on a 4000-step run, solid polylines
  // 3 ms in all (bench/gui_replot_bench).
  void scales_curves_are_solid_polylines() {
    const auto file = dir_ / "scales.db";
    write_fp8_run(file, 3, false);
    scales_view view;
    QSignalSpy loaded(&view, &scales_view::loaded);
    view.set_run({QString::fromStdString(file.string()), 1, "fp8"});
    QVERIFY(loaded.wait(10000));
    QVERIFY(view.plot()->plottingHints().testFlag(QCP::phFastPolylines));
    QCOMPARE(view.limit_graphs().size(), std::size_t{1});
    QCOMPARE(view.limit_graphs()[0]->dataCount(), 3);
    for (const auto* graphs : {&view.amax_graphs(), &view.limit_graphs()}) {
      for (const QCPGraph* graph : *graphs) QCOMPARE(graph->pen().style(), Qt::SolidLine);
    }
    // Told apart by colour instead.
    QVERIFY(view.limit_graphs()[0]->pen().color() != view.amax_graphs()[0]->pen().color());
  }

  void n_runs_in_n_colours_with_file_names() {
    runs_view runs;
    QSignalSpy files(&runs, &runs_view::file_loaded);
    runs.open_file(trouble_);
    QVERIFY(files.wait(10000));
    runs.open_file(other_);
    QVERIFY(files.wait(10000));
    runs.select_runs({{trouble_, 1, {}}, {trouble_, 2, {}}, {other_, 1, {}}});
    const auto selected = runs.selected_runs();
    QCOMPARE(selected.size(), 3);
    // Same run name and id in two files: the labels still differ.
    QSet<QString> labels;
    for (const auto& r : selected) labels.insert(r.label);
    QCOMPARE(labels.size(), 3);
    QVERIFY(labels.contains("first (#1, trouble.db)") && labels.contains("first (#1, other.db)"));

    overview_view view;
    QSignalSpy loaded(&view, &overview_view::loaded);
    view.set_runs(selected);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(view.series().size(), std::size_t{3});
    QSet<QRgb> loss_colours, skip_colours;
    for (std::size_t i = 0; i < 3; ++i) {
      QVERIFY(view.loss_graph(i) != nullptr && view.skipped_graph(i) != nullptr);
      loss_colours.insert(view.smoothed_graph(i)->pen().color().rgb());
      skip_colours.insert(view.skipped_graph(i)->scatterStyle().pen().color().rgb());
      QCOMPARE(view.skipped_graph(i)->dataCount(), 1);
    }
    QCOMPARE(loss_colours.size(), 3);
    QCOMPARE(skip_colours.size(), 3);
  }

  // Hover values on curves, the map and histograms (and the waterfall), as
  // the tooltip shows them, at the pixel of a known point.
  void hovering_shows_the_values_under_the_cursor() {
    overview_view overview;
    overview.resize(1000, 700);
    overview.show();
    QSignalSpy overview_loaded(&overview, &overview_view::loaded);
    overview.set_runs({{sample_, 1, "baseline"}});
    QVERIFY(overview_loaded.wait(10000));
    overview.plot()->replot();
    const QString loss = overview.hover_text(pixel_at(overview.loss_rect(), 10, 1.0));
    QVERIFY2(loss.contains(QString("baseline — step 10: loss %1").arg(rundb_test::sample_loss(10), 0, 'g', 5)),
             qPrintable(loss));
    // The sample's gradient norm is 1 + step, its learning rate 0.1.
    const QString training = overview.hover_text(pixel_at(overview.training_rect(), 30, 10));
    QVERIFY2(training.contains("step 30: gradient norm 31, learning rate 0.1"), qPrintable(training));
    // Step 16 was skipped at the loss scale of step 16.
    const QString skip =
        overview.hover_text(pixel_at(overview.scale_rect(), 16, rundb_test::sample_scale(16)));
    QVERIFY2(skip.contains("step 16 skipped"), qPrintable(skip));

    map_view map;
    map.resize(1000, 600);
    map.show();
    QSignalSpy map_loaded(&map, &map_view::loaded);
    map.set_metric(map_metric::overflow);
    map.set_role("grad_weight");
    map.set_run({sample_, 1, "baseline"});
    QVERIFY(map_loaded.wait(10000));
    map.plot()->replot();
    // fc (row 2) at the 4th recorded step (15).
    const QPoint cell(static_cast<int>(map.plot()->xAxis->coordToPixel(3)),
                      static_cast<int>(map.plot()->yAxis->coordToPixel(2)));
    const QString hovered = map.hover_text(cell);
    QVERIFY2(hovered.startsWith("fc / grad_weight at step 15") &&
                 hovered.contains(QString("fraction %1").arg(map.cell_value(2, 3), 0, 'g', 4)),
             qPrintable(hovered));

    histogram_view histograms;
    histograms.resize(1000, 700);
    histograms.show();
    QSignalSpy loaded(&histograms, &histogram_view::loaded);
    histograms.set_run({sample_, 1, "baseline"});
    histograms.show_at("conv2", "grad_weight", 10);
    QVERIFY(loaded.wait(10000));
    histograms.plot()->replot();
    const auto stored = rundb::reader(sample_.toStdString()).histogram(1, "conv2", "grad_weight", 10);
    QVERIFY(stored.has_value());
    const auto& h = stored->hist;
    // The fourth binade's bar.
    const std::int32_t e = h.first_exponent + 3;
    const QPoint bar(static_cast<int>(histograms.plot()->xAxis->coordToPixel(e + 0.5)),
                     static_cast<int>(histograms.plot()->yAxis->coordToPixel(0)) - 2);
    const QString binade = histograms.hover_text(bar);
    QVERIFY2(binade.startsWith(QString("2^%1 <= |x| < 2^%2: %3 values").arg(e).arg(e + 1).arg(h.bins[4])),
             qPrintable(binade));
    // The waterfall's cell of that binade at the first recorded step (step 0, column 0).
    histograms.waterfall()->replot();
    const QPoint fall(static_cast<int>(histograms.waterfall()->xAxis->coordToPixel(0)),
                      static_cast<int>(histograms.waterfall()->yAxis->coordToPixel(e + 0.5)));
    const auto first = rundb_test::sample_bins(0, 1);
    const QString cell_text = histograms.waterfall_hover_text(fall);
    QVERIFY2(cell_text.startsWith(QString("step 0, 2^%1 <= |x| < 2^%2: about %3 values")
                                      .arg(e).arg(e + 1).arg(static_cast<double>(first[4]), 0, 'g', 4)),
             qPrintable(cell_text));
    QVERIFY(histograms.hover_text(QPoint(-10, -10)).isEmpty());

    // Swamping's curves: conv2's updates are 10 of 1000 swamped at every step.
    swamping_view swamping;
    swamping.resize(1000, 700);
    swamping.show();
    QSignalSpy swamping_loaded(&swamping, &swamping_view::loaded);
    swamping.set_run({sample_, 1, "baseline"});
    QVERIFY(swamping_loaded.wait(10000));
    swamping.plot()->replot();
    auto* swamped_rect = swamping.plot()->axisRect(0);
    const QString swamped = swamping.hover_text(pixel_at(swamped_rect, 20, 0.01));
    QVERIFY2(swamped.startsWith("swamped\nconv2 — step 20: 0.01\n"), qPrintable(swamped));
    QVERIFY2(swamped.contains("fc — step 20: 0.02"), qPrintable(swamped));
  }

  // The waterfall (the histogram's history) has a colour bar and marks, on
  // its overflow row, exactly the steps that overflowed.
  void waterfall_has_a_colour_bar_and_marks_the_overflows() {
    const auto file = dir_ / "overflow.db";
    {
      rundb::writer w(file);
      const auto id = w.begin_run({.name = "ovf", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
      for (std::int64_t s = 0; s < 6; ++s) {
        w.add_step({.run = id, .step = s, .loss = 1.0});
        std::vector<std::uint64_t> bins(42, 5);
        bins.back() = s == 2 || s == 4 ? 3 : 0;  // overflows at steps 2 and 4 only
        w.add_tensor_stats({.run = id, .step = s, .layer = "fc", .op = "dense", .role = "grad_weight",
                            .format = "binary16", .count = 200 + bins.back(), .hist = {-24, bins}});
      }
      w.finish_run(id, rundb::run_status::finished);
    }
    histogram_view view;
    view.resize(1000, 700);
    view.show();
    QSignalSpy loaded(&view, &histogram_view::loaded);
    view.set_run({QString::fromStdString(file.string()), 1, "ovf"});
    QVERIFY(loaded.wait(10000));
    QVERIFY(view.waterfall_scale()->visible());
    QVERIFY(!view.waterfall_scale()->axis()->label().isEmpty());
    const auto* marks = view.waterfall_overflow_marks();
    QCOMPARE(marks->dataCount(), 2);
    QCOMPARE(marks->data()->at(0)->key, 2.0);
    QCOMPARE(marks->data()->at(1)->key, 4.0);
    // On the top row: 40 binades from 2^-24 and the two special rows.
    QCOMPARE(marks->data()->at(0)->value, -24 - 0.5 + 41);
    // The wheel zooms the waterfall's steps, a live refresh keeps it, a double-click resets.
    view.waterfall()->replot();
    const QCPRange full = view.waterfall()->xAxis->range();
    wheel_over(view.waterfall(), view.waterfall()->axisRect());
    const QCPRange zoomed = view.waterfall()->xAxis->range();
    QVERIFY(zoomed.size() < full.size());
    view.reload(reload_cause::live);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(view.waterfall()->xAxis->range().lower, zoomed.lower);
    QTest::mouseDClick(view.waterfall(), Qt::LeftButton, Qt::NoModifier, view.waterfall()->axisRect()->rect().center());
    QCOMPARE(view.waterfall()->xAxis->range().size(), full.size());
  }

  void the_step_field_shows_the_newest_recorded_step_at_or_before_it() {
    histogram_view view;
    QSignalSpy loaded(&view, &histogram_view::loaded);
    view.set_run({sample_, 1, "baseline"});
    view.show_at("fc", "grad_weight", -1);
    QVERIFY(loaded.wait(10000));
    view.step_field()->setValue(23);  // recorded every 5 steps
    QCOMPARE(view.shown_step(), std::int64_t{20});
    QVERIFY2(view.caption().contains("step 23 has no statistics"), qPrintable(view.caption()));
    const auto stored = rundb::reader(sample_.toStdString()).histogram(1, "fc", "grad_weight", 20);
    QCOMPARE(view.bar_values(), std::vector<double>(stored->hist.bins.begin(), stored->hist.bins.end()));
    view.step_field()->setValue(35);
    QCOMPARE(view.shown_step(), std::int64_t{35});
    QCOMPARE(loaded.count(), 1);  // no query: every record of a short run is loaded
  }

  void gradient_norm_learning_rate_and_log_loss_are_charted() {
    overview_view view;
    QSignalSpy loaded(&view, &overview_view::loaded);
    view.set_runs({{sample_, 1, "baseline"}});
    QVERIFY(loaded.wait(10000));
    const auto steps = rundb::reader(sample_.toStdString()).steps(1);
    QCOMPARE(view.grad_norm_graph(0)->dataCount(), static_cast<int>(steps.size()));
    QCOMPARE(view.lr_graph(0)->dataCount(), static_cast<int>(steps.size()));
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto at = static_cast<int>(i);
      QCOMPARE(view.grad_norm_graph(0)->data()->at(at)->key, static_cast<double>(steps[i].step));
      QCOMPARE(view.grad_norm_graph(0)->data()->at(at)->value, *steps[i].grad_norm);
      QCOMPARE(view.lr_graph(0)->data()->at(at)->value, *steps[i].lr);
    }
    auto* loss_axis = view.loss_rect()->axis(QCPAxis::atLeft);
    QCOMPARE(loss_axis->scaleType(), QCPAxis::stLinear);
    view.set_log_loss(true);
    QCOMPARE(loss_axis->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(loss_axis->range().lower > 0);
    view.set_log_loss(false);
    QCOMPARE(loss_axis->scaleType(), QCPAxis::stLinear);
  }

  // Zoom/pan everywhere, kept by live refreshes, double-click resets: the
  // views that rescaled on every refresh (Swamping, Scales) and the map.
  void swamping_scales_and_map_keep_the_zoom_and_reset_on_double_click() {
    const auto check = [](QWidget& view, QCustomPlot* plot, QCPAxisRect* rect, auto reload, auto& loaded) {
      view.resize(1000, 700);
      view.show();
      plot->replot();
      auto* steps = rect->axis(QCPAxis::atBottom);
      const QCPRange full = steps->range();
      wheel_over(plot, rect);
      const QCPRange zoomed = steps->range();
      if (!(zoomed.size() < full.size() * 0.9)) return QString("the wheel did not zoom");
      reload();
      if (!loaded.wait(10000)) return QString("no reload");
      if (steps->range().lower != zoomed.lower || steps->range().upper != zoomed.upper)
        return QString("the live refresh reset the zoom to %1..%2").arg(steps->range().lower).arg(steps->range().upper);
      QTest::mouseDClick(plot, Qt::LeftButton, Qt::NoModifier, rect->rect().center());
      if (steps->range().size() < full.size() * 0.99) return QString("the double-click did not reset");
      return QString();
    };
    swamping_view swamping;
    QSignalSpy swamping_loaded(&swamping, &swamping_view::loaded);
    swamping.set_run({sample_, 1, "baseline"});
    QVERIFY(swamping_loaded.wait(10000));
    const QString swamped = check(swamping, swamping.plot(), swamping.plot()->axisRect(),
                                  [&] { swamping.reload(reload_cause::live); }, swamping_loaded);
    QVERIFY2(swamped.isEmpty(), qPrintable("swamping: " + swamped));

    map_view map;
    QSignalSpy map_loaded(&map, &map_view::loaded);
    map.set_run({sample_, 1, "baseline"});
    QVERIFY(map_loaded.wait(10000));
    const QString mapped = check(map, map.plot(), map.plot()->axisRect(), [&] { map.reload(reload_cause::live); },
                                 map_loaded);
    QVERIFY2(mapped.isEmpty(), qPrintable("map: " + mapped));

    const auto file = dir_ / "scales-zoom.db";
    write_fp8_run(file, 40, true);
    scales_view scales;
    QSignalSpy scales_loaded(&scales, &scales_view::loaded);
    scales.set_run({QString::fromStdString(file.string()), 1, "fp8"});
    QVERIFY(scales_loaded.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(!scales.queries()->busy() && !scales.detail_queries()->busy(), 10000);
    const QString scaled = check(scales, scales.plot(), scales.plot()->axisRect(),
                                 [&] { scales.reload(reload_cause::live); }, scales_loaded);
    QVERIFY2(scaled.isEmpty(), qPrintable("scales: " + scaled));
  }

  void smoothing_is_a_debiased_ema() {
    // By hand, w = 0.5: m = 0.5, s = 0.5 / 0.5 = 1; m = 0.25 + 1.5 = 1.75, s = 1.75 / 0.75.
    const std::vector<double> x{1, 3, std::nan(""), 3};
    const auto s = ema_smooth(x, 0.5);
    QCOMPARE(s[0], 1.0);
    QCOMPARE(s[1], 1.75 / 0.75);
    QVERIFY(std::isnan(s[2]));
    QCOMPARE(s[3], (0.5 * 1.75 + 1.5) / 0.875);
    QCOMPARE(ema_smooth(x, 0).at(3), 3.0);

    overview_view view;
    QSignalSpy loaded(&view, &overview_view::loaded);
    view.set_smoothing(0.9);
    view.set_runs({{sample_, 1, "baseline"}});
    QVERIFY(loaded.wait(10000));
    std::vector<double> raw;
    for (int i = 0; i < view.loss_graph(0)->dataCount(); ++i) raw.push_back(view.loss_graph(0)->data()->at(i)->value);
    const auto expected = ema_smooth(raw, 0.9);
    QCOMPARE(view.smoothed_graph(0)->dataCount(), static_cast<int>(expected.size()));
    for (std::size_t i = 0; i < expected.size(); ++i)
      QCOMPARE(view.smoothed_graph(0)->data()->at(static_cast<int>(i))->value, expected[i]);
  }

  void events_export_to_csv() {
    events_view view;
    QSignalSpy loaded(&view, &events_view::loaded);
    view.set_run({trouble_, 1, "first"});
    QVERIFY(loaded.wait(10000));
    const QString csv = path("events.csv");
    QCOMPARE(view.export_csv(csv), QString());
    const auto read = [&csv] {
      QFile file(csv);
      return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString("(unreadable)");
    };
    const QStringList lines = read().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines, (QStringList{"step,kind,layer,message", "0,warning,,\"loss scale \"\"dynamic\"\", growth 2\"",
                                 "7,skipped,,update skipped: inf in grad_weight",
                                 "12,overflow,b,1 inf and 5 overflowing values in grad_weight",
                                 "20,nan,a,3 NaN in activation"}));
    view.set_kind_filter(rundb::event_kind::nan);
    QCOMPARE(view.export_csv(csv), QString());
    QCOMPARE(read(), QString("step,kind,layer,message\n20,nan,a,3 NaN in activation\n"));
    QVERIFY(!view.export_csv("/nonexistent-dir/events.csv").isEmpty());
    QVERIFY(!QFileInfo::exists("/nonexistent-dir/events.csv"));
  }

 private:
  QString path(const QString& name) const { return QString::fromStdString((dir_ / name.toStdString()).string()); }

  rundb_test::scratch_dir dir_{"gui-plots"};
  QString sample_, trouble_, other_;
};

QTEST_MAIN(plots_test)
#include "plots_test.moc"
