// Learning-rate schedules: constant, stepped and cosine, each with an
// optional linear warm-up, as a pure function of the update step.
#pragma once

#include <cstdint>
#include <string>

namespace lab {

/// Shape of the schedule after warm-up.
enum class schedule_kind { constant, step, cosine };

/// Parses "const"/"constant", "step", "cosine"; throws input_error otherwise.
schedule_kind parse_schedule_kind(const std::string& name);

/// lr(step) for step = 0, 1, ... (the update about to be applied), formed
/// in double from the configured doubles, as a Python scheduler forms
/// torch's lr; the optimizer converts it where torch does (op_context::scalar).
struct lr_schedule {
  schedule_kind kind = schedule_kind::constant;
  double base_lr = 0.001;
  std::uint64_t warmup_steps = 0;  ///< lr rises linearly from base/warmup to base
  std::uint64_t step_size = 1;     ///< step: multiply by gamma every step_size steps
  double gamma = 0.1;
  std::uint64_t total_steps = 1;   ///< cosine: decays to min_lr at total_steps
  double min_lr = 0.0;

  /// The learning rate for update number `step` (0-based).
  [[nodiscard]] double at(std::uint64_t step) const;
};

}  // namespace lab
