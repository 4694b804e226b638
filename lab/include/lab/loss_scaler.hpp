// Loss scaling: the loss (so every gradient) is multiplied by a scale before
// backward and the gradients are unscaled before the optimizer, so small
// gradients survive a narrow format.
//
// Dynamic scaling follows torch.cuda.amp.GradScaler: inv_scale = 1/scale in
// fp32 multiplies every gradient (before clipping); if any gradient is inf
// or NaN the update is skipped and scale *= backoff; after growth_interval
// consecutive clean updates scale *= growth (kept only if finite in fp32).
// With gradient accumulation the trainer calls unscale/update once per
// effective batch, so the scale is constant while gradients accumulate.
// With mindspore_window the growth window counts as MindSpore's
// DynamicLossScaleManager.update_loss_scale does (scale = max(scale/factor, 1)
// on overflow; growth when (iteration - last overflow) % window == 0).
#pragma once

#include <cstdint>
#include <vector>

#include "lab/layer.hpp"
#include "lab/precision_policy.hpp"

namespace lab {

/// The loss-scale state machine of one run.
class loss_scaler {
 public:
  explicit loss_scaler(loss_scaling settings);

  /// The factor the loss is multiplied by this step (1 without scaling).
  [[nodiscard]] double scale() const { return scale_; }
  /// Multiplier of the learning rate: 1/scale for static divide_lr, else 1.
  [[nodiscard]] double lr_factor() const;
  /// True if any gradient is inf or NaN (GradScaler's found_inf, whichever
  /// position it is at). Unless gradients stay scaled
  /// (none, divide_lr), multiplies them by inv_scale = float(1/scale).
  bool unscale(const std::vector<parameter*>& params) const;
  /// Whether an update with non-finite gradients is skipped (dynamic only).
  [[nodiscard]] bool skips_non_finite() const { return settings_.mode == loss_scaling::kind::dynamic; }
  /// Ends an effective batch: adjusts a dynamic scale after it.
  void update(bool found_inf);

  [[nodiscard]] std::uint64_t skipped() const { return skipped_; }
  [[nodiscard]] std::uint64_t growth_tracker() const { return tracker_; }
  [[nodiscard]] const loss_scaling& settings() const { return settings_; }

 private:
  loss_scaling settings_;
  double scale_;
  std::uint64_t tracker_ = 0, skipped_ = 0;
  std::int64_t iteration_ = 1, last_overflow_ = -1;  // MindSpore's counters
};

}  // namespace lab
