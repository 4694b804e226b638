// Saving plots as PNG or PDF, for every view's "Export" action.
#pragma once

#include <QString>

class QCustomPlot;
class QWidget;

namespace numlab_gui {

/// Saves `plot` to `file` as PDF when the name ends in .pdf, else as PNG, at
/// the plot's current size (at least 640x400), with `title` (run, view,
/// layer, role, step) drawn above it when not empty. Returns an empty string
/// or the error message. The plot on screen is left as it was.
QString save_plot(QCustomPlot& plot, const QString& file, const QString& title = {});

/// Asks for a file name (PNG or PDF) and saves `plot` there with `title`,
/// reporting failure in a message box.
void export_plot_interactively(QCustomPlot& plot, QWidget* parent, const QString& suggested_name,
                               const QString& title = {});

}  // namespace numlab_gui
