// Amax histories and per-tensor scales for FP8 current and delayed scaling.
#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "block_scale.hpp"
#include "libnum/scaled_tensor_scale.hpp"

namespace num {

amax_history::amax_history(std::size_t length) : length_(length) {
  if (length == 0) throw std::invalid_argument("amax history: length must be at least 1");
  values_.reserve(length);
}

void amax_history::record(float amax) {
  if (!(std::isfinite(amax) && amax >= 0)) {
    throw std::invalid_argument("amax history: amax must be finite and >= 0 (got " + std::to_string(amax) + ")");
  }
  if (values_.size() == length_) values_.erase(values_.begin());
  values_.push_back(amax);
}

float amax_history::reduced(amax_reduction how) const {
  if (values_.empty()) return 0;
  if (how == amax_reduction::most_recent) return values_.back();
  return *std::max_element(values_.begin(), values_.end());
}

float amax_scale(float amax, element_type element, int margin) {
  if (!(std::isfinite(amax) && amax >= 0)) {
    throw std::invalid_argument("amax scale: amax must be finite and >= 0 (got " + std::to_string(amax) + ")");
  }
  if (margin < 0 || margin > 64) throw std::invalid_argument("amax scale: margin must be in [0, 64]");
  scaled_detail::scale_context c;
  c.element = element;
  c.rule = scale_rule::fp32_amax;
  c.margin = margin;
  const scaled_detail::block_scale s = scaled_detail::scale_for(c, amax);
  return std::bit_cast<float>(s.code);
}

float delayed_scale(const amax_history& history, amax_reduction how, element_type element, int margin) {
  return amax_scale(history.reduced(how), element, margin);
}

}  // namespace num
