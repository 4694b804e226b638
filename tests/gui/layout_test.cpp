// Text on the plots stays whole however small the window or deep the zoom:
// in every view, the tick labels of each vertical axis keep apart and each
// axis label fits along its axis (the colour bar's "fraction of values" ran
// past the window's top, "ction of values"); the histogram's band labels ("underflow to 0", "subnormal", "normal fp16",
// "overflow", the scaled format's band) each lie inside the plot and inside
// their band's visible part, never overlapping, shortened or dropped when
// they do not fit. The old labels, centred on the whole band, were cut by
// the plot's edge ("ormal").
#include <QComboBox>
#include <QLayout>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <qcustomplot.h>

#include <cmath>
#include <vector>

#include "../rundb/sample_database.hpp"
#include "band_label.hpp"
#include "comparison_view.hpp"
#include "histogram_view.hpp"
#include "main_window.hpp"
#include "map_view.hpp"
#include "overview_view.hpp"
#include "runs_view.hpp"
#include "scales_view.hpp"
#include "swamping_view.hpp"
#include "trouble_database.hpp"

using namespace numlab_gui;

namespace {

// One fp16 run whose gradients carry a loss scale (the unscaled outline
// widens the x range to the left) and an FP8 per-tensor scale (the scaled
// band's label, a second row).
void write_scaled_run(const std::filesystem::path& file) {
  rundb::writer w(file);
  w.declare_format({"binary16", 11, -14, 15, true, true});
  const auto id = w.begin_run({.name = "scaled", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
  for (std::int64_t s = 0; s < 4; ++s) {
    w.add_step({.run = id, .step = s, .loss = 1.0, .loss_scale = 65536.0});
    rundb::tensor_stats_record t{.run = id, .step = s, .layer = "fc", .op = "dense", .role = "grad_weight",
                                 .format = "binary16", .count = 420};
    t.hist = {-24, std::vector<std::uint64_t>(42, 10)};
    w.add_tensor_stats(t);
    rundb::scale_stats_record scale{.run = id, .step = s, .layer = "fc", .op = "dense", .role = "grad_weight",
                                    .scaled_format = "fp8-tensor", .count = 420, .blocks = 1};
    scale.amax = 4.0;
    scale.scale = std::ldexp(1.0, -6);
    w.add_scale_stats(scale);
  }
  w.finish_run(id, rundb::run_status::finished);
}

struct drawn_text {
  QString text;
  QRectF rect;
  double row_top;
};

// Every visible text item of `plot` as drawn: QCPItemText's corner anchors
// give its box in pixels, measured as it paints itself.
std::vector<drawn_text> drawn_texts(QCustomPlot& plot) {
  std::vector<drawn_text> texts;
  for (int i = 0; i < plot.itemCount(); ++i) {
    auto* text = qobject_cast<QCPItemText*>(plot.item(i));
    if (text == nullptr || !text->visible() || text->text().isEmpty()) continue;
    const QRectF box(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition());
    texts.push_back({text->text(), box.normalized(), box.top()});
  }
  return texts;
}

// What is wrong with the texts drawn at this size and range; empty when nothing.
QString misplaced_texts(QCustomPlot& plot) {
  plot.replot();
  const QRectF area = plot.axisRect()->rect();
  const auto texts = drawn_texts(plot);
  for (const auto& t : texts) {
    // A pixel of slack for rounding between the anchors and the axis rect.
    if (!area.adjusted(-1, -1, 1, 1).contains(t.rect))
      return QString("'%1' at %2..%3 leaves the plot %4..%5")
          .arg(t.text).arg(t.rect.left()).arg(t.rect.right()).arg(area.left()).arg(area.right());
    for (const auto& other : texts) {
      if (&other != &t && other.rect.intersects(t.rect))
        return QString("'%1' overlaps '%2'").arg(t.text, other.text);
    }
  }
  return {};
}

// The text each band label shows, or an empty string when it is hidden.
QStringList shown_band_texts(QCustomPlot& plot) {
  QStringList shown;
  for (int i = 0; i < plot.itemCount(); ++i) {
    if (auto* label = qobject_cast<band_label*>(plot.item(i))) shown << (label->visible() ? label->text() : "");
  }
  return shown;
}

// Every axis of `plot`'s axis rects and colour scales.
std::vector<QCPAxis*> all_axes(QCustomPlot& plot) {
  std::vector<QCPAxis*> axes;
  for (QCPAxisRect* rect : plot.axisRects())
    for (QCPAxis* axis : rect->axes()) axes.push_back(axis);
  for (QCPLayoutElement* element : plot.plotLayout()->elements(true))
    if (auto* scale = qobject_cast<QCPColorScale*>(element)) axes.push_back(scale->axis());
  return axes;
}

// What is crowded or cut among the axes' text as drawn; empty when nothing.
QString crowded_axis_text(QCustomPlot& plot) {
  plot.replot();
  for (QCPAxis* axis : all_axes(plot)) {
    if (!axis->visible()) continue;
    const bool vertical = axis->orientation() == Qt::Vertical;
    const double length = vertical ? axis->axisRect()->height() : axis->axisRect()->width();
    const QFontMetrics label_metrics(axis->labelFont());
    if (label_metrics.horizontalAdvance(axis->label()) > length)
      return QString("axis label '%1' (%2 pixels) is longer than its axis (%3)")
          .arg(axis->label()).arg(label_metrics.horizontalAdvance(axis->label())).arg(length);
    if (!vertical || !axis->tickLabels()) continue;
    // Vertical tick labels lie one above the other: neighbours must not overlap.
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    const double height = QFontMetrics(axis->tickLabelFont()).height();
    std::vector<double> drawn;
    for (int i = 0; i < ticks.size(); ++i) {
      const double at = axis->coordToPixel(ticks[i]);
      if (!labels.value(i).isEmpty() && at >= axis->axisRect()->top() - 1 && at <= axis->axisRect()->bottom() + 1)
        drawn.push_back(at);
    }
    std::sort(drawn.begin(), drawn.end());
    for (std::size_t i = 1; i < drawn.size(); ++i) {
      if (drawn[i] - drawn[i - 1] < height)
        return QString("tick labels %1 pixels apart, %2 high, on axis '%3' (%4 pixels)")
            .arg(drawn[i] - drawn[i - 1]).arg(height).arg(axis->label()).arg(length);
    }
  }
  return {};
}

template <class View>
bool wait_loaded(View& view) {
  QSignalSpy loaded(&view, &View::loaded);
  return loaded.wait(20000);
}

}  // namespace

class layout_test : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    file_ = QString::fromStdString((dir_ / "scaled.db").string());
    write_scaled_run(dir_ / "scaled.db");
    trouble_ = QString::fromStdString((dir_ / "trouble.db").string());
    gui_test::write_trouble(dir_ / "trouble.db");
    sample_ = QString::fromStdString((dir_ / "sample.db").string());
    rundb_test::write_sample(dir_ / "sample.db");
  }

