#include "lab/loss_scaler.hpp"

#include <libnum/array.hpp>

#include <algorithm>
#include <cmath>
#include <span>

namespace lab {

loss_scaler::loss_scaler(loss_scaling settings)
    : settings_(settings), scale_(settings.mode == loss_scaling::kind::none ? 1.0 : settings.scale) {}

double loss_scaler::lr_factor() const {
  return settings_.mode == loss_scaling::kind::fixed && settings_.divide_lr ? 1.0 / scale_ : 1.0;
}

bool loss_scaler::unscale(const std::vector<parameter*>& params) const {
  const bool keep_scaled = settings_.mode == loss_scaling::kind::none || lr_factor() != 1.0;
  // GradScaler: inv_scale = scale.double().reciprocal().float(), one fp32 multiply per gradient.
  const auto inv_scale = static_cast<float>(1.0 / scale_);
  // Two vectorised passes: the finiteness test (on the gradients as the
  // backward pass left them, as GradScaler's found_inf is), then the multiply.
  bool found_inf = false;
  for (auto* p : params) {
    const std::span<float> g = p->grad.values();
    found_inf |= num::any_non_finite(g);
    if (!keep_scaled)
      for (float& x : g) x *= inv_scale;
  }
  return found_inf;
}

void loss_scaler::update(bool found_inf) {
  if (settings_.mode != loss_scaling::kind::dynamic) return;
  if (settings_.mindspore_window) {
    if (found_inf) {
      scale_ = std::max(scale_ * settings_.backoff_factor, settings_.min_scale);
      last_overflow_ = iteration_;
      ++skipped_;
    } else if ((iteration_ - last_overflow_) % static_cast<std::int64_t>(settings_.growth_interval) == 0) {
      scale_ *= settings_.growth_factor;
    }
    ++iteration_;
    return;
  }
  if (found_inf) {
    scale_ = std::max(scale_ * settings_.backoff_factor, settings_.min_scale);
    tracker_ = 0;
    ++skipped_;
    return;
  }
  if (++tracker_ == settings_.growth_interval) {
    const double grown = scale_ * settings_.growth_factor;
    if (std::isfinite(static_cast<float>(grown))) scale_ = grown;
    tracker_ = 0;
  }
}

}  // namespace lab
