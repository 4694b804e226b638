// The main window as a new user meets it: a sensible size, remembered; the
// Problems summary first, each problem one click from its histogram; only
// the tab on screen queries, with a busy indicator; exported plots titled.
#include <QImage>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTreeWidget>
#include <qcustomplot.h>

#include "../rundb/sample_database.hpp"
#include "histogram_view.hpp"
#include "main_window.hpp"
#include "map_view.hpp"
#include "overview_view.hpp"
#include "plot_export.hpp"
#include "problems_view.hpp"
#include "runs_view.hpp"
#include "trouble_database.hpp"

using namespace numlab_gui;

class window_test : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName("numlab-tests");
    QCoreApplication::setApplicationName("window_test");
    QSettings().clear();
    file_ = QString::fromStdString((dir_ / "trouble.db").string());
    gui_test::write_trouble(dir_ / "trouble.db");
  }

  void first_window_has_a_sensible_size_and_remembers_it() {
    QSettings().remove("window/geometry");
    QCOMPARE(main_window::default_size(QSize(1920, 1080)), QSize(1400, 900));
    QCOMPARE(main_window::default_size(QSize(1280, 800)), QSize(1152, 720));
    {
      main_window window;
      const QSize available = QGuiApplication::primaryScreen()->availableGeometry().size();
      QCOMPARE(window.size(), main_window::default_size(available));
      window.show();
      window.resize(700, 520);
      QTRY_COMPARE(window.size(), QSize(700, 520));
      window.close();
    }
    main_window again;
    QCOMPARE(again.size(), QSize(700, 520));
    QSettings().remove("window/geometry");
  }

  void first_screen_summarises_the_problems() {
    main_window window;
    QSignalSpy loaded(window.problems(), &problems_view::loaded);
    QSignalSpy ranked(window.problems(), &problems_view::ranking_loaded);
    window.open_file(file_);
    QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(window.problems()));
    QVERIFY(loaded.wait(10000));
    // The skipped step 7 comes before the overflow event at 12, though it was not traced.
    QVERIFY2(window.problems()->overflow_text().startsWith("step 7: "), qPrintable(window.problems()->overflow_text()));
    QVERIFY2(window.problems()->nan_text().startsWith("step 20, a (activation)"), qPrintable(window.problems()->nan_text()));
    QVERIFY2(window.problems()->skipped_text().startsWith("1 of 30 steps skipped"),
             qPrintable(window.problems()->skipped_text()));
    QTRY_VERIFY_WITH_TIMEOUT(ranked.count() == 1, 10000);
    // b/activation: 15 records (steps 0, 2, ..., 28), 14 with 10 underflows and one (step 24) with 50.
    const auto& worst = window.problems()->ranking().worst;
    QVERIFY(!worst.empty());
    QCOMPARE(worst.front().layer, std::string("b"));
    QCOMPARE(worst.front().role, std::string("activation"));
    QCOMPARE(worst.front().underflows, std::uint64_t{14 * 10 + 50});
    QCOMPARE(window.problems()->ranking().worst_step->step, std::int64_t{24});
    // The runs table counts the trouble too, the worst underflow included
    // (b / activation: 190 of 1500 values), which scans every statistics
    // row, so it waits until the Runs tab is shown.
    QTRY_VERIFY_WITH_TIMEOUT(window.runs()->tree()->topLevelItemCount() == 1, 10000);
    const auto run_column = [&](int column) { return window.runs()->tree()->topLevelItem(0)->child(0)->text(column); };
    QCOMPARE(window.runs()->tree()->headerItem()->text(7), QString("worst underflow"));
    QCOMPARE(run_column(4), QString("1"));  // skipped
    QCOMPARE(run_column(5), QString("1"));  // overflow events
    QCOMPARE(run_column(6), QString("1"));  // NaN events
    QTest::qWait(200);
    QCOMPARE(run_column(7), QString("..."));
    window.show();
    window.tabs()->setCurrentWidget(window.runs());
    QTRY_COMPARE_WITH_TIMEOUT(run_column(7), QString("12.7% (b / activation)"), 10000);
  }

  // The viewer opened on run 1, which had no events, while run 2 held the
  // trouble: it opens on the first run with any.
  void opens_on_the_first_run_with_trouble() {
    const auto file = dir_ / "clean-then-trouble.db";
    {
      rundb::writer w(file);
      const auto clean = w.begin_run({.name = "clean", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
      for (std::int64_t s = 0; s < 5; ++s) w.add_step({.run = clean, .step = s, .loss = 1.0});
      w.finish_run(clean, rundb::run_status::finished);
    }
    gui_test::write_trouble(file);
    main_window window;
    QSignalSpy loaded(window.problems(), &problems_view::loaded);
    window.open_file(QString::fromStdString(file.string()));
    QVERIFY(loaded.wait(10000));
    QCOMPARE(window.problems()->summary().run.id, rundb::run_id{2});
    QCOMPARE(window.runs()->selected_runs().value(0).id, rundb::run_id{2});
  }

  // Every problem is one click from the histogram that shows it: the
  // Problems tab's buttons, clicked.
  void each_problem_is_one_click_from_its_histogram() {
    main_window window;
    QSignalSpy loaded(window.problems(), &problems_view::loaded);
    QSignalSpy ranked(window.problems(), &problems_view::ranking_loaded);
    window.open_file(file_);
    QVERIFY(loaded.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(ranked.count() == 1, 10000);
    struct expected {
      const char* button;
      std::int64_t step;  // the newest recorded step at or before the problem's
      const char* layer;
      const char* role;   // empty: not checked
    };
    // The skipped step 7 (the first overflow too) was not traced: the
    // histogram of step 6, whose caption says so (go_to_first_overflow_... above).
    for (const expected& e : {expected{"overflow_histogram", 6, "", ""}, expected{"nan_histogram", 20, "a", "activation"},
                              expected{"skipped_histogram", 6, "", ""},
                              expected{"underflow_histogram", 24, "b", "activation"}}) {
      window.tabs()->setCurrentWidget(window.problems());
      auto* button = window.problems()->findChild<QPushButton*>(e.button);
      QVERIFY2(button != nullptr && button->isEnabled(), e.button);
      button->click();
      QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(window.histograms()));
      QTRY_VERIFY_WITH_TIMEOUT(window.histograms()->shown_step() == e.step && !window.histograms()->queries()->busy(),
                               10000);
      if (*e.layer != '\0') QCOMPARE(window.histograms()->data().layer, std::string(e.layer));
      if (*e.role != '\0') QCOMPARE(window.histograms()->data().role, std::string(e.role));
      if (e.step == 6) QVERIFY2(window.histograms()->caption().contains("step 7 has no statistics (not traced)"), e.button);
    }
  }

  void go_to_first_nan_opens_its_histogram() {
    main_window window;
    QSignalSpy loaded(window.problems(), &problems_view::loaded);
    window.open_file(file_);
    QVERIFY(loaded.wait(10000));
    QSignalSpy histogram_loaded(window.histograms(), &histogram_view::loaded);
    QVERIFY(window.problems()->go_to_first_nan());
    QCOMPARE(window.tabs()->currentWidget(), static_cast<QWidget*>(window.histograms()));
    QTRY_VERIFY_WITH_TIMEOUT(window.histograms()->shown_step() == 20 && !window.histograms()->queries()->busy(), 10000);
    QCOMPARE(window.histograms()->data().layer, std::string("a"));
    QCOMPARE(window.histograms()->data().role, std::string("activation"));
    const auto stored = rundb::reader(file_.toStdString()).histogram(1, "a", "activation", 20);
    QCOMPARE(window.histograms()->bar_values(),
             std::vector<double>(stored->hist.bins.begin(), stored->hist.bins.end()));
    QVERIFY2(window.plot_title().contains("trouble (#1, trouble.db)") && window.plot_title().contains("a / activation at step 20"),
             qPrintable(window.plot_title()));
  }

  void go_to_first_overflow_says_the_step_was_not_traced() {
    main_window window;
    QSignalSpy loaded(window.problems(), &problems_view::loaded);
    window.open_file(file_);
    QVERIFY(loaded.wait(10000));
    QVERIFY(window.problems()->go_to_first_overflow());
    QTRY_VERIFY_WITH_TIMEOUT(window.histograms()->shown_step() == 6 && !window.histograms()->queries()->busy(), 10000);
    QVERIFY2(window.histograms()->caption().contains("step 7 has no statistics (not traced)"),
             qPrintable(window.histograms()->caption()));
  }

  void only_the_tab_on_screen_loads_and_shows_a_busy_indicator() {
    main_window window;
    QSignalSpy loaded(window.problems(), &problems_view::loaded);
    window.open_file(file_);
    QVERIFY(loaded.wait(10000));
    QTRY_VERIFY_WITH_TIMEOUT(!window.loading(), 10000);
    QCOMPARE(window.map()->queries()->started(), 0);
    QCOMPARE(window.overview()->queries()->started(), 0);
    QCOMPARE(window.histograms()->queries()->started(), 0);
    QSignalSpy map_loaded(window.map(), &map_view::loaded);
    window.tabs()->setCurrentWidget(window.map());
    QVERIFY(window.loading());
    QVERIFY(map_loaded.wait(10000));
    QVERIFY(!window.loading());
    QCOMPARE(window.map()->queries()->started(), 1);
    QCOMPARE(window.overview()->queries()->started(), 0);
  }

  void exported_plots_carry_a_title() {
    histogram_view view;
    QSignalSpy loaded(&view, &histogram_view::loaded);
    view.set_run({file_, 1, "trouble"});
    view.show_at("b", "grad_weight", 12);
    QVERIFY(loaded.wait(10000));
    view.resize(800, 600);
    const QString plain = QString::fromStdString((dir_ / "plain.png").string());
    const QString titled = QString::fromStdString((dir_ / "titled.png").string());
    const int elements = view.plot()->plotLayout()->elementCount();
    QCOMPARE(save_plot(*view.plot(), plain), QString());
    QCOMPARE(save_plot(*view.plot(), titled, "Histograms — trouble — b / grad_weight at step 12"), QString());
    QCOMPARE(view.plot()->plotLayout()->elementCount(), elements);  // the view is left as it was
    const QImage a(plain), b(titled);
    QCOMPARE(a.size(), b.size());
    // The title's bold text fills the centre of the top band; the plain
    // export has the legend there, laid out from the left.
    const auto dark_in_centre = [](const QImage& image) {
      int dark = 0;
      for (int y = 0; y < 24; ++y)
        for (int x = image.width() * 2 / 5; x < image.width() * 3 / 5; ++x)
          dark += image.pixelColor(x, y).valueF() < 0.3 ? 1 : 0;
      return dark;
    };
    QVERIFY2(dark_in_centre(b) > dark_in_centre(a) + 50,
             qPrintable(QString("%1 vs %2").arg(dark_in_centre(b)).arg(dark_in_centre(a))));
  }

 private:
  rundb_test::scratch_dir dir_{"gui-window"};
  QString file_;
};

QTEST_MAIN(window_test)
#include "window_test.moc"
