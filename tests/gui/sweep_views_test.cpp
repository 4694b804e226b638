// QtTest of the views built on schema v3: the comparison of a sweep's runs
// (run_coordinates) and the scales view (scale_stats). The databases are
// written here with formulas, and every check compares what a view shows
// with a value derived by hand from those formulas.
#include <QProgressBar>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <qcustomplot.h>

#include <cmath>
#include <string_view>

#include "../rundb/sample_database.hpp"
#include "comparison_view.hpp"
#include "histogram_view.hpp"
#include "map_view.hpp"
#include "plot_input.hpp"
#include "plot_style.hpp"
#include "scales_view.hpp"

using namespace numlab_gui;

namespace {

// The sweep: precision x seed; loss = offset(precision) + 0.1 seed + 1 / (1 + step),
// final accuracy = base(precision) + 0.01 seed. fp16 also has a diverged and a
// failed point, which must be counted but never averaged.
constexpr std::int64_t sweep_steps = 20;
double precision_offset(const std::string& p) { return p == "bf16" ? 0.5 : 1.0; }
double precision_accuracy(const std::string& p) { return p == "bf16" ? 0.9 : 0.8; }
double sweep_loss(const std::string& p, int seed, std::int64_t step) {
  return precision_offset(p) + 0.1 * seed + 1.0 / (1.0 + static_cast<double>(step));
}

void write_point(rundb::writer& w, const std::string& precision, int seed, rundb::run_status status) {
  const auto id = w.begin_run({.name = precision + "-s" + std::to_string(seed), .config_yaml = "model: tiny\n",
                               .numlab_version = "0.1.0"});
  w.set_coordinates(id, {{"precision", precision}, {"seed", std::to_string(seed)}});
  for (std::int64_t s = 0; s < sweep_steps; ++s) {
    const bool blown = status == rundb::run_status::diverged && s >= 5;
    w.add_step({.run = id, .step = s, .loss = blown ? std::nan("") : sweep_loss(precision, seed, s)});
    if (status == rundb::run_status::failed && s == 3) break;
  }
  if (status == rundb::run_status::finished)
    w.add_evaluation({id, 0, sweep_steps - 1, 0.1, precision_accuracy(precision) + 0.01 * seed});
  w.finish_run(id, status);
}

// The scaled run: layer fc, role weight, per-tensor FP8 (E4M3, max 448) with
// amax 2^s and decode scale 2^(s-8) at step s; saturating at steps 3 and 7;
// block underflow 10 s of 1000 elements. Layer mx uses MXFP8 (block scales
// only) with block scales in the binades 2^-9 and 2^-8 and 7 all-zero blocks
// at E8M0's smallest scale 2^-127. Layer nv's weight is quantized to NVFP4
// for two GEMMs, forward (amax 2^s) and dgrad (amax 2^(s+1)), with the
// tensor scale 2^(s-4).
constexpr std::int64_t scaled_steps = 10;

void write_scaled_run(const std::filesystem::path& file) {
  rundb::writer w(file);
  const auto id = w.begin_run({.name = "fp8", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
  for (std::int64_t s = 0; s < scaled_steps; ++s) {
    w.add_step({.run = id, .step = s, .loss = 1.0});
    for (const char* layer : {"fc", "mx", "nv"}) {
      rundb::tensor_stats_record t{.run = id, .step = s, .layer = layer, .op = "dense", .role = "weight",
                                   .format = "e4m3", .count = 1000};
      t.hist = {-12, std::vector<std::uint64_t>(24, 5)};
      w.add_tensor_stats(t);
    }
    rundb::scale_stats_record fc{.run = id, .step = s, .layer = "fc", .op = "dense", .role = "weight",
                                 .scaled_format = "fp8-tensor", .count = 1000, .blocks = 1};
    fc.amax = std::ldexp(1.0, static_cast<int>(s));
    fc.scale = std::ldexp(1.0, static_cast<int>(s) - 8);
    fc.amax_history = {fc.amax.value(), fc.amax.value() / 2};
    fc.block_underflow = static_cast<std::uint64_t>(10 * s);
    fc.saturated = (s == 3 || s == 7) ? 4 : 0;
    fc.scale_hist = {static_cast<std::int32_t>(s) - 10, {0, 0, 1, 0}};  // the one block in binade s - 9
    w.add_scale_stats(fc);
    rundb::scale_stats_record mx{.run = id, .step = s, .layer = "mx", .op = "dense", .role = "weight",
                                 .scaled_format = "mxfp8", .count = 1000, .blocks = 32};
    mx.amax = 1.0;
    // Binades -127 (7 blocks), -9 (20) and -8 (12): bin i holds binade -127 + i - 1.
    mx.scale_hist = {-127, std::vector<std::uint64_t>(122, 0)};
    mx.scale_hist.bins[1] = 7;
    mx.scale_hist.bins[119] = 20;
    mx.scale_hist.bins[120] = 12;
    w.add_scale_stats(mx);
    for (const char* op : {"forward", "dgrad"}) {
      const bool dgrad = std::string_view(op) == "dgrad";
      rundb::scale_stats_record nv{.run = id, .step = s, .layer = "nv", .op = op, .role = "weight",
                                   .scaled_format = "nvfp4", .count = 1024, .blocks = 64};
      nv.amax = std::ldexp(1.0, static_cast<int>(s) + (dgrad ? 1 : 0));
      nv.scale = std::ldexp(1.0, static_cast<int>(s) - 4);
      // Binades -20 and -19; forward's 5 zero scales (all-zero blocks) in bins[0].
      nv.scale_hist = {-20, {dgrad ? 0u : 5u, dgrad ? 64u : 60u, dgrad ? 0u : 4u, 0}};
      w.add_scale_stats(nv);
    }
  }
  w.finish_run(id, rundb::run_status::finished);
}

bool wait_loaded(QSignalSpy& spy) {
  return spy.count() > 0 || spy.wait(20000);
}

}  // namespace

class sweep_views_test : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName("numlab-tests");
    QCoreApplication::setApplicationName("sweep_views_test");
    merged_ = QString::fromStdString((dir_ / "merged.db").string());
    {
      rundb::writer w(dir_ / "merged.db");
      for (const std::string p : {"bf16", "fp16"})
        for (int seed = 1; seed <= 3; ++seed) write_point(w, p, seed, rundb::run_status::finished);
      write_point(w, "fp16", 4, rundb::run_status::diverged);
      write_point(w, "fp16", 5, rundb::run_status::failed);
    }
    // The same grid as one file per precision.
    for (const std::string p : {"bf16", "fp16"}) {
      rundb::writer w(dir_ / (p + ".db"));
      for (int seed = 1; seed <= 3; ++seed) write_point(w, p, seed, rundb::run_status::finished);
      split_ << QString::fromStdString((dir_ / (p + ".db")).string());
    }
    scaled_ = QString::fromStdString((dir_ / "scaled.db").string());
    write_scaled_run(dir_ / "scaled.db");
  }

