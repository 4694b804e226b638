// `numlab-gui --screenshot FILE.png --view NAME [--step N] RUN.db`: renders
// one view of one run (the comparison: of every run of the files given)
// off-screen into a PNG, for documentation and tests.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

namespace numlab_gui {

/// What to render.
struct screenshot_request {
  QString database;
  QStringList more_databases;          ///< comparison: further files compared with `database`
  QString output;                      ///< PNG file to write
  QString view;                        ///< one of screenshot_views()
  std::optional<std::int64_t> step;    ///< histograms: which step; overview: a marker
  std::vector<std::int64_t> runs;      ///< run ids (overview compares them all); the file's first run when empty
  QString layer;                       ///< histograms: layer (default: the first)
  QString role;                        ///< map, histograms: tensor role (default: grad_weight or the first)
  QString metric;                      ///< map: overflow, underflow, ..., block_underflow, saturated
  QString group_by;                    ///< comparison: the sweep key to group by (default: the first that varies)
  QSize size{1280, 800};
};

/// The views --view accepts.
QStringList screenshot_views();

/// The metrics --metric accepts, in map_metric order.
QStringList screenshot_metrics();

/// Renders the request. Returns an empty string on success, else the error
/// message (naming the file at fault); appends to `notes` what the user
/// should know about a success (e.g. a step past the end). Needs a QApplication.
QString render_screenshot(const screenshot_request& request, QStringList& notes);

}  // namespace numlab_gui
