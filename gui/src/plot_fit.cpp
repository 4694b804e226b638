// Fitting a plot's text to its room; see plot_fit.hpp.
#include "plot_fit.hpp"

#include <QFontMetrics>

#include <algorithm>
#include <cmath>

#include "band_label.hpp"

namespace numlab_gui {
namespace {

// The texts label_axis gave an axis, kept on the axis itself so that they
// live and die with it.
constexpr const char* axis_texts_property = "numlab_axis_texts";
// Marks an axis whose tick labels fit_ticks hid (and will show again).
constexpr const char* labels_hidden_property = "numlab_tick_labels_hidden";
// QCustomPlot's default tick count: numeric axes never get more than it.
constexpr int default_ticks = 5;
// Room per tick label along a vertical axis, in label heights.
constexpr double tick_room = 2.2;

bool is_vertical(const QCPAxis& axis) { return axis.orientation() == Qt::Vertical; }

// Sets the tick count `axis`'s length holds; true when it changed.
bool fit_ticks(QCPAxis& axis) {
  if (!is_vertical(axis) || axis.ticker().isNull()) return false;
  const double label_height = QFontMetrics(axis.tickLabelFont()).height();
  const int holds = static_cast<int>(axis.axisRect()->height() / (tick_room * label_height));
  // A numeric axis needs two ticks to be read; one name is a name. An axis
  // too short for that shows no tick labels rather than piled ones, until
  // it has the room again.
  const bool names = axis.ticker().dynamicCast<name_ticker>() != nullptr;
  const bool room = holds >= (names ? 1 : 2);
  bool changed = false;
  if (!room && axis.tickLabels()) {
    axis.setTickLabels(false);
    axis.setProperty(labels_hidden_property, true);
    changed = true;
  } else if (room && axis.property(labels_hidden_property).toBool()) {
    axis.setTickLabels(true);
    axis.setProperty(labels_hidden_property, false);
    changed = true;
  }
  const int ticks = names ? std::max(1, holds) : std::clamp(holds, 2, default_ticks);
  if (axis.ticker()->tickCount() == ticks) return changed;
  axis.ticker()->setTickCount(ticks);
  return true;
}

// Picks the label_axis text that fits `axis`; true when the label changed.
bool fit_label(QCPAxis& axis) {
  const QStringList texts = axis.property(axis_texts_property).toStringList();
  if (texts.isEmpty()) return false;
  const double length = is_vertical(axis) ? axis.axisRect()->height() : axis.axisRect()->width();
  const QFontMetrics metrics(axis.labelFont());
  const auto fits = std::find_if(texts.begin(), texts.end(),
                                 [&](const QString& text) { return metrics.horizontalAdvance(text) <= length; });
  const QString label = fits == texts.end() ? QString() : *fits;
  if (axis.label() == label) return false;
  axis.setLabel(label);
  return true;
}

}  // namespace

void label_axis(QCPAxis& axis, QStringList texts) {
  axis.setLabel(texts.value(0));
  axis.setProperty(axis_texts_property, texts);
}

void fit_text_on_layout(QCustomPlot& plot) {
  QObject::connect(&plot, &QCustomPlot::afterLayout, &plot, [&plot] {
    bool changed = false;
    // Both fits run on every axis, whatever the first returned.
    const auto fit = [&changed](QCPAxis& axis) {
      const bool ticks = fit_ticks(axis);
      const bool label = fit_label(axis);
      changed = changed || ticks || label;
    };
    for (QCPAxisRect* rect : plot.axisRects()) {
      for (QCPAxis* axis : rect->axes()) fit(*axis);
    }
    // Colour scales keep their axis in an axis rect of their own.
    for (QCPLayoutElement* element : plot.plotLayout()->elements(true)) {
      if (auto* scale = qobject_cast<QCPColorScale*>(element)) fit(*scale->axis());
    }
    if (changed) {
      // Once more with the new ticks and labels; the margins depend on them.
      plot.plotLayout()->update(QCPLayoutElement::upPreparation);
      plot.plotLayout()->update(QCPLayoutElement::upMargins);
      plot.plotLayout()->update(QCPLayoutElement::upLayout);
    }
    for (int i = 0; i < plot.itemCount(); ++i) {
      if (auto* label = qobject_cast<band_label*>(plot.item(i))) label->fit();
    }
  });
}

name_ticker::name_ticker(const QStringList& names) {
  for (int i = 0; i < names.size(); ++i) addTick(i, names[i]);
}

QVector<double> name_ticker::createTickVector(double tick_step, const QCPRange& range) {
  const QVector<double> all = QCPAxisTickerText::createTickVector(tick_step, range);
  const auto stride = static_cast<int>(std::ceil(static_cast<double>(all.size()) / std::max(1, tickCount())));
  if (stride <= 1) return all;
  QVector<double> thinned;
  for (int i = 0; i < all.size(); i += stride) thinned.push_back(all[i]);
  return thinned;
}

}  // namespace numlab_gui
