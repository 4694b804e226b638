#include "lab/schedule.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "lab/errors.hpp"

namespace lab {

schedule_kind parse_schedule_kind(const std::string& name) {
  if (name == "const" || name == "constant") return schedule_kind::constant;
  if (name == "step") return schedule_kind::step;
  if (name == "cosine") return schedule_kind::cosine;
  throw input_error("unknown lr schedule '" + name + "' (known: const, step, cosine)");
}

double lr_schedule::at(std::uint64_t step) const {
  if (step < warmup_steps)
    return base_lr * static_cast<double>(step + 1) / static_cast<double>(warmup_steps);
  const std::uint64_t after = step - warmup_steps;
  switch (kind) {
    case schedule_kind::constant: return base_lr;
    case schedule_kind::step:
      return base_lr * std::pow(gamma, static_cast<double>(after / std::max<std::uint64_t>(step_size, 1)));
    case schedule_kind::cosine: {
      const std::uint64_t span = total_steps > warmup_steps ? total_steps - warmup_steps : 1;
      const double progress = std::min(1.0, static_cast<double>(after) / static_cast<double>(span));
      return min_lr + (base_lr - min_lr) * (0.5 * (1.0 + std::cos(std::numbers::pi * progress)));
    }
  }
  return base_lr;
}

}  // namespace lab
