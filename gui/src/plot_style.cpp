// Colours, tickers and legend placement; see plot_style.hpp.
#include "plot_style.hpp"

#include <QMouseEvent>
#include <QToolTip>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <vector>

namespace numlab_gui {
namespace {

// A log ticker whose labels read base^k instead of decimals like 9.5e-7.
class power_ticker : public QCPAxisTickerLog {
 public:
  explicit power_ticker(double base) : base_(base) {
    setLogBase(base);
    setSubTickCount(0);
  }

 protected:
  QString getTickLabel(double tick, const QLocale&, QChar, int) override {
    if (!(tick > 0)) return {};
    const double k = std::log(tick) / std::log(base_);
    return QString("%1^%2").arg(base_).arg(std::lround(k));
  }

 private:
  double base_;
};

// QCPAxisTicker picks "nice" steps, fractional when zoomed in: never below 1.
class integer_ticker : public QCPAxisTicker {
 protected:
  double getTickStep(const QCPRange& range) override {
    return std::max(1.0, std::round(QCPAxisTicker::getTickStep(range)));
  }
  int getSubTickCount(double tick_step) override { return tick_step >= 5 ? 4 : 0; }
  QString getTickLabel(double tick, const QLocale&, QChar, int) override {
    return QString::number(static_cast<qlonglong>(std::llround(tick)));
  }
};

// The most columns of `legend`'s entries, in their fill order (along a row,
// then the next row), that fit `width` pixels; at least one.
int legend_columns_that_fit(const QCPLegend& legend, int width) {
  std::vector<int> widths;
  for (int i = 0; i < legend.elementCount(); ++i) {
    if (const auto* item = legend.item(i)) widths.push_back(item->minimumOuterSizeHint().width());
  }
  const QMargins margins = legend.margins();
  for (auto columns = static_cast<int>(widths.size()); columns > 1; --columns) {
    std::vector<int> column_widths(static_cast<std::size_t>(columns), 0);
    for (std::size_t i = 0; i < widths.size(); ++i) {
      int& w = column_widths[i % static_cast<std::size_t>(columns)];
      w = std::max(w, widths[i]);
    }
    const int needed = std::accumulate(column_widths.begin(), column_widths.end(), 0) +
                       (columns - 1) * legend.columnSpacing() + margins.left() + margins.right();
    if (needed <= width) return columns;
  }
  return 1;
}

}  // namespace

QString percent(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? QString("0%")
                    : QString::number(100.0 * static_cast<double>(part) / static_cast<double>(whole), 'g', 3) + "%";
}

QColor run_color(std::size_t index) {
  // The "tab10" palette: the first two (blue / orange) contrast strongly.
  static constexpr std::array<QRgb, 10> colors{0x1f77b4, 0xff7f0e, 0x2ca02c, 0x9467bd, 0x8c564b,
                                               0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf, 0xd62728};
  return QColor(colors[index % colors.size()]);
}

QColor layer_color(std::size_t index) {
  // Evenly spaced hues, shifted by the golden angle so neighbours differ.
  const int hue = static_cast<int>((index * 137) % 360);
  return QColor::fromHsv(hue, 200, 200);
}

QColor no_data_color() { return {215, 215, 215}; }

QCPColorGradient fraction_gradient() {
  QCPColorGradient gradient;
  gradient.setColorInterpolation(QCPColorGradient::ciRGB);
  gradient.setColorStopAt(0, QColor(50, 0, 50));
  gradient.setColorStopAt(0.2, QColor(180, 10, 0));
  gradient.setColorStopAt(0.55, QColor(245, 105, 0));
  gradient.setColorStopAt(1, QColor(255, 225, 0));
  gradient.setNanHandling(QCPColorGradient::nhNanColor);
  gradient.setNanColor(no_data_color());
  return gradient;
}

QSharedPointer<QCPAxisTicker> power_of_two_ticker() { return QSharedPointer<QCPAxisTicker>(new power_ticker(2)); }
QSharedPointer<QCPAxisTicker> power_of_ten_ticker() { return QSharedPointer<QCPAxisTicker>(new power_ticker(10)); }
QSharedPointer<QCPAxisTicker> step_ticker() { return QSharedPointer<QCPAxisTicker>(new integer_ticker); }

void show_hover_text(QCustomPlot& plot, const QMouseEvent& event, const QString& text) {
  if (text.isEmpty()) QToolTip::hideText();
  else QToolTip::showText(event.globalPosition().toPoint(), text, &plot);
}

std::optional<std::pair<double, double>> nearest_point(const QCPGraph* graph, double key) {
  const auto data = graph->data();
  if (data->isEmpty()) return std::nullopt;
  auto it = data->findBegin(key, false);
  if (it == data->constEnd()) it = data->constEnd() - 1;
  if (it != data->constBegin() && std::abs((it - 1)->key - key) < std::abs(it->key - key)) --it;
  return std::pair{it->key, it->value};
}

QString curve_values_at(const QCPAxisRect& rect, const QPoint& pixel, const std::function<QString(double key)>& key_text) {
  if (!rect.rect().contains(pixel)) return {};
  constexpr double key_tolerance_px = 20;
  constexpr std::size_t most_lines = 12;
  struct line {
    double distance_px;
    QString text;
  };
  std::vector<line> lines;
  for (const QCPGraph* graph : rect.graphs()) {
    if (graph->name().isEmpty() || !graph->visible()) continue;
    const QCPAxis* keys = graph->keyAxis();
    const QCPAxis* values = graph->valueAxis();
    const auto at = nearest_point(graph, keys->pixelToCoord(pixel.x()));
    if (!at || !std::isfinite(at->second) || std::abs(keys->coordToPixel(at->first) - pixel.x()) > key_tolerance_px)
      continue;
    lines.push_back({std::abs(values->coordToPixel(at->second) - pixel.y()),
                     QString("%1 — %2: %3").arg(graph->name(), key_text(at->first)).arg(at->second, 0, 'g', 4)});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const line& a, const line& b) { return a.distance_px < b.distance_px; });
  QStringList texts;
  for (std::size_t i = 0; i < lines.size() && i < most_lines; ++i) texts << lines[i].text;
  if (lines.size() > most_lines) texts << QString("(%1 more)").arg(lines.size() - most_lines);
  return texts.join('\n');
}