  void mean_and_sd_by_hand() {
    const auto s = mean_and_sd({1, 2, 3, 4});
    QCOMPARE(s.n, std::size_t{4});
    QCOMPARE(s.mean, 2.5);
    QVERIFY(std::abs(s.sd - std::sqrt(5.0 / 3.0)) < 1e-15);
    QCOMPARE(mean_and_sd({7}).sd, 0.0);
    QCOMPARE(mean_and_sd({}).n, std::size_t{0});
  }

  void comparison_bands_are_the_seeds_mean_and_sd() {
    comparison_view view;
    QSignalSpy loaded(&view, &comparison_view::loaded);
    view.set_files({merged_});
    QVERIFY(wait_loaded(loaded));
    // seed varies too, but the first varying key other than seed is the default.
    QCOMPARE(view.group_key(), QString("precision"));
    QCOMPARE(view.data().runs.size(), std::size_t{8});
    const auto& bands = view.bands();
    QCOMPARE(bands.size(), std::size_t{2});
    for (const auto& band : bands) {
      const bool fp16 = band.value == "fp16";
      QCOMPARE(band.members.size(), fp16 ? std::size_t{5} : std::size_t{3});
      QCOMPARE(band.finished, std::size_t{3});  // diverged and failed points are never scored
      QCOMPARE(band.steps.size(), static_cast<std::size_t>(sweep_steps));
      for (std::size_t k = 0; k < band.steps.size(); ++k) {
        const auto step = static_cast<std::int64_t>(band.steps[k]);
        // Seeds 1, 2, 3: mean at seed 2, sample sd of {0.1, 0.2, 0.3} = 0.1.
        QVERIFY(std::abs(band.mean[k] - sweep_loss(band.value, 2, step)) < 1e-12);
        QVERIFY(std::abs(band.sd[k] - 0.1) < 1e-12);
        QCOMPARE(band.n[k], std::size_t{3});
      }
      QVERIFY(std::abs(band.final_accuracy.mean - (precision_accuracy(band.value) + 0.02)) < 1e-12);
      QVERIFY(std::abs(band.final_accuracy.sd - 0.01) < 1e-12);
    }
    // The plot: per band a lower, an upper (filled to the lower) and a mean curve.
    QCOMPARE(view.plot()->graphCount(), 6);
    const auto* mean = view.plot()->graph(2);
    QVERIFY(std::abs(mean->data()->at(0)->value - sweep_loss(bands[0].value, 2, 0)) < 1e-12);
    QVERIFY(view.plot()->graph(1)->channelFillGraph() == view.plot()->graph(0));
    QVERIFY(mean->name().contains("3 finished") && (bands[0].value != "fp16" || mean->name().contains("1 diverged")));
    // The grid: a row per run, coloured by outcome.
    const auto* grid = view.grid()->model();
    QCOMPARE(grid->rowCount(), 8);
    const auto column = [&](const QString& header) {
      for (int c = 0; c < grid->columnCount(); ++c)
        if (grid->headerData(c, Qt::Horizontal).toString() == header) return c;
      return -1;
    };
    const int outcome_column = column("outcome"), seed_column = column("seed");
    QVERIFY(outcome_column >= 0 && seed_column >= 0);
    int diverged_rows = 0;
    for (int r = 0; r < grid->rowCount(); ++r) {
      const auto cell = grid->index(r, outcome_column);
      const auto status = rundb::parse_run_status(cell.data().toString().toStdString());
      QVERIFY(status.has_value());
      QCOMPARE(cell.data(Qt::BackgroundRole).value<QColor>(), comparison_grid::outcome_color(*status));
      if (*status == rundb::run_status::diverged) ++diverged_rows;
    }
    QCOMPARE(diverged_rows, 1);
    QVERIFY(comparison_grid::outcome_color(rundb::run_status::diverged) !=
            comparison_grid::outcome_color(rundb::run_status::finished));
    // Rows come in the order written until a header is clicked.
    QCOMPARE(grid->index(0, 0).data().toString(), QString("bf16-s1 (#1)"));
    QCOMPARE(grid->index(7, outcome_column).data().toString(), QString("failed"));
  }

