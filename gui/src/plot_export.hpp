// Saving plots as PNG or PDF, for every view's "Export" action.
#pragma once

#include <QString>

class QCustomPlot;
class QWidget;

namespace numlab_gui {

/// Saves `plot` to `file` as PDF when the name ends in .pdf, else as PNG, at
/// the plot's current size. Returns an empty string or the error message.
QString save_plot(QCustomPlot& plot, const QString& file);

/// Asks for a file name (PNG or PDF) and saves `plot` there, reporting failure in a message box.
void export_plot_interactively(QCustomPlot& plot, QWidget* parent, const QString& suggested_name);

}  // namespace numlab_gui
