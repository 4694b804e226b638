// Colours, tickers and small helpers shared by the plots, so every view looks alike.
#pragma once

#include <QColor>
#include <QSharedPointer>
#include <QString>
#include <qcustomplot.h>

#include <QPoint>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace numlab_gui {

/// Colour of the i-th run when runs are compared (ten distinct, then repeating).
QColor run_color(std::size_t index);
/// Colour of the i-th layer in per-layer plots.
QColor layer_color(std::size_t index);
/// Qt text from a std::string.
inline QString qstr(const std::string& text) { return QString::fromStdString(text); }
/// `part` of `whole` as a percentage of three significant digits ("0%" of nothing).
QString percent(std::uint64_t part, std::uint64_t whole);

/// The colours of the maps' fractions: dark purple through red and orange to
/// yellow, like QCustomPlot's thermal scale but without its white top, so
/// that the largest fraction never looks like a cell with no data, which is
/// drawn light grey (NaN).
QCPColorGradient fraction_gradient();
/// The colour fraction_gradient() gives cells with no data.
QColor no_data_color();
/// Ticks of a log2 axis labelled 2^k (loss scales, magnitudes).
QSharedPointer<QCPAxisTicker> power_of_two_ticker();
/// Ticks of a log10 axis labelled 10^k, one per decade (counts).
QSharedPointer<QCPAxisTicker> power_of_ten_ticker();
/// Ticks of a step axis: integers only, however far one zooms in.
QSharedPointer<QCPAxisTicker> step_ticker();

/// Shows `text` as `plot`'s tooltip where `event` points, or hides the tooltip when `text` is empty.
void show_hover_text(QCustomPlot& plot, const QMouseEvent& event, const QString& text);
/// The (key, value) of `graph`'s data point nearest to `key`, if it has any.
std::optional<std::pair<double, double>> nearest_point(const QCPGraph* graph, double key);
/// Hover values of the curves of one axis rect: for each named graph whose
/// key axis lies in `rect`, its point nearest the cursor's key (within 20
/// pixels of it, so sparse markers far away stay out), one line
/// "name — KEY: value" with KEY from `key_text`, nearest the cursor's height
/// first, at most 12 lines. Empty when `pixel` is outside `rect`.
QString curve_values_at(const QCPAxisRect& rect, const QPoint& pixel, const std::function<QString(double key)>& key_text);
/// "step N", the key text of a step axis.
QString step_key_text(double key);

/// The narrowest a plot with a legend above lets its window become, in pixels.
inline constexpr int minimum_plot_width = 240;

/// Puts `plot`'s legend in a row of its own above the axis rects, so it
/// never covers data, its entries in as many columns as the plot's width
/// holds (re-counted after every layout); the legend no longer sets the
/// plot's minimum width (minimum_plot_width does).
void legend_above(QCustomPlot& plot);
/// The legend above (small type), wheel zoom and drag pan, and a
/// double-click that rescales every axis to the data.
void legend_above_with_zoom_reset(QCustomPlot& plot);

/// Whether the user zoomed or panned `plot` (the wheel, or a drag of more
/// than 3 pixels) since the view last chose its ranges, so that redraws (a
/// live refresh) keep what the user looks at. A double-click forgets it and
/// calls `reset`, which redraws on the data's ranges. Every view's zoom is
/// tracked by one of these.
class user_zoom : public QObject {
 public:
  user_zoom(QCustomPlot& plot, std::function<void()> reset);
  bool active() const { return active_; }
  /// The view chose new ranges (another run, layer or step asked for): the next redraw fits the data.
  void forget() { active_ = false; }
  /// Calls `clicked` on a left-button release without modifiers that did not
  /// move from its press: a click, which a drag (a pan) is not.
  void on_click(std::function<void(const QMouseEvent&)> clicked) { clicked_ = std::move(clicked); }

 private:
  bool active_ = false;
  QPoint press_at_;
  std::function<void(const QMouseEvent&)> clicked_;
};

}  // namespace numlab_gui
