#include "lab/run_tracer.hpp"

#include "lab/precision_hook.hpp"

namespace lab {
namespace {

// An op's results are labelled with the bare layer name: its forward output
// (tensor "output"; the losses name theirs "loss") and its input gradient
// ("grad_input"). Every other tensor is labelled "<layer>.<tensor>":
// parameters, the gradient a matmul or conv receives ("grad_output"), and
// intermediates such as batch norm's rounded statistics (norm_statistics in
// batch_norm.hpp), so that none is counted as the layer's output.
bool labelled_by_layer(const site& where, tensor_role role) {
  if (role == tensor_role::activation) return where.tensor == "output" || where.tensor == "loss";
  return role == tensor_role::grad_input && where.tensor == "grad_input";
}

}  // namespace

num::role_tag trace_tag(tensor_role role) { return {static_cast<std::uint8_t>(role), role_name(role)}; }

std::string run_tracer::site_name(const site& where) {
  std::string name;
  name.reserve(where.layer.size() + 1 + where.tensor.size());
  name.append(where.layer).append(".").append(where.tensor);
  return name;
}

std::optional<site_label> run_tracer::label(std::string_view name) const {
  const auto it = labels_.find(name);
  if (it == labels_.end()) return std::nullopt;
  return it->second;
}

const std::string& run_tracer::remember(const site& where, tensor_role role) {
  name_.assign(where.layer).append(".").append(where.tensor);
  if (!labels_.contains(name_))
    labels_.emplace(name_, site_label{labelled_by_layer(where, role) ? std::string(where.layer) : name_,
                                      std::string(where.op)});
  return name_;
}

std::pair<num::format, num::round_spec> run_tracer::storage(const site& where, tensor_role role) const {
  if (policy_ == nullptr) return {num::binary32, {}};
  // Mixed policies keep fp32 master weights: the update is an fp32 write.
  if ((role == tensor_role::master_weight || role == tensor_role::update) && !policy_->stored_in_format(where))
    return {num::binary32, {}};
  const auto f = policy_->format_of(where, role);
  if (!f) return {num::binary32, {}};
  return {*f, policy_->policy().spec(role)};
}

void run_tracer::announce(const site& where, tensor_role role, std::span<const float> values) {
  // The optimizer's internal state is not traced (see the file comment).
  if (!enabled_ || role == tensor_role::optimizer_state || hooks_.empty()) return;
  const std::string& name = remember(where, role);
  if (!hooks_.wants(name, trace_tag(role), step_)) return;
  const auto [f, spec] = storage(where, role);
  hooks_.announce(name, trace_tag(role), step_, f, spec, values);
}

void run_tracer::produce(const site& where, tensor_role role, std::span<float> values, unrounded_values unrounded) {
  announce(where, role, unrounded.value_or(values));
}

std::span<const float> run_tracer::operand(const site& where, tensor_role role, std::span<const float> values,
                                           unrounded_values unrounded) {
  if (role == tensor_role::grad_input && unrounded) announce(where, role, *unrounded);
  return values;
}

std::span<const float> run_tracer::weight(const site& where, std::span<const float> master,
                                          unrounded_values unrounded) {
  announce(where, tensor_role::weight, unrounded.value_or(master));
  return master;
}

void run_tracer::update(const site& where, std::span<float> weight, const weight_step& step) {
  if (!observes_update(where)) {
    apply_step_fp32(weight, step);
    return;
  }
  apply_decay_fp32(weight, step.keep);
  before_.assign(weight.begin(), weight.end());
  apply_step_fp32(weight, {step.direction, step.scale});
  delta_.resize(weight.size());
  requested_delta(step, delta_);
  observe_update(where, before_, delta_, weight);
}

bool run_tracer::observes_update(const site& where) {
  if (!enabled_ || hooks_.empty()) return false;
  return hooks_.wants(remember(where, tensor_role::update), trace_tag(tensor_role::update), step_);
}

void run_tracer::observe_update(const site& where, std::span<const float> before, std::span<const float> delta,
                                std::span<const float> after) {
  if (!observes_update(where)) return;
  const std::string& name = remember(where, tensor_role::update);
  const num::role_tag tag = trace_tag(tensor_role::update);
  const auto [f, spec] = storage(where, tensor_role::update);
  // The delta's own statistics first, then the swamping of the write; the
  // rundb sink joins the two into one row.
  hooks_.announce(name, tag, step_, f, spec, delta);
  hooks_.announce_update(name, tag, step_, f, before, delta, after);
}

}  // namespace lab
