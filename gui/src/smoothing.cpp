// EMA smoothing; see smoothing.hpp.
#include "smoothing.hpp"

#include <cmath>

namespace numlab_gui {

std::vector<double> ema_smooth(std::span<const double> values, double weight) {
  std::vector<double> out;
  out.reserve(values.size());
  double mean = 0, decay = 1;  // decay = w^n after n finite values
  for (const double x : values) {
    if (!std::isfinite(x)) {
      out.push_back(x);
      continue;
    }
    mean = weight * mean + (1 - weight) * x;
    decay *= weight;
    out.push_back(mean / (1 - decay));
  }
  return out;
}

}  // namespace numlab_gui
