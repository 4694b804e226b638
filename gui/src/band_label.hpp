// A label that names a band of a plot's x axis (a format's subnormal range,
// its normal range, ...) and stays whole at any width and zoom: after every
// layout it is centred on the part of the band that is on screen and shows
// the longest of its texts that fits there, or nothing (fit_text_on_layout
// in plot_fit.hpp calls fit()). A label centred on
// the whole band, as before, was cut by the plot's edge ("ormal") whenever
// the band reached past it.
#pragma once

#include <QStringList>
#include <qcustomplot.h>

namespace numlab_gui {

/// One band's label on `plot`'s x axis, in row `row` under the top of the
/// axis rect (row 0 first; rows keep labels of overlapping bands apart).
/// `texts` go longest first: the full name, then shorter forms.
class band_label : public QCPItemText {
  Q_OBJECT

 public:
  band_label(QCustomPlot* plot, double low, double high, QStringList texts, int row = 0);

  /// The band's edges on the x axis (plot coordinates).
  double low() const { return low_; }
  double high() const { return high_; }
  /// Every text it may show, longest first.
  const QStringList& texts() const { return texts_; }

  /// Picks the text and the place for the current axis range and rect; hides
  /// the label when not even its shortest text fits on the band's visible part.
  void fit();

 private:
  double low_, high_;
  QStringList texts_;
  int row_;
};

}  // namespace numlab_gui
