// precision_hook's scaled recipes: per-tensor amaxes and scales, delayed
// scaling's histories, and the quantized GEMM (scaled_recipe.hpp).
#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "lab/precision_hook.hpp"
#include "fused_loops.hpp"
#include "mixing.hpp"
#include "site_stream.hpp"

namespace lab {
namespace {

// The amax of a GEMM operand as stored (the whole matrix the op passed).
float operand_amax(const gemm_args& g, bool is_a) {
  const stored_operand s = stored_operand_of(g, is_a);
  return detail::finite_amax(s.data, s.rows, s.cols, s.ld);
}

// Whether an operand's scales depend on the whole tensor's amax: one fp32
// scale for the tensor, or NVFP4's second level.
bool needs_tensor_amax(const scaled_recipe& recipe, gemm_operand operand) {
  return recipe.per_tensor(operand) || recipe.format(operand).rule == num::scale_rule::nvfp4;
}

}  // namespace

bool precision_hook::scaled_site(const site& where) const {
  return !policy_.layers.contains(where.layer) && policy_.of(where.op_class) == class_precision::scaled;
}

precision_hook::scaled_tensor& precision_hook::scaled_state(std::string_view layer, gemm_operand operand) const {
  auto it = scaled_tensors_.find(layer);
  if (it == scaled_tensors_.end()) it = scaled_tensors_.emplace(std::string(layer), decltype(it->second){}).first;
  auto& slot = it->second[static_cast<std::size_t>(operand)];
  if (!slot) {
    slot.emplace();
    slot->history = num::amax_history(policy_.scaled.amax_history_len);
  }
  return *slot;
}

void precision_hook::note_scaled_amax(const site& where, tensor_role role, std::span<const float> values) {
  const auto operand = gemm_operand_of(role);
  if (!operand || !needs_tensor_amax(policy_.scaled, *operand)) return;
  const float amax = detail::finite_amax(values.data(), 1, values.size(), values.size());
  const std::lock_guard lock(scaled_mutex_);
  scaled_state(where.layer, *operand).amax = amax;
}

void precision_hook::begin_step(std::uint64_t step) {
  step_ = step;
  const std::lock_guard lock(scaled_mutex_);
  for (auto& [layer, tensors] : scaled_tensors_)
    for (auto& t : tensors)
      if (t) {
        t->pending = 0.0f;
        t->seen = false;
      }
}

void precision_hook::end_step() {
  const auto& recipe = policy_.scaled;
  const std::lock_guard lock(scaled_mutex_);
  for (auto& [layer, tensors] : scaled_tensors_)
    for (std::size_t i = 0; i < gemm_operand_count; ++i) {
      auto& t = tensors[i];
      if (!t || !t->seen) continue;
      t->history.record(t->pending);
      const float reduced = t->history.reduced(recipe.amax_compute_algo);
      if (reduced > 0.0f)
        t->scale = num::amax_scale(reduced, recipe.formats[i].element, recipe.margin);
      t->pending = 0.0f;
      t->seen = false;
    }
}

precision_hook::prepared_operand precision_hook::prepare_operand(const site& where, tensor_role gemm_role,
                                                                 const gemm_args& g, bool is_a) const {
  const tensor_role role = is_a ? g.a_role : g.b_role;
  const auto kind = gemm_operand_of(role);
  if (!kind)
    throw std::invalid_argument("layer " + std::string(where.layer) + ": a scaled GEMM operand must be an "
                                "activation, weight or grad_input (got " + std::string(role_name(role)) + ")");
  const scaled_recipe& recipe = policy_.scaled;
  prepared_operand out;
  auto& o = out.how.options;
  o.format = recipe.format(*kind);
  const num::round_spec& spec = policy_.spec(rounding_role_of(*kind));
  o.spec.mode = spec.mode;
  o.spec.random_bits = spec.random_bits;
  o.margin = recipe.margin;
  o.seed = seed_;
  o.stream = splitmix64(stream_of(where, role, step_) ^ (g.part * splitmix64_increment));
  o.path = num::simd_path::automatic;
  const bool hadamard = recipe.hadamard && gemm_role == tensor_role::grad_weight;
  if (hadamard) out.how.hadamard_signs = hadamard_signs_;
  const bool per_tensor = recipe.per_tensor(*kind);
  // With the Hadamard transform the operand's own (transformed) values give
  // its amax: quantize() finds it.
  if (hadamard || !needs_tensor_amax(recipe, *kind)) return out;
  const std::lock_guard lock(scaled_mutex_);
  scaled_tensor& t = scaled_state(where.layer, *kind);
  // The weight is whole in every GEMM; an input or output gradient may be a
  // chunk of the tensor operand() saw whole.
  const float amax = *kind == gemm_operand::weight || std::isnan(t.amax) ? operand_amax(g, is_a) : t.amax;
  if (per_tensor) out.how.given_scale_stands_for = o.format.rule;
  if (per_tensor && recipe.scaling == tensor_scaling::delayed) {
    t.pending = std::max(t.pending, amax);
    t.seen = true;
    o.format.rule = num::scale_rule::fp32_given;
    o.given_scale = t.scale;
    out.history.assign(t.history.values().begin(), t.history.values().end());
    out.how.tensor_amax = t.history.reduced(recipe.amax_compute_algo);
  } else if (per_tensor) {
    o.format.rule = num::scale_rule::fp32_given;
    o.given_scale = num::amax_scale(amax, o.format.element, recipe.margin);
    out.how.tensor_amax = amax;
  } else {
    o.tensor_amax = amax;
    out.how.tensor_amax = amax;
  }
  return out;
}

void precision_hook::gemm_scaled(const site& where, tensor_role role, const gemm_args& g) const {
  prepared_operand a = prepare_operand(where, role, g, true);
  prepared_operand b = prepare_operand(where, role, g, false);
  a.how.amax_history = a.history;
  b.how.amax_history = b.history;
  const quantized_observer observe = [&](const quantized_operand& q) {
    const std::lock_guard lock(scaled_mutex_);
    tally_.scaled[static_cast<std::size_t>(q.operand)] += q.result.counts;
    if (next_ != nullptr) next_->observe_quantized(where, q);
  };
  std::unique_ptr<scaled_gemm_scratch> scratch;
  {
    const std::lock_guard lock(scaled_mutex_);
    if (scratch_pool_.empty()) {
      scratch = std::make_unique<scaled_gemm_scratch>();
    } else {
      scratch = std::move(scratch_pool_.back());
      scratch_pool_.pop_back();
    }
  }
  // The weight is whole in every part of a forward or dgrad GEMM: its
  // quantization is kept for the other parts.
  operand_keepers keepers;
  if (role == tensor_role::activation || role == tensor_role::grad_input) {
    const std::lock_guard lock(scaled_mutex_);
    auto it = weight_keepers_.find(where.layer);
    if (it == weight_keepers_.end()) it = weight_keepers_.try_emplace(std::string(where.layer)).first;
    operand_keeper* keeper = &it->second[role == tensor_role::activation ? 0 : 1];
    if (g.a_role == tensor_role::weight) keepers.a = keeper;
    else if (g.b_role == tensor_role::weight) keepers.b = keeper;
  }
  scaled_gemm(g, role, a.how, b.how, observe, *scratch, keepers);
  const std::lock_guard lock(scaled_mutex_);
  scratch_pool_.push_back(std::move(scratch));
}

}  // namespace lab