QString step_key_text(double key) { return QString("step %1").arg(static_cast<qlonglong>(std::llround(key))); }

void legend_above(QCustomPlot& plot) {
  auto* layout = plot.plotLayout();
  auto* legend = plot.legend;
  legend->setVisible(true);
  if (legend->layout() == layout) return;
  layout->insertRow(0);
  layout->addElement(0, 0, legend);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setBorderPen(Qt::NoPen);
  layout->setRowStretchFactor(0, 0.001);
  // The entries reflow into as many columns as the plot's width holds, after
  // every layout (a resize, an export at another size). The legend would
  // otherwise set the widget's minimum width (four fixed columns held the
  // window at about 790 pixels); its rows grow instead.
  plot.setMinimumWidth(minimum_plot_width);
  QObject::connect(&plot, &QCustomPlot::afterLayout, &plot, [&plot] {
    QCPLegend& legend = *plot.legend;
    const int columns = legend_columns_that_fit(legend, plot.viewport().width());
    if (columns == legend.wrap()) return;
    legend.setWrap(columns);
    legend.setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // rearranges the entries
    plot.plotLayout()->update(QCPLayoutElement::upPreparation);
    plot.plotLayout()->update(QCPLayoutElement::upMargins);
    plot.plotLayout()->update(QCPLayoutElement::upLayout);
  });
}

void legend_above_with_zoom_reset(QCustomPlot& plot) {
  legend_above(plot);
  plot.legend->setFont(QFont(plot.font().family(), 8));
  plot.setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  QObject::connect(&plot, &QCustomPlot::mouseDoubleClick, &plot, [&plot] {
    plot.rescaleAxes();
    plot.replot();
  });
}

user_zoom::user_zoom(QCustomPlot& plot, std::function<void()> reset) : QObject(&plot) {
  connect(&plot, &QCustomPlot::mouseWheel, this, [this] { active_ = true; });
  connect(&plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) { press_at_ = event->pos(); });
  connect(&plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* event) {
    if ((event->pos() - press_at_).manhattanLength() > 3) active_ = true;
    else if (clicked_ && event->button() == Qt::LeftButton && event->modifiers() == Qt::NoModifier) clicked_(*event);
  });
  connect(&plot, &QCustomPlot::mouseDoubleClick, this, [this, reset = std::move(reset)] {
    active_ = false;
    if (reset) reset();
  });
}

}  // namespace numlab_gui