  // Sorting compares numbers as numbers (seed 10 after seed 9), and a
  // double-click opens the run under the cursor, however the grid is sorted.
  void comparison_grid_sorts_numbers_as_numbers() {
    const auto file = dir_ / "seeds.db";
    {
      rundb::writer w(file);
      for (const int seed : {10, 9, 100, 2}) write_point(w, "bf16", seed, rundb::run_status::finished);
    }
    comparison_view view;
    QSignalSpy loaded(&view, &comparison_view::loaded);
    view.set_files({QString::fromStdString(file.string())});
    QVERIFY(wait_loaded(loaded));
    const auto* grid = view.grid()->model();
    int seed_column = -1, loss_column = -1;
    for (int c = 0; c < grid->columnCount(); ++c) {
      if (grid->headerData(c, Qt::Horizontal).toString() == "seed") seed_column = c;
      if (grid->headerData(c, Qt::Horizontal).toString() == "final loss") loss_column = c;
    }
    QVERIFY(seed_column >= 0 && loss_column >= 0);
    view.grid()->sortByColumn(seed_column, Qt::AscendingOrder);
    QStringList seeds;
    for (int r = 0; r < grid->rowCount(); ++r) seeds << grid->index(r, seed_column).data().toString();
    QCOMPARE(seeds, (QStringList{"2", "9", "10", "100"}));
    // Final loss = 0.5 + 0.1 seed + 1/20 grows with the seed, so descending loss is descending seed.
    view.grid()->sortByColumn(loss_column, Qt::DescendingOrder);
    QCOMPARE(grid->index(0, seed_column).data().toString(), QString("100"));
    QCOMPARE(grid->index(3, seed_column).data().toString(), QString("2"));
    QSignalSpy activated(&view, &comparison_view::run_activated);
    emit view.grid()->doubleClicked(grid->index(0, 0));
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.front().front().value<run_ref>().id, std::int64_t{3});  // seed 100, the third run written
  }

  void comparison_reads_one_file_per_point_like_a_merged_one() {
    comparison_view view;
    QSignalSpy loaded(&view, &comparison_view::loaded);
    view.set_group_key("precision");
    view.set_files(split_);
    QVERIFY(wait_loaded(loaded));
    QCOMPARE(view.data().runs.size(), std::size_t{6});
    QVERIFY(view.data().runs.front().run.label.contains("bf16.db"));  // several files: labels name them
    QCOMPARE(view.bands().size(), std::size_t{2});
    for (const auto& band : view.bands()) {
      QCOMPARE(band.finished, std::size_t{3});
      QVERIFY(std::abs(band.mean.back() - sweep_loss(band.value, 2, sweep_steps - 1)) < 1e-12);
    }
    // Grouping by seed: three groups of two precisions each, grouped on the
    // worker, so the bands change only once it hands them back.
    QSignalSpy grouped(&view, &comparison_view::grouped);
    view.set_group_key("seed");
    QCOMPARE(view.bands().size(), std::size_t{2});
    QVERIFY(grouped.wait(20000));
    QCOMPARE(view.group_key(), QString("seed"));
    QCOMPARE(view.bands().size(), std::size_t{3});
    const auto& seed1 = view.bands().front();
    QCOMPARE(seed1.value, std::string("1"));
    // bf16 and fp16 at seed 1: offsets 0.5 and 1.0, so mean +0.75 and sd 0.5 / sqrt(2).
    QVERIFY(std::abs(seed1.mean[0] - (0.75 + 0.1 + 1.0)) < 1e-12);
    QVERIFY(std::abs(seed1.sd[0] - 0.5 / std::sqrt(2.0)) < 1e-12);
  }

  // A load tells how far it has come: per file, the runs read of the runs
  // there; the view's bar is shown from the request until the load is done.
  void comparison_shows_its_progress_while_loading() {
    load_progress by_hand;
    by_hand.files = 2;
    by_hand.file = 1;
    by_hand.runs = 4;
    by_hand.runs_read = 1;
    QCOMPARE(by_hand.permille(), 625);  // (1 file + 1/4 of the second) / 2 files
    by_hand.file = 0;
    by_hand.runs = 0;  // the file is being opened: none of it read yet
    QCOMPARE(by_hand.permille(), 0);

    load_progress progress;
    const interrupt_flag no_interrupt{false};
    const auto data = load_comparison(split_, comparison_view::max_points, no_interrupt, &progress);
    QCOMPARE(data.runs.size(), std::size_t{6});
    QCOMPARE(progress.files.load(), 2);
    QCOMPARE(progress.file.load(), 1);
    QCOMPARE(progress.runs.load(), std::size_t{3});
    QCOMPARE(progress.runs_read.load(), std::size_t{3});
    QCOMPARE(progress.permille(), 1000);

    comparison_view view;
    QSignalSpy loaded(&view, &comparison_view::loaded);
    QVERIFY(view.progress_bar()->isHidden());
    view.set_files({merged_});
    QVERIFY(!view.progress_bar()->isHidden());  // at once, before the worker reads anything
    QVERIFY(wait_loaded(loaded));
    QTRY_VERIFY(view.progress_bar()->isHidden());
  }

  // The key changes while other files load: the runs grouped at the end are
  // the new files' runs, by the new key, whatever order the workers finish in.
  void comparison_regroups_what_a_load_brings_by_the_key_chosen_meanwhile() {
    comparison_view view;
    QSignalSpy loaded(&view, &comparison_view::loaded);
    view.set_files({merged_});
    QVERIFY(wait_loaded(loaded));
    QCOMPARE(view.group_key(), QString("precision"));
    view.set_files(split_);        // starts the load on the worker...
    view.set_group_key("seed");    // ...and regroups the merged file's runs meanwhile
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 2 && !view.queries()->busy() && !view.grouping_queries()->busy(), 20000);
    QCOMPARE(view.data().runs.size(), std::size_t{6});
    QCOMPARE(view.group_key(), QString("seed"));
    // The split files' seeds 1..3, two precisions each (the merged file's would be 5 bands).
    QCOMPARE(view.bands().size(), std::size_t{3});
    for (const auto& band : view.bands()) QCOMPARE(band.members.size(), std::size_t{2});
    QVERIFY(view.plot()->graph(2)->name().startsWith("seed = 1"));
  }

  void scales_view_plots_amax_against_the_scale() {
    scales_view view;
    QSignalSpy loaded(&view, &scales_view::loaded);
    view.set_run({scaled_, 1, "fp8"});
    view.show_at("fc", "weight", 5);
    QVERIFY(wait_loaded(loaded));
    QCOMPARE(view.data().layer, std::string("fc"));
    QCOMPARE(view.amax_graphs().size(), std::size_t{1});
    QCOMPARE(view.amax_graphs()[0]->dataCount(), static_cast<int>(scaled_steps));
    QCOMPARE(view.limit_graphs()[0]->dataCount(), static_cast<int>(scaled_steps));
    for (int s = 0; s < static_cast<int>(scaled_steps); ++s) {
      QCOMPARE(view.amax_graphs()[0]->data()->at(s)->value, std::ldexp(1.0, s));
      QCOMPARE(view.limit_graphs()[0]->data()->at(s)->value, 448.0 * std::ldexp(1.0, s - 8));  // E4M3 max 448
    }
    QCOMPARE(view.saturation_marks()->dataCount(), 2);
    QCOMPARE(view.saturation_marks()->data()->at(0)->key, 3.0);
    QCOMPARE(view.saturation_marks()->data()->at(1)->key, 7.0);
    // The chosen step's block-scale histogram: one block in binade 5 - 9 = -4.
    QCOMPARE(view.detail().records.size(), std::size_t{1});
    QCOMPARE(view.detail().records.front().step, std::int64_t{5});
    QCOMPARE(view.scale_bars().size(), std::size_t{1});
    const auto* bars = view.scale_bars().front();
    double blocks = 0, at = 0;
    for (int i = 0; i < bars->dataCount(); ++i) {
      blocks += bars->data()->at(i)->value;
      if (bars->data()->at(i)->value > 0) at = bars->data()->at(i)->key;
    }
    QCOMPARE(blocks, 1.0);
    QCOMPARE(at, -4 + 0.5);
    QVERIFY(view.caption().contains("fp8-tensor"));
  }

  // Hover values on the Scales and Compare curves, as on the Overview's.
  void scales_and_comparison_curves_show_hover_values() {
    scales_view scales;
    scales.resize(1000, 700);
    scales.show();
    QSignalSpy scales_loaded(&scales, &scales_view::loaded);
    scales.set_run({scaled_, 1, "fp8"});
    scales.show_at("fc", "weight", 5);
    QVERIFY(wait_loaded(scales_loaded));
    scales.plot()->replot();
    // Step 7: amax 2^7, limit 448 * 2^-1, and it saturated.
    const QString amax = scales.hover_text(gui_test::pixel_at(scales.plot()->axisRect(0), 7, 128));
    QVERIFY2(amax.contains("amax — step 7: 128") && amax.contains("largest representable") &&
                 amax.contains("step 7: 224") && amax.contains("saturated (overflow) steps — step 7"),
             qPrintable(amax));
    // Step 5 did not saturate: the marks of steps 3 and 7 are too far to list.
    QVERIFY2(!scales.hover_text(gui_test::pixel_at(scales.plot()->axisRect(0), 5, 32)).contains("saturated"), "step 5");

    comparison_view compare;
    compare.resize(1000, 700);
    compare.show();
    QSignalSpy compared(&compare, &comparison_view::loaded);
    compare.set_files({merged_});
    QVERIFY(wait_loaded(compared));
    compare.plot()->replot();
    const auto& band = compare.bands().front();
    const QString loss = compare.hover_text(gui_test::pixel_at(compare.plot()->axisRect(), band.steps[3], band.mean[3]));
    QVERIFY2(loss.startsWith(QString("precision = %1 — accuracy").arg(QString::fromStdString(band.value))) &&
                 loss.contains(QString("step %1, mean loss: %2").arg(band.steps[3]).arg(band.mean[3], 0, 'g', 4)),
             qPrintable(loss));
  }

  // Each GEMM role is a series of its own: forward and dgrad records of one
  // step once came out as one line zigzagging between them.
  void scales_view_draws_one_series_per_gemm_role() {
    scales_view view;
    QSignalSpy loaded(&view, &scales_view::loaded);
    view.set_run({scaled_, 1, "fp8"});
    view.show_at("nv", "weight", 5);
    QVERIFY(wait_loaded(loaded));
    QCOMPARE(view.data().ops, (std::vector<std::string>{"forward", "dgrad"}));
    QCOMPARE(view.amax_graphs().size(), std::size_t{2});
    QCOMPARE(view.limit_graphs().size(), std::size_t{2});
    for (std::size_t op = 0; op < 2; ++op) {
      QCOMPARE(view.amax_graphs()[op]->dataCount(), static_cast<int>(scaled_steps));
      QCOMPARE(view.limit_graphs()[op]->dataCount(), static_cast<int>(scaled_steps));
      for (int s = 0; s < static_cast<int>(scaled_steps); ++s) {
        QCOMPARE(view.amax_graphs()[op]->data()->at(s)->value, std::ldexp(1.0, s + static_cast<int>(op)));
        // NVFP4: tensor scale x 448 (largest UE4M3 block scale) x 6 (largest E2M1 element).
        QCOMPARE(view.limit_graphs()[op]->data()->at(s)->value, 6.0 * 448.0 * std::ldexp(1.0, s - 4));
      }
    }
    // The chosen step's histogram: a bar series per GEMM role.
    QCOMPARE(view.detail().records.size(), std::size_t{2});
    QCOMPARE(view.scale_bars().size(), std::size_t{2});
    QCOMPARE(view.scale_bars()[1]->data()->at(1)->value, 64.0);  // dgrad: 64 blocks in binade -20
    QCOMPARE(view.scale_bars()[0]->data()->at(2)->value, 4.0);   // forward: 4 in binade -19
    QCOMPARE(view.scale_bars()[0]->data()->at(0)->value, 0.0);   // its 5 zero scales counted apart
    QCOMPARE(view.detail().zero_blocks, (std::vector<std::uint64_t>{5, 0}));
    QVERIFY(view.caption().contains("5 all-zero blocks (scale 0)"));
    QVERIFY(view.caption().contains("forward:"));
    QVERIFY(view.caption().contains("dgrad:"));
  }

  // MX all-zero blocks get E8M0's smallest scale, 2^-127: counted apart, not
  // drawn 118 binades left of the others.
  void scales_view_counts_all_zero_mx_blocks_apart() {
    scales_view view;
    QSignalSpy loaded(&view, &scales_view::loaded);
    view.set_run({scaled_, 1, "fp8"});
    view.show_at("mx", "weight", 5);
    QVERIFY(wait_loaded(loaded));
    QCOMPARE(view.detail().zero_blocks, (std::vector<std::uint64_t>{7}));
    const auto* bars = view.scale_bars().at(0);
    double blocks = 0;
    for (int i = 0; i < bars->dataCount(); ++i) blocks += bars->data()->at(i)->value;
    QCOMPARE(blocks, 32.0);
    const auto range = bars->keyAxis()->range();
    QVERIFY(range.lower > -20 && range.upper < 0);
    QVERIFY(view.caption().contains("7 all-zero blocks (scale 2^-127"));
  }

  void scales_map_shows_block_underflow() {
    scales_view view;
    QSignalSpy loaded(view.underflow_map(), &map_view::loaded);
    view.set_run({scaled_, 1, "fp8"});
    QVERIFY(wait_loaded(loaded));
    const auto& grid = view.underflow_map()->grid();
    QCOMPARE(grid.layers.size(), std::size_t{3});
    QCOMPARE(grid.steps.size(), static_cast<std::size_t>(scaled_steps));
    const auto fc = static_cast<std::size_t>(std::find(grid.layers.begin(), grid.layers.end(), "fc") - grid.layers.begin());
    for (std::size_t s = 0; s < grid.steps.size(); ++s) QCOMPARE(grid.at(fc, s), 10.0 * static_cast<double>(s) / 1000.0);
    // The largest fraction is drawn in colour, not white like the background
    // (real runs showed their worst cells as if empty), and no colour of the
    // scale is the grey of a cell with no data.
    const auto* map = view.underflow_map()->color_map();
    const QCPRange range = map->dataRange();
    QCOMPARE(range.upper, 0.09);
    QVERIFY(QColor(map->gradient().color(range.upper, range)) != QColor(Qt::white));
    const auto no_data = QColor(map->gradient().color(std::nan(""), range));
    QCOMPARE(no_data, no_data_color());
    for (int i = 0; i <= 100; ++i)
      QVERIFY(QColor(map->gradient().color(range.lower + range.size() * i / 100.0, range)) != no_data);
  }

  void histograms_get_the_scaled_band() {
    histogram_view view;
    QSignalSpy loaded(&view, &histogram_view::loaded);
    view.set_run({scaled_, 1, "fp8"});
    view.show_at("fc", "weight", 5);
    QVERIFY(wait_loaded(loaded));
    QCOMPARE(view.data().scaled_format, std::string("fp8-tensor"));
    const auto& band = view.data().scaled_bands.at(view.data().selected);
    QVERIFY(band.has_value());
    // E4M3: smallest subnormal 2^-9, largest 448; scale 2^(5-8).
    QCOMPARE(band->low, -9.0 - 3.0);
    QCOMPARE(band->high, std::log2(448.0) - 3.0);
    // MXFP8: block scales in binades -9 and -8, so 2^-9 * 2^-9 up to 448 * 2^-7.
    view.show_at("mx", "weight", 5);
    QVERIFY(loaded.wait(20000));
    const auto& mx = view.data().scaled_bands.at(view.data().selected);
    QVERIFY(mx.has_value());
    QCOMPARE(mx->low, -18.0);  // the all-zero blocks' 2^-127 left out
    QCOMPARE(mx->high, std::log2(448.0) - 7.0);
    // NVFP4: block scales (tensor scale included) in binades -20 and -19, so
    // E2M1's 2^-1 * 2^-20 up to 6 * 2^-18, not the tensor scale's range alone.
    view.show_at("nv", "weight", 5);
    QVERIFY(loaded.wait(20000));
    const auto& nv = view.data().scaled_bands.at(view.data().selected);
    QVERIFY(nv.has_value());
    QCOMPARE(nv->low, -21.0);
    QCOMPARE(nv->high, std::log2(6.0) - 18.0);
  }

 private:
  rundb_test::scratch_dir dir_{"gui-sweep"};
  QString merged_, scaled_;
  QStringList split_;
};

QTEST_MAIN(sweep_views_test)
#include "sweep_views_test.moc"
