#include "lab/op_context.hpp"

#include <cstddef>
#include <stdexcept>

namespace lab {

std::string_view role_name(tensor_role role) {
  switch (role) {
    case tensor_role::activation: return "activation";
    case tensor_role::grad_input: return "grad_input";
    case tensor_role::grad_weight: return "grad_weight";
    case tensor_role::weight: return "weight";
    case tensor_role::master_weight: return "master_weight";
    case tensor_role::update: return "update";
  }
  return "unknown";
}

void op_context::update(const site& where, std::span<float> weight, std::span<const float> delta) const {
  if (weight.size() != delta.size()) throw std::logic_error("op_context::update: size mismatch");
  if (hook_ != nullptr) {
    hook_->update(where, weight, delta);
    return;
  }
  for (std::size_t i = 0; i < weight.size(); ++i) weight[i] += delta[i];
}

}  // namespace lab
