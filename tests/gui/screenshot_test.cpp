// numlab-gui --screenshot renders every view to a non-trivial PNG; bad input
// fails cleanly; and a 100 000-step x 20-layer run's overview loads in under
// 2 s without blocking the UI thread for long.
#include <QElapsedTimer>
#include <QImage>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <qcustomplot.h>

#include <map>

#include "../rundb/sample_database.hpp"
#include "overview_view.hpp"

using namespace numlab_gui;

class screenshot_test : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    database_ = path("synthetic.db");
    QProcess synth;
    synth.start(RUNDB_SYNTH_BINARY, {database_, "--steps", "3000", "--layers", "6", "--stats-every", "10", "--runs", "2"});
    QVERIFY(synth.waitForFinished(120000));
    QCOMPARE(synth.exitCode(), 0);
  }

  void every_view_renders_a_non_trivial_png_data() {
    QTest::addColumn<QString>("view");
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("problems") << "problems" << QStringList{};
    QTest::newRow("overview") << "overview" << QStringList{"--step", "1500"};
    QTest::newRow("map") << "map" << QStringList{"--role", "activation"};
    QTest::newRow("histograms") << "histograms" << QStringList{"--step", "1200"};
    QTest::newRow("swamping") << "swamping" << QStringList{};
    QTest::newRow("events") << "events" << QStringList{"--run", "2"};
  }

  void every_view_renders_a_non_trivial_png() {
    QFETCH(QString, view);
    QFETCH(QStringList, extra);
    const QString png = path(view + ".png");
    const auto [code, errors] = run_gui(QStringList{"--screenshot", png, "--view", view} + extra + QStringList{database_});
    QVERIFY2(code == 0, qPrintable(errors));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(1280, 800));
    // Not blank: axes, grids and text are grey, so data shows up as coloured
    // (saturated) pixels; the events and problems views are text and must at
    // least not be a single colour.
    std::map<QRgb, int> colours;
    int saturated = 0, sampled = 0;
    for (int y = 0; y < image.height(); y += 2) {
      for (int x = 0; x < image.width(); x += 2) {
        const QColor pixel = image.pixelColor(x, y);
        ++colours[pixel.rgb()];
        if (pixel.hsvSaturationF() > 0.3 && pixel.valueF() > 0.15) ++saturated;
        ++sampled;
      }
    }
    int commonest = 0;
    for (const auto& [colour, count] : colours) commonest = std::max(commonest, count);
    qInfo("%s: %zu colours, commonest %.1f%%, coloured %.2f%%", qPrintable(view), colours.size(),
          100.0 * commonest / sampled, 100.0 * saturated / sampled);
    QVERIFY2(colours.size() > 30, qPrintable(QString("only %1 colours").arg(colours.size())));
    if (view == "events" || view == "problems") {
      QVERIFY2(commonest < sampled * 97 / 100, "one colour covers more than 97% of the image");
    } else {
      QVERIFY2(saturated > sampled / 200, qPrintable(QString("only %1 coloured pixels").arg(saturated)));
    }
  }

  void bad_input_fails_with_a_clear_message() {
    rundb_test::write_file(dir_ / "junk.db", std::string(5000, 'x'));
    auto [code, errors] = run_gui({"--screenshot", path("junk.png"), "--view", "map", path("junk.db")});
    QCOMPARE(code, 2);
    QVERIFY2(errors.contains("numlab-gui: ") && errors.contains("junk.db"), qPrintable(errors));
    QVERIFY(!QFileInfo::exists(path("junk.png")));
    std::tie(code, errors) = run_gui({"--screenshot", path("x.png"), "--view", "sideways", database_});
    QCOMPARE(code, 2);
    QVERIFY2(errors.contains("unknown view 'sideways'"), qPrintable(errors));
    std::tie(code, errors) = run_gui({"--screenshot", path("x.png"), "--view", "map", "--run", "99", database_});
    QCOMPARE(code, 2);
    QVERIFY2(errors.contains("no run with id 99"), qPrintable(errors));
  }

  void overview_of_100k_steps_by_20_layers_loads_in_under_2_s() {
    const QString big = path("big.db");
    QProcess synth;
    synth.start(RUNDB_SYNTH_BINARY, {big, "--steps", "100000", "--layers", "20", "--stats-every", "100"});
    QVERIFY(synth.waitForFinished(300000));
    QCOMPARE(synth.exitCode(), 0);

    overview_view view;
    view.resize(1280, 800);
    view.show();
    QSignalSpy loaded(&view, &overview_view::loaded);
    // Measure how long the UI thread goes without serving its event loop.
    QElapsedTimer since_tick;
    qint64 longest_block_ms = 0;
    QTimer ticker;
    ticker.setInterval(5);
    connect(&ticker, &QTimer::timeout, [&] {
      longest_block_ms = std::max(longest_block_ms, since_tick.restart());
    });
    QElapsedTimer clock;
    clock.start();
    since_tick.start();
    ticker.start();
    view.set_runs({run_ref{big, 1, "big"}});
    QVERIFY(loaded.wait(30000));
    view.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const qint64 elapsed_ms = clock.elapsed();
    ticker.stop();
    qInfo("overview of 100000 steps x 20 layers: shown in %lld ms, longest UI-thread block %lld ms",
          static_cast<long long>(elapsed_ms), static_cast<long long>(longest_block_ms));
    QCOMPARE(view.series().at(0).total_steps, std::int64_t{100000});
    QVERIFY(view.loss_graph(0)->dataCount() <= static_cast<int>(overview_view::max_points));
    QVERIFY(view.loss_graph(0)->dataCount() > 1000);
    QVERIFY2(elapsed_ms < 2000, qPrintable(QString("took %1 ms").arg(elapsed_ms)));
    QVERIFY2(longest_block_ms < 500, qPrintable(QString("UI thread blocked %1 ms").arg(longest_block_ms)));
  }

 private:
  QString path(const QString& name) const { return QString::fromStdString((dir_ / name.toStdString()).string()); }

  static std::pair<int, QString> run_gui(const QStringList& arguments) {
    QProcess gui;
    auto environment = QProcessEnvironment::systemEnvironment();
    environment.insert("QT_QPA_PLATFORM", "offscreen");
    gui.setProcessEnvironment(environment);
    gui.start(NUMLAB_GUI_BINARY, arguments);
    if (!gui.waitForFinished(120000)) return {-1, "numlab-gui did not finish"};
    return {gui.exitStatus() == QProcess::NormalExit ? gui.exitCode() : -1,
            QString::fromLocal8Bit(gui.readAllStandardError())};
  }

  rundb_test::scratch_dir dir_{"gui-screenshot"};
  QString database_;
};

QTEST_MAIN(screenshot_test)
#include "screenshot_test.moc"
