// Text on the plots that stays whole at any size. QCustomPlot lays text out
// for a fixed tick count and draws axis labels however long their axis: a
// short panel crowds its tick labels on top of each other, and a label longer
// than its axis runs past the plot's edge ("ction of values"). After every
// layout (a replot, a resize, an export at another size) this fits them to
// the room they have.
#pragma once

#include <QStringList>
#include <qcustomplot.h>

namespace numlab_gui {

/// Labels `axis` with the longest of `texts` (longest first) that fits along
/// it once laid out, or with none when not even the last fits.
void label_axis(QCPAxis& axis, QStringList texts);

/// After each layout of `plot`: every vertical axis gets as many ticks as its
/// height holds with room between their labels (at most the ticker's 5 for
/// numeric tickers; every name's for name_ticker), axes labelled with
/// label_axis take the text that fits, and band_labels fit their bands. The
/// layout is run again when a tick count or a label changed, so the margins
/// match what is drawn.
void fit_text_on_layout(QCustomPlot& plot);

/// Ticks labelled with names at the keys 0, 1, 2, ... (a map's layers),
/// thinned to every k-th name when the axis cannot hold them all.
class name_ticker : public QCPAxisTickerText {
 public:
  explicit name_ticker(const QStringList& names);

 protected:
  QVector<double> createTickVector(double tick_step, const QCPRange& range) override;
};

}  // namespace numlab_gui
