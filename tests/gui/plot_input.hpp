// Mouse input on a QCustomPlot as a user gives it, for the GUI tests: a turn
// of the wheel, a drag (a pan) and a click, each sent as the events Qt would
// deliver, so the views' own handlers (user_zoom) see them.
#pragma once

#include <QCoreApplication>
#include <QMouseEvent>
#include <QWheelEvent>
#include <qcustomplot.h>

#include <cmath>

namespace gui_test {

/// Turns the mouse wheel over the middle of `rect`, as a user zooming in.
inline void wheel_over(QCustomPlot* plot, QCPAxisRect* rect) {
  const QPointF at = rect->rect().center();
  QWheelEvent wheel(at, plot->mapToGlobal(at.toPoint()), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QCoreApplication::sendEvent(plot, &wheel);
}

/// Presses the left button at `from`, moves to `to` with it held, releases there.
inline void drag(QCustomPlot* plot, QPoint from, QPoint to) {
  const auto send = [plot](QEvent::Type type, QPoint at, Qt::MouseButton button, Qt::MouseButtons held) {
    QMouseEvent event(type, at, plot->mapToGlobal(at), button, held, Qt::NoModifier);
    QCoreApplication::sendEvent(plot, &event);
  };
  send(QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton);
  send(QEvent::MouseMove, (from + to) / 2, Qt::NoButton, Qt::LeftButton);
  send(QEvent::MouseMove, to, Qt::NoButton, Qt::LeftButton);
  send(QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton);
}

/// A left click at `at`: a press and a release that does not move.
inline void click(QCustomPlot* plot, QPoint at) { drag(plot, at, at); }

/// The pixel of (key, value) in `rect`, the value on its `value_axis`: where
/// to hover to read a known point.
inline QPoint pixel_at(QCPAxisRect* rect, double key, double value, QCPAxis::AxisType value_axis = QCPAxis::atLeft) {
  return {static_cast<int>(std::lround(rect->axis(QCPAxis::atBottom)->coordToPixel(key))),
          static_cast<int>(std::lround(rect->axis(value_axis)->coordToPixel(value)))};
}

}  // namespace gui_test
