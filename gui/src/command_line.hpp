// numlab-gui's command line, parsed before any QApplication exists so that
// --help, --version and bad options work without a display.
#pragma once

#include <QString>
#include <QStringList>

#include <variant>

#include "screenshot.hpp"

namespace numlab_gui {

/// Print `text` to stdout and exit 0 (--help, --version).
struct print_and_exit {
  QString text;
};
/// Print `message` to stderr and exit 2.
struct usage_error {
  QString message;
};
/// Open the main window on these files.
struct open_window {
  QStringList files;
};

/// What the command line asks for.
using command = std::variant<print_and_exit, usage_error, open_window, screenshot_request>;

/// Parses `arguments` (argv, program name first). Needs only a
/// QCoreApplication (for QCommandLineParser), never a display.
command parse_command_line(const QStringList& arguments);

}  // namespace numlab_gui