  void axis_text_keeps_apart_in_every_view_at_any_size() {
    overview_view overview;
    overview.set_runs({{trouble_, 1, "trouble"}});
    QVERIFY(wait_loaded(overview));
    swamping_view swamping;
    swamping.set_run({sample_, 1, "baseline"});
    QVERIFY(wait_loaded(swamping));
    QVERIFY(!swamping.data().layers.empty());
    map_view map;
    map.set_run({trouble_, 1, "trouble"});
    QVERIFY(wait_loaded(map));
    scales_view scales;
    scales.set_run({file_, 1, "scaled"});
    QVERIFY(wait_loaded(scales));
    histogram_view histograms;
    histograms.set_run({file_, 1, "scaled"});
    QVERIFY(wait_loaded(histograms));
    const std::vector<std::pair<QWidget*, std::vector<QCustomPlot*>>> views{
        {&overview, {overview.plot()}}, {&swamping, {swamping.plot()}}, {&map, {map.plot()}},
        {&scales, {scales.plot(), scales.underflow_map()->plot()}},
        {&histograms, {histograms.plot(), histograms.waterfall()}}};
    // Which axes show tick labels in a roomy window.
    const auto labelled_axes = [](const std::vector<QCustomPlot*>& plots) {
      std::vector<bool> labelled;
      for (QCustomPlot* plot : plots) {
        plot->replot();
        for (QCPAxis* axis : all_axes(*plot)) labelled.push_back(axis->tickLabels());
      }
      return labelled;
    };
    for (const auto& [widget, plots] : views) {
      widget->show();
      widget->resize(1280, 800);
      widget->layout()->activate();
      QCoreApplication::processEvents();
      const std::vector<bool> roomy = labelled_axes(plots);
      for (const QSize size : {QSize(1280, 800), QSize(900, 560), QSize(640, 400), QSize(480, 300)}) {
        widget->resize(size);
        widget->layout()->activate();
        QCoreApplication::processEvents();
        for (QCustomPlot* plot : plots) {
          if (!plot->isVisible()) continue;
          const QString crowded = crowded_axis_text(*plot);
          QVERIFY2(crowded.isEmpty(), qPrintable(QString("%1 at %2x%3: %4")
                                                     .arg(widget->metaObject()->className())
                                                     .arg(widget->width()).arg(widget->height()).arg(crowded)));
        }
      }
      // Tick labels hidden for want of room come back with the room.
      widget->resize(1280, 800);
      widget->layout()->activate();
      QCoreApplication::processEvents();
      QCOMPARE(labelled_axes(plots), roomy);
      widget->hide();
    }
    // The colour bars were laid out small while their views loaded unshown.
    QVERIFY(map.color_map()->colorScale()->axis()->tickLabels());
    QVERIFY(scales.underflow_map()->color_map()->colorScale()->axis()->tickLabels());
  }

