// PNG/PDF export of plots.
#include "plot_export.hpp"

#include <QFileDialog>
#include <QMessageBox>
#include <qcustomplot.h>

namespace numlab_gui {

QString save_plot(QCustomPlot& plot, const QString& file) {
  const int width = std::max(plot.width(), 640);
  const int height = std::max(plot.height(), 400);
  const bool pdf = file.endsWith(".pdf", Qt::CaseInsensitive);
  const bool saved = pdf ? plot.savePdf(file, width, height) : plot.savePng(file, width, height);
  return saved ? QString() : QString("could not write %1").arg(file);
}

void export_plot_interactively(QCustomPlot& plot, QWidget* parent, const QString& suggested_name) {
  const QString file = QFileDialog::getSaveFileName(parent, "Export plot", suggested_name,
                                                    "PNG image (*.png);;PDF document (*.pdf)");
  if (file.isEmpty()) return;
  const QString error = save_plot(plot, file);
  if (!error.isEmpty()) QMessageBox::warning(parent, "Export failed", error);
}

}  // namespace numlab_gui
