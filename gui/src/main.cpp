// numlab-gui: the desktop viewer of numlab run databases.
//
//   numlab-gui [RUN.db ...]
//   numlab-gui --screenshot FILE.png --view overview|map|histograms|swamping|events [--step N]
//              [--run ID] [--role ROLE] [--metric METRIC] [--size WxH] RUN.db
#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>

#include "main_window.hpp"
#include "screenshot.hpp"

namespace {

int fail(const QString& message) {
  std::fprintf(stderr, "numlab-gui: %s\n", qPrintable(message));
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("numlab");
  QApplication::setApplicationName("numlab-gui");
  qRegisterMetaType<numlab_gui::run_ref>();

  QCommandLineParser parser;
  parser.setApplicationDescription("Viewer of numlab run databases: losses, loss scales, overflow maps, histograms.");
  parser.addHelpOption();
  parser.addPositionalArgument("files", "Run databases to open.", "[RUN.db...]");
  const QCommandLineOption screenshot("screenshot", "Render one view to FILE.png and exit.", "FILE.png");
  const QCommandLineOption view("view", "View to render: " + numlab_gui::screenshot_views().join(", ") + ".", "VIEW",
                                "overview");
  const QCommandLineOption step("step", "Step to show (histograms) or mark (overview).", "N");
  const QCommandLineOption run("run", "Run id to render (default: the file's first run).", "ID");
  const QCommandLineOption role("role", "Tensor role to show (map, histograms).", "ROLE");
  const QCommandLineOption metric("metric", "Map colour: " + numlab_gui::screenshot_metrics().join(", ") + ".",
                                  "METRIC");
  const QCommandLineOption size("size", "Screenshot size, WIDTHxHEIGHT (default 1280x800).", "WxH");
  parser.addOptions({screenshot, view, step, run, role, metric, size});
  parser.process(app);

  const QStringList files = parser.positionalArguments();
  if (parser.isSet(screenshot)) {
    if (files.size() != 1) return fail("--screenshot needs exactly one run database");
    numlab_gui::screenshot_request request;
    request.database = files.front();
    request.output = parser.value(screenshot);
    request.view = parser.value(view);
    request.role = parser.value(role);
    request.metric = parser.value(metric);
    bool ok = true;
    if (parser.isSet(step)) {
      request.step = parser.value(step).toLongLong(&ok);
      if (!ok) return fail("--step expects an integer, got '" + parser.value(step) + "'");
    }
    if (parser.isSet(run)) {
      request.run = parser.value(run).toLongLong(&ok);
      if (!ok) return fail("--run expects an integer, got '" + parser.value(run) + "'");
    }
    if (parser.isSet(size)) {
      const QStringList parts = parser.value(size).split('x');
      const int w = parts.value(0).toInt(), h = parts.value(1).toInt();
      if (parts.size() != 2 || w < 200 || h < 150) return fail("--size expects WIDTHxHEIGHT, e.g. 1280x800");
      request.size = QSize(w, h);
    }
    const QString error = numlab_gui::render_screenshot(request);
    return error.isEmpty() ? 0 : fail(error);
  }

  numlab_gui::main_window window;
  for (const QString& file : files) window.open_file(file);
  window.show();
  return QApplication::exec();
}