  void histogram_band_labels_stay_whole_at_any_width_and_zoom() {
    histogram_view view;
    QSignalSpy loaded(&view, &histogram_view::loaded);
    view.set_run({file_, 1, "scaled"});
    QVERIFY(loaded.wait(10000));
    view.show();
    QCustomPlot& plot = *view.plot();
    const QCPRange opened = plot.xAxis->range();
    for (const int width : {1600, 1280, 900, 640, 480, 320}) {
      view.resize(width, 700);
      view.layout()->activate();
      plot.xAxis->setRange(opened);
      QVERIFY2(misplaced_texts(plot).isEmpty(), qPrintable(QString("width %1: ").arg(width) + misplaced_texts(plot)));
      // Zoomed so that bands reach past both edges: the underflow band's
      // centre, where the old label sat, is off the plot.
      for (const QCPRange zoom : {QCPRange(-30, -12), QCPRange(-23.5, -13.5), QCPRange(-16, 18), QCPRange(-60, 20)}) {
        plot.xAxis->setRange(zoom);
        QVERIFY2(misplaced_texts(plot).isEmpty(), qPrintable(QString("width %1, range %2..%3: ")
                                                                 .arg(width).arg(zoom.lower).arg(zoom.upper) +
                                                             misplaced_texts(plot)));
      }
    }
    // Wide, every band with room shows its full name; narrow, a shorter
    // form or nothing, never a cut one.
    view.resize(1600, 700);
    view.layout()->activate();
    plot.xAxis->setRange(-40, 20);
    plot.replot();
    const QStringList wide = shown_band_texts(plot);
    QVERIFY2(wide.contains("underflow to 0") && wide.contains("subnormal") && wide.contains("normal binary16") &&
                 wide.contains("overflow") && wide.contains("fp8-tensor at this step's scale"),
             qPrintable(wide.join(", ")));
    // 2^-24 .. 2^-14 is the subnormal band: zoomed so that 1.5 of its
    // binades show (50 pixels), the label shortens; to a sliver, it is dropped.
    plot.xAxis->setRange(-15.5, 30);
    plot.replot();
    QVERIFY2(shown_band_texts(plot).contains("subn."), qPrintable(shown_band_texts(plot).join(", ")));
    plot.xAxis->setRange(-14.05, 10);
    plot.replot();
    QVERIFY2(!shown_band_texts(plot).contains("subn.") && !shown_band_texts(plot).contains("subnormal"),
             qPrintable(shown_band_texts(plot).join(", ")));
  }

