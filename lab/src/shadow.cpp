#include "lab/shadow.hpp"

#include <algorithm>
#include <cmath>

namespace lab {
namespace {

std::string key_of(const site& where, tensor_role role) {
  std::string key(where.layer);
  key.append("/").append(where.tensor).append("#").append(role_name(role));
  return key;
}

}  // namespace

void tensor_recorder::produce(const site& where, tensor_role role, std::span<float> values,
                              unrounded_values unrounded) {
  if (role == tensor_role::activation || role == tensor_role::grad_input || role == tensor_role::grad_weight) {
    auto& e = entries_[key_of(where, role)];
    if (e.layer.empty()) e = {std::string(where.layer), std::string(where.op), std::string(where.tensor), role, {}};
    e.values.assign(values.begin(), values.end());
  }
  if (next_ != nullptr) next_->produce(where, role, values, unrounded);
}

std::span<const float> tensor_recorder::weight(const site& where, std::span<const float> master,
                                               unrounded_values unrounded) {
  return next_ != nullptr ? next_->weight(where, master, unrounded) : master;
}

void tensor_recorder::update(const site& where, std::span<float> weight, const weight_step& step) {
  if (next_ != nullptr) {
    next_->update(where, weight, step);
    return;
  }
  apply_step_fp32(weight, step);
}

float tensor_recorder::scalar(const site& where, tensor_role role, double value) {
  return next_ != nullptr ? next_->scalar(where, role, value) : static_cast<float>(value);
}

std::span<const float> tensor_recorder::operand(const site& where, tensor_role role, std::span<const float> values,
                                                unrounded_values unrounded) {
  return next_ != nullptr ? next_->operand(where, role, values, unrounded) : values;
}

void tensor_recorder::observe_update(const site& where, std::span<const float> before, std::span<const float> delta,
                                     std::span<const float> after) {
  if (next_ != nullptr) next_->observe_update(where, before, delta, after);
}

bool tensor_recorder::observes_update(const site& where) {
  return next_ != nullptr && next_->observes_update(where);
}

shadow_model::shadow_model(std::unique_ptr<sequential> model) : model_(std::move(model)) {}

void shadow_model::sync_from(sequential& main) {
  const auto from = main.parameters();
  const auto to = model_->parameters();
  for (std::size_t i = 0; i < from.size() && i < to.size(); ++i) {
    std::copy(from[i]->value.values().begin(), from[i]->value.values().end(), to[i]->value.values().begin());
    to[i]->grad.zero();
  }
  const auto bf = main.buffers();
  const auto bt = model_->buffers();
  for (std::size_t i = 0; i < bf.size() && i < bt.size(); ++i)
    std::copy(bf[i]->values().begin(), bf[i]->values().end(), bt[i]->values().begin());
}

void shadow_model::accumulate(const tensor_recorder& recorded) {
  for (const auto& [key, ref] : reference_.entries()) {
    const auto it = recorded.entries().find(key);
    if (it == recorded.entries().end() || it->second.values.size() != ref.values.size()) continue;
    double diff = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < ref.values.size(); ++i) {
      const double r = ref.values[i], d = static_cast<double>(it->second.values[i]) - r;
      diff += d * d;
      norm += r * r;
    }
    const double rel = norm > 0.0 ? std::sqrt(diff / norm) : (diff > 0.0 ? INFINITY : 0.0);
    const auto& entry = ref;  // clang 14 cannot capture structured bindings in a lambda
    auto found = std::find_if(errors_.begin(), errors_.end(), [&entry](const shadow_error& e) {
      return e.layer == entry.layer && e.tensor == entry.tensor && e.role == entry.role;
    });
    if (found == errors_.end()) {
      errors_.push_back({ref.layer, ref.op, ref.tensor, ref.role, 0.0, 0.0, 0.0, 0});
      found = errors_.end() - 1;
    }
    found->relative_error = rel;
    found->mean = (found->mean * static_cast<double>(found->steps) + rel) / static_cast<double>(found->steps + 1);
    found->max = std::max(found->max, rel);
    ++found->steps;
  }
}

}  // namespace lab
