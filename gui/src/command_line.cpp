// numlab-gui's command line; see command_line.hpp.
#include "command_line.hpp"

#include <QCommandLineParser>

namespace numlab_gui {

command parse_command_line(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      "Viewer of numlab run databases: problems summary, losses, loss scales, overflow maps, histograms.");
  const QCommandLineOption help_option({"h", "help"}, "Show this help and exit.");
  parser.addOption(help_option);
  parser.addPositionalArgument("files", "Run databases to open.", "[RUN.db...]");
  const QCommandLineOption screenshot("screenshot", "Render one view to FILE.png and exit (no display needed).",
                                      "FILE.png");
  const QCommandLineOption view("view", "View to render: " + screenshot_views().join(", ") + ".", "VIEW", "overview");
  const QCommandLineOption step("step", "Step to show (histograms) or mark (overview).", "N");
  const QCommandLineOption run("run", "Run id to render (default: the file's first run); the overview compares "
                               "several, ID,ID,...", "ID");
  const QCommandLineOption layer("layer", "Layer to show (histograms).", "LAYER");
  const QCommandLineOption role("role", "Tensor role to show (map, histograms).", "ROLE");
  const QCommandLineOption metric("metric", "Map colour: " + screenshot_metrics().join(", ") + ".", "METRIC");
  const QCommandLineOption group_by("group-by", "Sweep key the comparison groups runs by (default: the first "
                                    "coordinate that varies).", "KEY");
  const QCommandLineOption size("size", "Screenshot size, WIDTHxHEIGHT (default 1280x800).", "WxH");
  parser.addOptions({screenshot, view, step, run, layer, role, metric, group_by, size});
  if (!parser.parse(arguments)) return usage_error{parser.errorText()};
  if (parser.isSet(help_option)) return print_and_exit{parser.helpText()};

  const QStringList files = parser.positionalArguments();
  if (!parser.isSet(screenshot)) {
    for (const auto& option : {view, step, run, layer, role, metric, group_by, size}) {
      if (parser.isSet(option)) return usage_error{"--" + option.names().front() + " needs --screenshot"};
    }
    return open_window{files};
  }
  const bool comparison = parser.value(view) == "comparison";
  if (files.isEmpty() || (files.size() > 1 && !comparison))
    return usage_error{"--screenshot needs exactly one run database (the comparison view takes several)"};
  if (parser.isSet(group_by) && !comparison) return usage_error{"--group-by needs --view comparison"};
  screenshot_request request;
  request.database = files.front();
  request.more_databases = files.mid(1);
  request.group_by = parser.value(group_by);
  request.output = parser.value(screenshot);
  request.view = parser.value(view);
  request.layer = parser.value(layer);
  request.role = parser.value(role);
  request.metric = parser.value(metric);
  bool ok = true;
  if (parser.isSet(step)) {
    request.step = parser.value(step).toLongLong(&ok);
    if (!ok) return usage_error{"--step expects an integer, got '" + parser.value(step) + "'"};
  }
  if (parser.isSet(run)) {
    for (const QString& id : parser.value(run).split(',')) {
      request.runs.push_back(id.toLongLong(&ok));
      if (!ok) return usage_error{"--run expects integers separated by commas, got '" + parser.value(run) + "'"};
    }
  }
  if (parser.isSet(size)) {
    const QStringList parts = parser.value(size).split('x');
    const int w = parts.value(0).toInt(), h = parts.value(1).toInt();
    if (parts.size() != 2 || w < 200 || h < 150) return usage_error{"--size expects WIDTHxHEIGHT, e.g. 1280x800"};
    request.size = QSize(w, h);
  }
  return request;
}

}  // namespace numlab_gui