  // The main window narrows to 640 pixels on every tab: the Overview's
  // legend reflows into as many columns as the width holds (it held the
  // window at about 790 with four fixed columns), and no entry is cut.
  void the_window_narrows_to_640_pixels_on_every_tab() {
    QCoreApplication::setOrganizationName("numlab-tests");
    QCoreApplication::setApplicationName("layout_test");
    QSettings().remove("window/geometry");
    main_window window;
    window.show();
    QSignalSpy listed(window.runs(), &runs_view::file_loaded);
    window.tabs()->setCurrentWidget(window.overview());
    // Three runs with names as long as a sweep's: six legend entries (loss
    // and skipped steps) of about 330 pixels each.
    const auto long_names = dir_ / "long-names.db";
    for (const char* name : {"tutorial_conv_fp16_mixed_seed1", "tutorial_conv_fp16_mixed_seed2",
                             "tutorial_conv_fp16_mixed_seed3"})
      gui_test::write_trouble(long_names, name);
    const QString file = QString::fromStdString(long_names.string());
    window.open_file(file);
    QVERIFY(listed.wait(20000));
    QSignalSpy overview_loaded(window.overview(), &overview_view::loaded);
    window.runs()->select_runs({{file, 1, {}}, {file, 2, {}}, {file, 3, {}}});
    QVERIFY(overview_loaded.count() > 0 || overview_loaded.wait(20000));
    QCustomPlot& overview = *window.overview()->plot();
    overview.replot();
    int entries = 0;
    for (int i = 0; i < overview.legend->elementCount(); ++i) entries += overview.legend->item(i) != nullptr ? 1 : 0;
    QCOMPARE(entries, 6);
    // The Compare tab lists the file's runs too (its caption wraps).
    QSignalSpy compared(window.comparison(), &comparison_view::loaded);
    window.tabs()->setCurrentWidget(window.comparison());
    QVERIFY(compared.wait(20000));
    for (int tab = 0; tab < window.tabs()->count(); ++tab) {
      window.tabs()->setCurrentIndex(tab);
      QCoreApplication::processEvents();
      window.resize(640, 560);
      window.layout()->activate();
      QCoreApplication::processEvents();
      QVERIFY2(window.width() == 640, qPrintable(QString("tab %1 holds the window at %2 pixels (it asks for %3)")
                                                     .arg(window.tabs()->tabText(tab))
                                                     .arg(window.width())
                                                     .arg(window.minimumSizeHint().width())));
      window.resize(1280, 800);
      QCoreApplication::processEvents();
    }
    // At 640 the legend's entries lie inside the plot, side by side in fewer columns.
    window.tabs()->setCurrentWidget(window.overview());
    const auto legend_columns_and_fit = [&] {
      overview.replot();
      int right = 0;
      for (int i = 0; i < overview.legend->elementCount(); ++i)
        if (const auto* item = overview.legend->item(i)) right = std::max(right, item->outerRect().right());
      return std::pair{overview.legend->columnCount(), right <= overview.viewport().right() + 1};
    };
    window.resize(1280, 800);
    QCoreApplication::processEvents();
    const auto [wide_columns, wide_fits] = legend_columns_and_fit();
    window.resize(640, 560);
    QCoreApplication::processEvents();
    const auto [narrow_columns, narrow_fits] = legend_columns_and_fit();
    QVERIFY(wide_fits && narrow_fits);
    QVERIFY2(narrow_columns < wide_columns && narrow_columns >= 1,
             qPrintable(QString("%1 columns at 1280, %2 at 640").arg(wide_columns).arg(narrow_columns)));
    QSettings().remove("window/geometry");
  }

