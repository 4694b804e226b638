#include "lab/scaled_recipe.hpp"

namespace lab {
namespace {

num::scaled_format named(std::string_view name) { return *num::find_scaled_format(name); }

scaled_recipe uniform(const num::scaled_format& f) {
  scaled_recipe r;
  r.formats = {f, f, f};
  return r;
}

}  // namespace

std::string_view gemm_operand_name(gemm_operand o) {
  switch (o) {
    case gemm_operand::activation: return "activation";
    case gemm_operand::weight: return "weight";
    case gemm_operand::gradient: return "gradient";
  }
  return "?";
}

std::optional<gemm_operand> gemm_operand_of(tensor_role role) {
  switch (role) {
    case tensor_role::activation: return gemm_operand::activation;
    case tensor_role::weight: return gemm_operand::weight;
    case tensor_role::grad_input: return gemm_operand::gradient;
    default: return std::nullopt;
  }
}

tensor_role rounding_role_of(gemm_operand o) {
  switch (o) {
    case gemm_operand::activation: return tensor_role::activation;
    case gemm_operand::weight: return tensor_role::weight;
    case gemm_operand::gradient: return tensor_role::grad_input;
  }
  return tensor_role::activation;
}

bool scaled_recipe::per_tensor(gemm_operand o) const {
  const auto& f = format(o);
  return f.block == num::whole_tensor_block && f.rule == num::scale_rule::fp32_amax;
}

std::optional<scaled_recipe> scaled_recipe_preset(std::string_view name) {
  if (name == "fp8-current" || name == "fp8-delayed") {
    // TE's HYBRID: E4M3 forward, E5M2 backward (Float8CurrentScaling and
    // DelayedScaling both default to it).
    scaled_recipe r;
    r.formats = {named("fp8-tensor"), named("fp8-tensor"), named("fp8-tensor-e5m2")};
    if (name == "fp8-delayed") r.scaling = tensor_scaling::delayed;
    return r;
  }
  if (name == "fp8-blockwise") {
    scaled_recipe r;
    r.formats = {named("fp8-block"), named("fp8-block-128x128"), named("fp8-block")};
    return r;
  }
  if (name == "mxfp8") return uniform(named("mxfp8"));
  if (name == "mxfp4") {
    auto r = uniform(named("mxfp4"));
    r.hadamard = true;
    return r;
  }
  if (name == "nvfp4") {
    scaled_recipe r;
    r.formats = {named("nvfp4"), named("nvfp4-2d"), named("nvfp4")};
    r.hadamard = true;
    return r;
  }
  return std::nullopt;
}

bool scaled_preset_rounds_gradients_stochastically(std::string_view name) {
  return name == "mxfp4" || name == "nvfp4";
}

std::string describe(const scaled_recipe& r) {
  std::string out;
  for (std::size_t i = 0; i < gemm_operand_count; ++i) {
    if (i) out += ", ";
    out += gemm_operand_name(static_cast<gemm_operand>(i));
    out += ' ';
    out += num::scaled_format_name(r.formats[i]);
  }
  bool any_per_tensor = false;
  for (std::size_t i = 0; i < gemm_operand_count; ++i) any_per_tensor |= r.per_tensor(static_cast<gemm_operand>(i));
  if (any_per_tensor) {
    if (r.scaling == tensor_scaling::delayed) {
      out += "; delayed scaling (history " + std::to_string(r.amax_history_len) + ", " +
             (r.amax_compute_algo == num::amax_reduction::max ? "max" : "most_recent") + ")";
    } else {
      out += "; current scaling";
    }
  }
  if (r.margin != 0) out += "; margin " + std::to_string(r.margin);
  if (r.hadamard) out += "; Hadamard on wgrad";
  return out;
}

}  // namespace lab
