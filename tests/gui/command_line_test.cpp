// numlab-gui's command line: --help and bad options need no display (the
// command line is parsed before any QApplication); --screenshot renders
// without one; --layer picks the histogram's layer and names a missing one;
// a step past the end is said, not silently replaced.
#include <QImage>
#include <QProcess>
#include <QTest>

#include "../rundb/sample_database.hpp"
#include "command_line.hpp"

using namespace numlab_gui;

class command_line_test : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    database_ = path("sample.db");
    rundb_test::write_sample(dir_ / "sample.db");
  }

  void help_works_without_a_display() {
    const auto result = run_gui({"--help"});
    QCOMPARE(result.code, 0);
    QVERIFY2(result.out.contains("--screenshot") && result.out.contains("--layer"), qPrintable(result.out));
  }

  void a_bad_option_fails_clearly_without_a_display() {
    auto result = run_gui({"--no-such-option"});
    QCOMPARE(result.code, 2);
    QVERIFY2(result.err.contains("numlab-gui: Unknown option 'no-such-option'"), qPrintable(result.err));
    result = run_gui({"--layer", "fc", database_});
    QCOMPARE(result.code, 2);
    QVERIFY2(result.err.contains("--layer needs --screenshot"), qPrintable(result.err));
  }

  void parsing_needs_no_application() {
    const auto parsed = parse_command_line({"numlab-gui", "--screenshot", "x.png", "--view", "histograms", "--layer",
                                            "conv2", "--step", "12", "--size", "640x480", "run.db"});
    const auto* request = std::get_if<screenshot_request>(&parsed);
    QVERIFY(request != nullptr);
    QCOMPARE(request->layer, QString("conv2"));
    QCOMPARE(request->step, std::optional<std::int64_t>(12));
    QCOMPARE(request->size, QSize(640, 480));
    QCOMPARE(request->database, QString("run.db"));
    QVERIFY(std::holds_alternative<usage_error>(parse_command_line({"numlab-gui", "--screenshot", "x.png", "--step",
                                                                    "twelve", "run.db"})));
    QVERIFY(std::holds_alternative<open_window>(parse_command_line({"numlab-gui", "a.db", "b.db"})));
  }

  void screenshot_renders_the_asked_layer_without_a_display() {
    const QString png = path("conv2.png");
    const auto result = run_gui({"--screenshot", png, "--view", "histograms", "--layer", "conv2", "--step", "20",
                                 "--size", "1024x640", database_});
    QVERIFY2(result.code == 0, qPrintable(result.err));
    QCOMPARE(QImage(png).size(), QSize(1024, 640));
    QVERIFY2(!result.err.contains("note:"), qPrintable(result.err));
  }

  void a_missing_layer_is_named() {
    const auto result = run_gui({"--screenshot", path("x.png"), "--view", "histograms", "--layer", "conv9", database_});
    QCOMPARE(result.code, 2);
    QVERIFY2(result.err.contains("no layer 'conv9'") && result.err.contains("conv1, conv2, fc"), qPrintable(result.err));
    QVERIFY(!QFileInfo::exists(path("x.png")));
  }

  void a_step_past_the_end_is_said() {
    const auto result = run_gui({"--screenshot", path("late.png"), "--view", "histograms", "--layer", "fc", "--step",
                                 "5000", database_});
    QCOMPARE(result.code, 0);
    // The sample records statistics every 5 steps up to step 45.
    QVERIFY2(result.err.contains("note: step 5000 is past the last recorded step 45"), qPrintable(result.err));
  }

 private:
  struct outcome {
    int code = -1;
    QString out, err;
  };

  QString path(const QString& name) const { return QString::fromStdString((dir_ / name.toStdString()).string()); }

  // Runs numlab-gui with no display at all: no X server, no platform override.
  static outcome run_gui(const QStringList& arguments) {
    QProcess gui;
    auto environment = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) environment.remove(name);
    gui.setProcessEnvironment(environment);
    gui.start(NUMLAB_GUI_BINARY, arguments);
    if (!gui.waitForFinished(120000)) return {};
    return {gui.exitStatus() == QProcess::NormalExit ? gui.exitCode() : -1,
            QString::fromLocal8Bit(gui.readAllStandardOutput()), QString::fromLocal8Bit(gui.readAllStandardError())};
  }

  rundb_test::scratch_dir dir_{"gui-command-line"};
  QString database_;
};

QTEST_GUILESS_MAIN(command_line_test)
#include "command_line_test.moc"
