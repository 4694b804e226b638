// Band labels that fit; see band_label.hpp.
#include "band_label.hpp"

#include <QFontMetrics>

#include <algorithm>
#include <utility>

namespace numlab_gui {
namespace {

// Room left between a label and its band's visible edges, in pixels.
constexpr double side_room = 3;
// Room above each row of labels, in pixels.
constexpr double row_gap = 2;

}  // namespace

band_label::band_label(QCustomPlot* plot, double low, double high, QStringList texts, int row)
    : QCPItemText(plot), low_(low), high_(high), texts_(std::move(texts)), row_(row) {
  setPositionAlignment(Qt::AlignTop | Qt::AlignHCenter);
  position->setTypeX(QCPItemPosition::ptAbsolute);
  position->setTypeY(QCPItemPosition::ptAbsolute);
  setText(texts_.value(0));
}

void band_label::fit() {
  QCPAxisRect* rect = clipAxisRect();
  QCPAxis* x = rect != nullptr ? rect->axis(QCPAxis::atBottom) : nullptr;
  if (x == nullptr) return;
  const QRect area = rect->rect();
  double left = x->coordToPixel(low_), right = x->coordToPixel(high_);
  if (left > right) std::swap(left, right);
  left = std::max(left, static_cast<double>(area.left())) + side_room;
  right = std::min(right, static_cast<double>(area.right())) - side_room;
  // Measured as QCPItemText measures itself when it draws.
  const QFontMetrics metrics(font());
  const auto width_of = [&](const QString& text) {
    return metrics.boundingRect(0, 0, 0, 0, Qt::TextDontClip | textAlignment(), text).width() + padding().left() +
           padding().right();
  };
  const auto fits = std::find_if(texts_.begin(), texts_.end(),
                                 [&](const QString& text) { return width_of(text) <= right - left; });
  setVisible(fits != texts_.end());
  if (fits == texts_.end()) return;
  setText(*fits);
  const double line = metrics.height() + padding().top() + padding().bottom();
  position->setCoords((left + right) / 2, area.top() + row_gap + row_ * (line + row_gap));
}

}  // namespace numlab_gui
