// PNG/PDF export of plots.
#include "plot_export.hpp"

#include <QFileDialog>
#include <QMessageBox>
#include <qcustomplot.h>

namespace numlab_gui {

QString save_plot(QCustomPlot& plot, const QString& file, const QString& title) {
  const int width = std::max(plot.width(), 640);
  const int height = std::max(plot.height(), 400);
  QCPTextElement* heading = nullptr;
  if (!title.isEmpty()) {
    // An exported file travels alone: it must say what it shows.
    plot.plotLayout()->insertRow(0);
    heading = new QCPTextElement(&plot, title, QFont(plot.font().family(), 11, QFont::Bold));
    plot.plotLayout()->addElement(0, 0, heading);
  }
  const bool pdf = file.endsWith(".pdf", Qt::CaseInsensitive);
  const bool saved = pdf ? plot.savePdf(file, width, height) : plot.savePng(file, width, height);
  if (heading != nullptr) {
    plot.plotLayout()->remove(heading);
    plot.plotLayout()->simplify();
    plot.replot();
  }
  return saved ? QString() : QString("could not write %1").arg(file);
}

void export_plot_interactively(QCustomPlot& plot, QWidget* parent, const QString& suggested_name,
                               const QString& title) {
  const QString file = QFileDialog::getSaveFileName(parent, "Export plot", suggested_name,
                                                    "PNG image (*.png);;PDF document (*.pdf)");
  if (file.isEmpty()) return;
  const QString error = save_plot(plot, file, title);
  if (!error.isEmpty()) QMessageBox::warning(parent, "Export failed", error);
}

}  // namespace numlab_gui
