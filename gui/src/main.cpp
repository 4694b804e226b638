// numlab-gui: the desktop viewer of numlab run databases.
//
//   numlab-gui [RUN.db ...]
//   numlab-gui --screenshot FILE.png --view problems|overview|map|histograms|swamping|events
//              [--step N] [--run ID] [--layer LAYER] [--role ROLE] [--metric METRIC] [--size WxH] RUN.db
#include <QApplication>
#include <QCoreApplication>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "command_line.hpp"
#include "main_window.hpp"
#include "screenshot.hpp"

namespace {

int fail(const QString& message) {
  std::fprintf(stderr, "numlab-gui: %s\n", qPrintable(message));
  return 2;
}

// A screenshot needs no screen: without one, render off-screen instead of
// letting the xcb plugin abort.
void prefer_offscreen_without_display() {
  if (!qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) return;
  if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<numlab_gui::command> parsed;
  {
    // QCommandLineParser wants an application object; a core one needs no display.
    const QCoreApplication core(argc, argv);
    QCoreApplication::setApplicationName("numlab-gui");
    parsed = numlab_gui::parse_command_line(QCoreApplication::arguments());
  }
  if (const auto* print = std::get_if<numlab_gui::print_and_exit>(&*parsed)) {
    std::fputs(qPrintable(print->text), stdout);
    return 0;
  }
  if (const auto* error = std::get_if<numlab_gui::usage_error>(&*parsed)) return fail(error->message);

  const auto* request = std::get_if<numlab_gui::screenshot_request>(&*parsed);
  if (request != nullptr) prefer_offscreen_without_display();
  QApplication app(argc, argv);
  QApplication::setOrganizationName("numlab");
  QApplication::setApplicationName("numlab-gui");
  qRegisterMetaType<numlab_gui::run_ref>();
  if (request != nullptr) {
    QStringList notes;
    const QString error = numlab_gui::render_screenshot(*request, notes);
    for (const QString& note : notes) std::fprintf(stderr, "numlab-gui: note: %s\n", qPrintable(note));
    return error.isEmpty() ? 0 : fail(error);
  }

  numlab_gui::main_window window;
  for (const QString& file : std::get<numlab_gui::open_window>(*parsed).files) window.open_file(file);
  window.show();
  return QApplication::exec();
}
