// QtTest of numlab-gui's views on a small database written by the test
// (tests/rundb/sample_database.hpp): what the views show must equal what
// the database holds, read back independently through rundb::reader.
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <qcustomplot.h>

#include <sqlite3.h>

#include <algorithm>
#include <cmath>

#include "../rundb/sample_database.hpp"
#include "rundb/errors.hpp"
#include "events_view.hpp"
#include "histogram_view.hpp"
#include "live_watcher.hpp"
#include "main_window.hpp"
#include "problems_view.hpp"
#include "map_view.hpp"
#include "overview_view.hpp"
#include "plot_export.hpp"
#include "run_queries.hpp"
#include "rundb_older_versions.hpp"
#include "runs_view.hpp"
#include "swamping_view.hpp"

using namespace numlab_gui;

class views_test : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName("numlab-tests");  // keep the user's settings out of it
    QCoreApplication::setApplicationName("views_test");
    file_ = QString::fromStdString((dir_ / "sample.db").string());
    baseline_ = {file_, rundb_test::write_sample(dir_ / "sample.db"), "baseline"};
    second_ = {file_, baseline_.id + 1, "second"};
  }

  void map_cells_equal_the_database() {
    map_view view;
    QSignalSpy loaded(&view, &map_view::loaded);
    view.set_metric(map_metric::overflow);
    view.set_role("grad_weight");
    view.set_run(baseline_);
    QVERIFY(loaded.wait(10000));
    rundb::reader db(file_.toStdString());
    const auto layers = db.layers(baseline_.id);
    const auto steps = db.stats_steps(baseline_.id, "grad_weight");
    QCOMPARE(view.grid().layers.size(), layers.size());
    QCOMPARE(view.grid().steps.size(), steps.size());
    for (const auto& r : db.tensor_stats({.run = baseline_.id, .role = "grad_weight"})) {
      const auto l = static_cast<std::size_t>(std::find(layers.begin(), layers.end(), r.layer) - layers.begin());
      const auto c = static_cast<std::size_t>(std::find(steps.begin(), steps.end(), r.step) - steps.begin());
      const double expected = static_cast<double>(r.overflows) / static_cast<double>(r.count);
      QCOMPARE(view.cell_value(l, c), expected);
      // And against the formula the database was written with.
      QCOMPARE(view.cell_value(l, c), static_cast<double>(rundb_test::sample_overflows(r.step, l)) / 1000.0);
    }
    view.set_metric(map_metric::underflow);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(view.cell_value(2, 3), 4.0 / 1000.0);  // fc: underflows = 2 * layer index
  }

  // A run without dynamic loss scaling skips no step: its overflow of
  // values already inf (counted as infs, not in the overflow fraction the
  // map colours by) was marked nowhere on the map.
  void map_marks_every_overflow_event() {
    const auto file = dir_ / "infs.db";
    {
      rundb::writer w(file);
      const auto id = w.begin_run({.name = "infs", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
      for (std::int64_t s = 0; s < 6; ++s) {
        w.add_step({.run = id, .step = s, .loss = 1.0});
        w.add_tensor_stats({.run = id, .step = s, .layer = "fc", .op = "dense", .role = "grad_weight",
                            .format = "binary16", .count = 100, .infs = s == 3 ? 10u : 0u});
        if (s == 3) w.add_event({id, s, rundb::event_kind::overflow, "fc", "10 inf in grad_weight"});
      }
      w.finish_run(id, rundb::run_status::finished);
    }
    map_view view;
    QSignalSpy loaded(&view, &map_view::loaded);
    view.set_metric(map_metric::overflow);
    view.set_run({QString::fromStdString(file.string()), 1, "infs"});
    QVERIFY(loaded.wait(10000));
    QCOMPARE(view.cell_value(0, 3), 0.0);  // no finite value overflowed
    QCOMPARE(view.skip_marks()->dataCount(), 0);
    QCOMPARE(view.overflow_marks()->dataCount(), 1);
    QCOMPARE(view.overflow_marks()->data()->at(0)->key, 3.0);
  }

  void histogram_shows_the_stored_bins() {
    histogram_view view;
    QSignalSpy loaded(&view, &histogram_view::loaded);
    view.set_run(baseline_);
    view.show_at("conv2", "grad_weight", 12);  // latest recorded step <= 12 is 10
    QVERIFY(loaded.wait(10000));
    QCOMPARE(view.shown_step(), std::int64_t{10});
    const auto stored = rundb::reader(file_.toStdString()).histogram(baseline_.id, "conv2", "grad_weight", 12);
    QVERIFY(stored.has_value());
    const auto bars = view.bar_values();
    QCOMPARE(bars.size(), stored->hist.bins.size());
    for (std::size_t i = 0; i < bars.size(); ++i) QCOMPARE(bars[i], static_cast<double>(stored->hist.bins[i]));
    // The slider moves through steps without another query.
    auto* slider = view.findChild<QSlider*>();
    QVERIFY(slider != nullptr);
    slider->setValue(0);
    QCOMPARE(view.shown_step(), std::int64_t{0});
    const auto first = rundb_test::sample_bins(0, 1);
    QCOMPARE(view.bar_values(), std::vector<double>(first.begin(), first.end()));
    QCOMPARE(loaded.count(), 1);
  }

  // A long run (more steps than the waterfall has columns) in a schema v4
  // file: the view loads the selected record alone and the waterfall from
  // the summed histograms; both must equal what the records hold.
  void long_run_histograms_read_the_summaries() {
    const auto file = dir_ / "long.db";
    QProcess synth;
    synth.start(RUNDB_SYNTH_BINARY, {QString::fromStdString(file.string()), "--steps", "2100", "--layers", "2",
                                     "--stats-every", "1"});
    QVERIFY(synth.waitForFinished(120000));
    QCOMPARE(synth.exitCode(), 0);
    rundb::reader db(file);
    const auto run = db.runs().front().id;
    const std::string layer = db.layers(run).back();
    histogram_view view;
    QSignalSpy loaded(&view, &histogram_view::loaded);
    view.set_run({QString::fromStdString(file.string()), run, "long"});
    view.show_at(QString::fromStdString(layer), "grad_weight", 1000);
    QVERIFY(loaded.wait(30000));
    const auto& data = view.data();
    QCOMPARE(data.steps, db.stats_steps(run, "grad_weight", layer));
    QCOMPARE(data.history.size(), std::size_t{1});  // the selected record only
    QCOMPARE(view.shown_step(), std::int64_t{1000});
    const auto records = db.tensor_stats({.run = run, .layer = layer, .role = "grad_weight", .with_histograms = true});
    const auto bins_at = [&](std::int64_t step) {
      const auto r = std::find_if(records.begin(), records.end(), [&](const auto& t) { return t.step == step; });
      return std::vector<double>(r->hist.bins.begin(), r->hist.bins.end());
    };
    QCOMPARE(view.bar_values(), bins_at(1000));
    // Each column is one 32-step bucket here (66 of them): log10(1 + mean count per step) per bin.
    QCOMPARE(data.waterfall_columns, std::size_t{66});
    const std::size_t column = 1000 / 32, rows = data.waterfall_rows;
    QCOMPARE(data.waterfall_starts.at(column), std::int64_t{column * 32});
    const auto& first = records.front().hist;
    QCOMPARE(data.waterfall_first_exponent, first.first_exponent);
    QCOMPARE(rows, first.bins.size());
    for (std::size_t bin = 0; bin < rows; ++bin) {
      double sum = 0;
      for (const auto& r : records)
        if (r.step / 32 == static_cast<std::int64_t>(column)) sum += static_cast<double>(r.hist.bins[bin]);
      QCOMPARE(data.waterfall[column * rows + bin], std::log10(1.0 + sum / 32.0));
    }
    // The slider loads the record it reaches.
    auto* slider = view.findChild<QSlider*>();
    slider->setValue(5);
    QVERIFY(loaded.wait(30000));
    QCOMPARE(view.shown_step(), data.steps[5]);
    QCOMPARE(view.bar_values(), bins_at(data.steps[5]));
  }

  void overview_compares_two_runs() {
    overview_view view;
    QSignalSpy loaded(&view, &overview_view::loaded);
    view.set_runs({baseline_, second_});
    QVERIFY(loaded.wait(10000));
    QCOMPARE(view.series().size(), std::size_t{2});
    QVERIFY(view.loss_graph(0) != nullptr && view.loss_graph(1) != nullptr);
    QCOMPARE(view.loss_graph(0)->dataCount(), static_cast<int>(rundb_test::sample_steps));
    QCOMPARE(view.loss_graph(1)->dataCount(), 5);
    for (int i = 0; i < view.loss_graph(0)->dataCount(); ++i) {
      const auto point = view.loss_graph(0)->data()->at(i);
      QCOMPARE(point->value, rundb_test::sample_loss(static_cast<std::int64_t>(point->key)));
    }
    QCOMPARE(view.loss_graph(1)->data()->at(3)->value, 1.0);
    QCOMPARE(view.series()[0].skipped.size(), std::size_t{2});  // steps 16 and 33 marked
    int skipped_markers = 0;
    for (int g = 0; g < view.plot()->graphCount(); ++g) {
      if (view.plot()->graph(g)->name().endsWith("skipped steps")) skipped_markers += view.plot()->graph(g)->dataCount();
    }
    QCOMPARE(skipped_markers, 2);
  }

  void swamping_and_events_match_the_database() {
    swamping_view swamping;
    QSignalSpy swamping_loaded(&swamping, &swamping_view::loaded);
    swamping.set_run(baseline_);
    QVERIFY(swamping_loaded.wait(10000));
    QCOMPARE(swamping.data().layers.size(), std::size_t{3});
    QCOMPARE(swamping.data().layers[2].swamped.at(4), 20.0 / 1000.0);  // fc: 10 * layer index of 1000
    // The newest |δ|/ulp(w) histogram of each layer is the one stored at the last stats step.
    const auto newest = rundb_test::sample_steps - rundb_test::sample_stats_every;
    QCOMPARE(swamping.data().layers[1].ulp_ratio_step, newest);
    QCOMPARE(swamping.data().layers[1].ulp_ratio.bins, rundb_test::sample_ulp_ratio_bins(newest, 1));

    events_view events;
    QSignalSpy events_loaded(&events, &events_view::loaded);
    events.set_run(baseline_);
    QVERIFY(events_loaded.wait(10000));
    QCOMPARE(events.table()->rowCount(), 3);
    QCOMPARE(events.table()->item(0, 0)->text(), QString("16"));
    QCOMPARE(events.table()->item(2, 3)->text(), QString("epsilon not representable"));
  }

  void clicking_a_map_cell_opens_that_histogram() {
    main_window window;
    QSignalSpy map_loaded(window.map(), &map_view::loaded);
    QSignalSpy histogram_loaded(window.histograms(), &histogram_view::loaded);
    window.tabs()->setCurrentWidget(window.map());
    window.open_file(file_);
    QVERIFY(map_loaded.wait(10000));
    window.map()->activate_cell(0, 6);  // conv1 at the 7th recorded step (30)
    QVERIFY(histogram_loaded.wait(10000));
    QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(window.histograms()));
    QCOMPARE(window.histograms()->shown_step(), std::int64_t{30});
    const auto bins = rundb_test::sample_bins(30, 0);
    QCOMPARE(window.histograms()->bar_values(), std::vector<double>(bins.begin(), bins.end()));
  }

  void events_jump_to_the_histogram_and_files_are_remembered() {
    QSettings().remove("files/recent");
    main_window window;
    QSignalSpy events_loaded(window.events(), &events_view::loaded);
    QSignalSpy histogram_loaded(window.histograms(), &histogram_view::loaded);
    window.tabs()->setCurrentWidget(window.events());
    window.open_file(file_);
    QVERIFY(events_loaded.wait(10000));
    // Row 0: the step skipped at 16 because of conv2.
    emit window.events()->table()->cellDoubleClicked(0, 1);
    QVERIFY(histogram_loaded.wait(10000));
    QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(window.histograms()));
    QCOMPARE(window.histograms()->data().layer, std::string("conv2"));
    QCOMPARE(window.histograms()->shown_step(), std::int64_t{15});  // newest recorded step <= 16
    QCOMPARE(QSettings().value("files/recent").toStringList().value(0), QFileInfo(file_).absoluteFilePath());
  }

  void bad_files_show_a_clear_message() {
    rundb_test::write_file(dir_ / "notes.db", "this is not a database, just some words in a file\n");
    const QString notes = QString::fromStdString((dir_ / "notes.db").string());
    runs_view view;
    QSignalSpy failed(&view, &runs_view::failed);
    view.open_file(notes);
    QVERIFY(failed.wait(10000));
    QVERIFY(failed.at(0).at(0).toString().contains("notes.db"));
    QVERIFY(failed.at(0).at(0).toString().contains("not a numlab run database"));
    QVERIFY(view.error_text().contains("notes.db"));
    view.open_file(QString::fromStdString((dir_ / "missing.db").string()));
    QVERIFY(failed.wait(10000));
    QVERIFY(failed.at(1).at(0).toString().contains("no such file"));
  }

  void plots_export_to_png_and_pdf() {
    overview_view view;
    QSignalSpy loaded(&view, &overview_view::loaded);
    view.set_runs({baseline_});
    QVERIFY(loaded.wait(10000));
    view.resize(800, 600);
    for (const char* name : {"overview.png", "overview.pdf"}) {
      const QString out = QString::fromStdString((dir_ / name).string());
      QCOMPARE(save_plot(*view.plot(), out), QString());
      QVERIFY(QFileInfo(out).size() > 1000);
    }
    QVERIFY(!save_plot(*view.plot(), "/nonexistent-dir/x.png").isEmpty());
  }

  // The Problems tab's underflow ranking of a version 3 file and of the same
  // run with schema v4's summaries: the same five sites in the same order
  // (ties broken by layer order, then role name) and the same worst step,
  // the one whose summed records underflow most (not the worst lone record).
  void underflow_ranking_is_the_same_from_a_version_3_file() {
    const auto v4 = dir_ / "ranking.db";
    const auto v3 = dir_ / "ranking-v3.db";
    const auto id = write_ranking_run(v4);
    std::filesystem::copy_file(v4, v3);
    rundb_test::downgrade_to_version3(v3);
    const interrupt_flag running{false};
    const auto from_summaries = load_underflow_ranking({QString::fromStdString(v4.string()), id, "v4"}, running);
    const auto from_records = load_underflow_ranking({QString::fromStdString(v3.string()), id, "v3"}, running);
    const std::vector<std::pair<std::string, std::string>> want{
        {"hot", "grad_weight"}, {"layer0", "activation"}, {"layer0", "grad_weight"},
        {"layer1", "activation"}, {"layer1", "grad_weight"}};
    for (const auto* ranking : {&from_summaries, &from_records}) {
      std::vector<std::pair<std::string, std::string>> got;
      for (const auto& t : ranking->worst) got.emplace_back(t.layer, t.role);
      QCOMPARE(got, want);
      QVERIFY(ranking->worst_step.has_value());
      QCOMPARE(ranking->worst_step->step, std::int64_t{5});  // 30 of 100; step 2's 50 of 100 + 0 of 900 sum to 5%
      QCOMPARE(ranking->worst_step->what, std::string("30 of 100 values underflowed to zero"));
    }
  }

  // Defect 1's WAL growth: with every view loaded and the window left open,
  // no read transaction is left behind, so a writer's checkpoint can move the
  // whole WAL into the database and truncate it (SQLite answers busy while
  // any reader still holds an older snapshot).
  void open_views_hold_no_read_transaction() {
    const auto file = dir_ / "checkpoint.db";
    rundb_test::write_sample(file);
    const QString name = QString::fromStdString(file.string());
    main_window window;
    window.open_file(name);
    for (QWidget* view : std::initializer_list<QWidget*>{window.problems(), window.overview(), window.map(),
                                                        window.histograms(), window.swamping(), window.events()}) {
      window.tabs()->setCurrentWidget(view);
      QTRY_VERIFY_WITH_TIMEOUT(!window.loading(), 20000);
    }
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(file.c_str(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "BEGIN IMMEDIATE; INSERT INTO meta(key, value) VALUES ('checkpoint_test', '1'); COMMIT;",
                          nullptr, nullptr, nullptr), SQLITE_OK);
    int busy = -1, log = -1, moved = -1;
    sqlite3_stmt* checkpoint = nullptr;
    QCOMPARE(sqlite3_prepare_v2(db, "PRAGMA wal_checkpoint(TRUNCATE)", -1, &checkpoint, nullptr), SQLITE_OK);
    QCOMPARE(sqlite3_step(checkpoint), SQLITE_ROW);
    busy = sqlite3_column_int(checkpoint, 0);
    log = sqlite3_column_int(checkpoint, 1);
    moved = sqlite3_column_int(checkpoint, 2);
    sqlite3_finalize(checkpoint);
    sqlite3_close(db);
    QVERIFY2(busy == 0 && log == moved, qPrintable(QString("busy %1, %2 of %3 frames moved").arg(busy).arg(moved).arg(log)));
    QCOMPARE(QFileInfo(name + "-wal").size(), qint64{0});
  }

  void live_refresh_picks_up_rows_from_another_process() {
    const auto live = dir_ / "live.db";
    const QString live_file = QString::fromStdString(live.string());
    QProcess writer;
    writer.start(RUNDB_SYNTH_BINARY, {live_file, "--steps", "100000", "--layers", "2", "--stats-every", "5",
                                      "--delay-ms", "20", "--leave-running"});
    QVERIFY(writer.waitForStarted(10000));
    // Wait until the other process has created the run and a first step.
    QTRY_VERIFY_WITH_TIMEOUT(has_steps(live), 10000);

    main_window window;
    window.watcher()->set_interval(100);
    QSignalSpy overview_loaded(window.overview(), &overview_view::loaded);
    window.tabs()->setCurrentWidget(window.overview());
    window.open_file(live_file);
    QVERIFY(overview_loaded.wait(10000));
    const auto first_count = window.overview()->series().at(0).total_steps;
    QTRY_VERIFY_WITH_TIMEOUT(window.overview()->series().at(0).total_steps > first_count + 10, 15000);
    QCOMPARE(window.live_state(), QString("● live"));
    writer.kill();
    writer.waitForFinished(5000);
  }

 private:
  static bool has_steps(const std::filesystem::path& file) {
    try {
      rundb::reader db(file);
      const auto runs = db.runs();
      return !runs.empty() && db.step_count(runs.front().id) > 0;
    } catch (const rundb::error&) {
      return false;  // not created yet
    }
  }

  // 40 steps (enough for the one-column map to come from schema v4's
  // summaries) of 20 layers x 2 roles, every record 10 of 100 values
  // underflowing (all tied), then layer "hot"'s grad_weight: 20 of 100 at
  // most steps, 30 of 100 at step 5, and at step 2 two records, 50 of 100
  // and 0 of 900. Roles written out of name order.
  static rundb::run_id write_ranking_run(const std::filesystem::path& file) {
    rundb::writer w(file);
    const auto id = w.begin_run({.name = "ranking", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
    const auto add = [&](std::int64_t step, const std::string& layer, const char* role, std::uint64_t under,
                         std::uint64_t count) {
      w.add_tensor_stats({.run = id, .step = step, .layer = layer, .op = "matmul", .role = role,
                          .format = "binary16", .count = count, .underflows = under});
    };
    for (std::int64_t step = 0; step < 40; ++step) {
      for (int l = 0; l < 20; ++l)
        for (const char* role : {"grad_weight", "activation"}) add(step, "layer" + std::to_string(l), role, 10, 100);
      if (step == 2) {
        add(step, "hot", "grad_weight", 50, 100);
        add(step, "hot", "grad_weight", 0, 900);
      } else {
        add(step, "hot", "grad_weight", step == 5 ? 30 : 20, 100);
      }
    }
    w.finish_run(id, rundb::run_status::finished);
    return id;
  }

  rundb_test::scratch_dir dir_{"gui-views"};
  QString file_;
  run_ref baseline_, second_;
};

QTEST_MAIN(views_test)
#include "views_test.moc"
