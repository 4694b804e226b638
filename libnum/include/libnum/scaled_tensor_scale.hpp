// Per-tensor FP8 scaling as TransformerEngine's recipes define it: current
// scaling (the scale from this tensor's amax: scale_rule::fp32_amax over
// whole_tensor_block) and delayed scaling (the scale from an amax history,
// passed to quantize as scale_rule::fp32_given).
//
// TransformerEngine's DelayedScaling keeps the last amax_history_len amaxes,
// reduces them by amax_compute_algo ("max" or "most_recent") and sets the
// encode factor fp8_max / amax / 2^margin. libnum stores the decode scale,
// amax · 2^margin / fp8_max rounded once to nearest-even fp32.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "scaled_format.hpp"

namespace num {

/// How an amax history is reduced (TE's amax_compute_algo).
enum class amax_reduction : std::uint8_t { max, most_recent };

/// The last `length` amaxes of a tensor, oldest first.
class amax_history {
 public:
  /// Throws std::invalid_argument for length 0.
  explicit amax_history(std::size_t length);
  /// Appends one amax (finite, >= 0; throws std::invalid_argument otherwise),
  /// dropping the oldest once `length` are held.
  void record(float amax);
  /// The reduced amax; 0 for an empty history.
  float reduced(amax_reduction how) const;
  std::size_t size() const { return values_.size(); }
  /// The amaxes held, oldest first.
  std::span<const float> values() const { return values_; }
  std::size_t length() const { return length_; }

 private:
  std::size_t length_;
  std::vector<float> values_;
};

/// The fp32 decode scale amax · 2^margin / max_elem of `element`, rounded to
/// nearest even (the fp32_amax rule); 1 for amax 0. margin in [0, 64].
float amax_scale(float amax, element_type element, int margin);

/// Delayed scaling: amax_scale of the reduced history.
float delayed_scale(const amax_history& history, amax_reduction how, element_type element, int margin);

}  // namespace num
