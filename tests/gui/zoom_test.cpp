// One zoom tracker (user_zoom) for every view: a drag pans, the wheel zooms,
// a live refresh keeps either, a double-click goes back to the data's range,
// and on the map a click that did not move opens the cell while a drag does
// not. Overview, Swamping, Scales, Map and the waterfall keep a wheel's zoom
// in plots_test; these are the cases no test covered: the drag (every
// earlier check used the wheel), the histogram's own plot, and the map's
// click. The tracker is the same object in every view.
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <qcustomplot.h>

#include "../rundb/sample_database.hpp"
#include "histogram_view.hpp"
#include "map_view.hpp"
#include "plot_input.hpp"

using namespace numlab_gui;

namespace {

// A point of `rect` at fractions (fx, fy) of its width and height.
QPoint inside(QCPAxisRect* rect, double fx, double fy) {
  const QRect r = rect->rect();
  return {r.left() + static_cast<int>(fx * r.width()), r.top() + static_cast<int>(fy * r.height())};
}

}  // namespace

class zoom_test : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    sample_ = QString::fromStdString((dir_ / "sample.db").string());
    rundb_test::write_sample(dir_ / "sample.db");
  }

  // The histogram's own plot: the wheel zoomed it but no test said a live
  // refresh or a new step keeps that zoom, nor that a double-click resets it.
  void histogram_keeps_a_drag_through_live_refresh_and_steps_and_resets_on_double_click() {
    histogram_view view;
    view.resize(1000, 700);
    view.show();
    QSignalSpy loaded(&view, &histogram_view::loaded);
    view.set_run({sample_, 1, "baseline"});
    view.show_at("fc", "grad_weight", 20);
    QVERIFY(loaded.wait(10000));
    view.plot()->replot();
    auto* x = view.plot()->xAxis;
    const QCPRange full = x->range();
    gui_test::drag(view.plot(), inside(view.plot()->axisRect(), 0.6, 0.5), inside(view.plot()->axisRect(), 0.3, 0.5));
    const QCPRange panned = x->range();
    QVERIFY2(panned.lower > full.lower + 1, qPrintable(QString("the drag did not pan: %1").arg(panned.lower)));
    view.reload(reload_cause::live);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(x->range().lower, panned.lower);
    QCOMPARE(x->range().upper, panned.upper);
    view.step_field()->setValue(30);  // another step, no query: the pan stays
    QCOMPARE(view.shown_step(), std::int64_t{30});
    QCOMPARE(x->range().lower, panned.lower);
    view.step_field()->setValue(20);
    QCOMPARE(x->range().lower, panned.lower);
    QTest::mouseDClick(view.plot(), Qt::LeftButton, Qt::NoModifier, view.plot()->axisRect()->rect().center());
    QCOMPARE(x->range().lower, full.lower);
    QCOMPARE(x->range().upper, full.upper);
    // Another layer asked for fits its data again, even after a pan.
    gui_test::drag(view.plot(), inside(view.plot()->axisRect(), 0.6, 0.5), inside(view.plot()->axisRect(), 0.3, 0.5));
    QVERIFY(x->range().lower > full.lower + 1);
    view.show_at("fc", "grad_weight", 20);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(x->range().lower, full.lower);
  }

  // The map: a drag pans and is kept by a live refresh without opening a
  // histogram; a click that does not move opens the cell under it.
  void map_drag_pans_and_a_click_opens_the_cell() {
    map_view view;
    view.resize(1000, 700);
    view.show();
    QSignalSpy loaded(&view, &map_view::loaded);
    QSignalSpy opened(&view, &map_view::cell_activated);
    view.set_run({sample_, 1, "baseline"});
    QVERIFY(loaded.wait(10000));
    view.plot()->replot();
    auto* steps = view.plot()->xAxis;
    const QCPRange full = steps->range();
    gui_test::drag(view.plot(), inside(view.plot()->axisRect(), 0.3, 0.5), inside(view.plot()->axisRect(), 0.6, 0.5));
    const QCPRange panned = steps->range();
    QVERIFY2(panned.lower < full.lower - 0.5, qPrintable(QString("the drag did not pan: %1").arg(panned.lower)));
    QCOMPARE(opened.count(), 0);
    view.reload(reload_cause::live);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(steps->range().lower, panned.lower);
    QTest::mouseDClick(view.plot(), Qt::LeftButton, Qt::NoModifier, view.plot()->axisRect()->rect().center());
    QCOMPARE(steps->range().lower, full.lower);
    view.plot()->replot();
    // The first column (step 0) of the first layer row (conv1, at the bottom).
    const QPoint cell(static_cast<int>(steps->coordToPixel(0)), static_cast<int>(view.plot()->yAxis->coordToPixel(0)));
    gui_test::click(view.plot(), cell);
    QCOMPARE(opened.count(), 1);
    QCOMPARE(opened.at(0).at(0).toString(), QString("conv1"));
    QCOMPARE(opened.at(0).at(2).value<std::int64_t>(), std::int64_t{0});
  }

 private:
  rundb_test::scratch_dir dir_{"gui-zoom"};
  QString sample_;
};

QTEST_MAIN(zoom_test)
#include "zoom_test.moc"
