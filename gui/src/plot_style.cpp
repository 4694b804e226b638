// Colour palettes: the first two runs contrast strongly (blue / orange).
#include "plot_style.hpp"

#include <array>

namespace numlab_gui {

QColor run_color(std::size_t index) {
  static constexpr std::array<QRgb, 4> colors{0x1f77b4, 0xff7f0e, 0x2ca02c, 0x9467bd};
  return QColor(colors[index % colors.size()]);
}

QColor layer_color(std::size_t index) {
  // Evenly spaced hues, shifted by the golden angle so neighbours differ.
  const int hue = static_cast<int>((index * 137) % 360);
  return QColor::fromHsv(hue, 200, 200);
}

}  // namespace numlab_gui
