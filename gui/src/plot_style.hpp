// Colours and small helpers shared by the plots, so every view looks alike.
#pragma once

#include <QColor>
#include <QString>

#include <string>

namespace numlab_gui {

/// Colour of the i-th run when runs are compared.
QColor run_color(std::size_t index);
/// Colour of the i-th layer in per-layer plots.
QColor layer_color(std::size_t index);
/// Qt text from a std::string.
inline QString qstr(const std::string& text) { return QString::fromStdString(text); }

}  // namespace numlab_gui