  // The role boxes were sized while empty, before their run loaded, and
  // showed "grad_we" of grad_weight: every picker shows its whole choice.
  void pickers_show_their_whole_text() {
    map_view map;
    histogram_view histograms;
    scales_view scales;
    for (QWidget* view : std::initializer_list<QWidget*>{&map, &histograms, &scales}) {
      view->resize(1280, 800);
      view->show();
    }
    QSignalSpy map_loaded(&map, &map_view::loaded), histograms_loaded(&histograms, &histogram_view::loaded),
        scales_loaded(&scales, &scales_view::loaded);
    map.set_run({sample_, 1, "baseline"});
    histograms.set_run({sample_, 1, "baseline"});
    scales.set_run({file_, 1, "scaled"});
    for (QSignalSpy* loaded : {&map_loaded, &histograms_loaded, &scales_loaded})
      QVERIFY(loaded->count() > 0 || loaded->wait(20000));
    for (QWidget* view : std::initializer_list<QWidget*>{&map, &histograms, &scales}) {
      view->layout()->activate();
      QCoreApplication::processEvents();
      for (const QComboBox* box : view->findChildren<QComboBox*>()) {
        if (!box->isVisible() || box->currentText().isEmpty()) continue;
        // The text plus the drop-down arrow's room.
        const int needed = box->fontMetrics().horizontalAdvance(box->currentText()) + 20;
        QVERIFY2(box->width() >= needed, qPrintable(QString("%1: '%2' in %3 of %4 pixels")
                                                        .arg(view->metaObject()->className(), box->currentText())
                                                        .arg(box->width()).arg(needed)));
      }
    }
  }

  // An export at another size than the window's lays the labels out for that size.
  void exports_at_another_size_fit_their_labels() {
    histogram_view view;
    QSignalSpy loaded(&view, &histogram_view::loaded);
    view.set_run({file_, 1, "scaled"});
    QVERIFY(loaded.wait(10000));
    view.resize(1280, 700);
    view.show();
    QCustomPlot& plot = *view.plot();
    plot.xAxis->setRange(-30, 20);
    plot.replot();
    QVERIFY(shown_band_texts(plot).contains("normal binary16"));
    // Checked while the export lays the plot out at 360 pixels (this slot
    // runs after the labels' own, connected when the view was built).
    QStringList during_export;
    QString misplaced_during_export;
    const auto check = QObject::connect(&plot, &QCustomPlot::afterLayout, [&] {
      if (plot.viewport().width() != 360) return;
      during_export = shown_band_texts(plot);
      const QRectF area = plot.axisRect()->rect();
      for (const auto& t : drawn_texts(plot))
        if (!area.adjusted(-1, -1, 1, 1).contains(t.rect)) misplaced_during_export += t.text + " ";
    });
    const QPixmap narrow = plot.toPixmap(360, 300);
    QObject::disconnect(check);
    QCOMPARE(narrow.width(), 360);
    QVERIFY2(during_export.contains("subn.") && !during_export.contains("subnormal"),
             qPrintable(during_export.join(", ")));
    QVERIFY2(misplaced_during_export.isEmpty(), qPrintable(misplaced_during_export));
    // Then laid out for the window again.
    plot.replot();
    QVERIFY(shown_band_texts(plot).contains("subnormal"));
  }

 private:
  rundb_test::scratch_dir dir_{"gui-layout"};
  QString file_, trouble_, sample_;
};

QTEST_MAIN(layout_test)
#include "layout_test.moc"
