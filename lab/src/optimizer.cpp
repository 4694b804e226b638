#include "lab/optimizer.hpp"

#include <algorithm>
#include <cmath>

#include "lab/errors.hpp"

namespace lab {

optimizer_kind parse_optimizer_kind(const std::string& name) {
  if (name == "sgd") return optimizer_kind::sgd;
  if (name == "adam") return optimizer_kind::adam;
  if (name == "adamw") return optimizer_kind::adamw;
  throw input_error("unknown optimizer '" + name + "' (known: sgd, adam, adamw)");
}

optimizer::optimizer(optimizer_settings settings, std::vector<parameter*> params)
    : settings_(settings), params_(std::move(params)) {
  const bool adam_like = settings_.kind != optimizer_kind::sgd;
  for (auto* p : params_) {
    if (adam_like || settings_.momentum != 0.0f) first_.emplace_back(p->value.shape());
    if (adam_like) second_.emplace_back(p->value.shape());
  }
}

std::vector<tensor*> optimizer::state() {
  std::vector<tensor*> all;
  for (auto& t : first_) all.push_back(&t);
  for (auto& t : second_) all.push_back(&t);
  return all;
}

void optimizer::round_state(const op_context& ctx, const parameter& p, std::string_view suffix,
                            std::span<float> values) const {
  const std::string_view op = settings_.kind == optimizer_kind::sgd ? "sgd" : "adam";
  ctx.produce({p.layer, op, op_class::optimizer, p.tensor_name + std::string(suffix)}, tensor_role::optimizer_state, values);
}

void optimizer::step(const op_context& ctx, float lr) {
  ++steps_;
  const auto& s = settings_;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    parameter& p = *params_[i];
    const std::size_t n = p.value.size();
    const float* w = p.value.data();
    const float* g = p.grad.data();
    delta_.resize(n);
    const float l2 = p.decay && s.kind != optimizer_kind::adamw ? s.weight_decay : 0.0f;
    // The gradient, the state and every intermediate of the update pass
    // through the context (role optimizer_state), so a precision policy holds
    // each in its format: one rounding per elementary tensor operation, in
    // the order PyTorch 1.13 performs them, which is what a framework
    // computing in fp16/bf16 does.
    grad_.resize(n);
    // Without decay the gradient is taken as it is (PyTorch adds the decay
    // term only when weight_decay != 0), so an infinite weight stays out of it.
    if (l2 != 0.0f) {
      for (std::size_t j = 0; j < n; ++j) grad_[j] = g[j] + l2 * w[j];
    } else {
      std::copy(g, g + n, grad_.begin());
    }
    round_state(ctx, p, ".grad", grad_);
    if (s.kind == optimizer_kind::sgd)
      sgd_delta(ctx, i, lr);
    else
      adam_delta(ctx, i, lr);
    const lab::site where = p.site();
    ctx.update(where, p.value.values(), delta_);
    ctx.produce(where, tensor_role::master_weight, p.value.values());
  }
}

void optimizer::sgd_delta(const op_context& ctx, std::size_t i, float lr) {
  // PyTorch 1.13's SGD: buf.mul_(momentum).add_(grad); Nesterov's direction
  // grad + momentum * buf; then the step -lr times the direction.
  const auto& s = settings_;
  const parameter& p = *params_[i];
  const std::size_t n = grad_.size();
  if (s.momentum == 0.0f) {
    for (std::size_t j = 0; j < n; ++j) delta_[j] = -lr * grad_[j];
    return;
  }
  float* buf = first_[i].data();
  for (std::size_t j = 0; j < n; ++j) buf[j] *= s.momentum;
  round_state(ctx, p, ".momentum.decayed", first_[i].values());
  for (std::size_t j = 0; j < n; ++j) buf[j] += grad_[j];
  round_state(ctx, p, ".momentum", first_[i].values());
  if (s.nesterov) {
    for (std::size_t j = 0; j < n; ++j) delta_[j] = grad_[j] + s.momentum * buf[j];
    round_state(ctx, p, ".nesterov_direction", delta_);
    for (std::size_t j = 0; j < n; ++j) delta_[j] *= -lr;
  } else {
    for (std::size_t j = 0; j < n; ++j) delta_[j] = -lr * buf[j];
  }
}

void optimizer::adam_delta(const op_context& ctx, std::size_t i, float lr) {
  // PyTorch 1.13's Adam: m.mul_(beta1).add_(grad, alpha=1-beta1);
  // v.mul_(beta2).addcmul_(grad, grad, value=1-beta2); the denominator
  // (v.sqrt() / sqrt(bias_correction2)).add_(eps); then the step
  // -lr / bias_correction1 * m / denominator.
  const auto& s = settings_;
  const parameter& p = *params_[i];
  const std::size_t n = grad_.size();
  const auto t = static_cast<double>(steps_);
  const auto bias1 = static_cast<float>(1.0 - std::pow(static_cast<double>(s.beta1), t));
  const auto bias2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(s.beta2), t)));
  const float* w = p.value.data();
  float* m = first_[i].data();
  float* v = second_[i].data();
  const float step_size = lr / bias1;
  const float decoupled = p.decay && s.kind == optimizer_kind::adamw ? lr * s.weight_decay : 0.0f;
  for (std::size_t j = 0; j < n; ++j) m[j] *= s.beta1;
  round_state(ctx, p, ".m.decayed", first_[i].values());
  for (std::size_t j = 0; j < n; ++j) m[j] += (1.0f - s.beta1) * grad_[j];
  round_state(ctx, p, ".m", first_[i].values());
  for (std::size_t j = 0; j < n; ++j) v[j] *= s.beta2;
  round_state(ctx, p, ".v.decayed", second_[i].values());
  for (std::size_t j = 0; j < n; ++j) v[j] += (1.0f - s.beta2) * grad_[j] * grad_[j];
  round_state(ctx, p, ".v", second_[i].values());
  denom_.resize(n);
  for (std::size_t j = 0; j < n; ++j) denom_[j] = std::sqrt(v[j]);
  round_state(ctx, p, ".sqrt_v", denom_);
  for (std::size_t j = 0; j < n; ++j) denom_[j] /= bias2_sqrt;
  round_state(ctx, p, ".sqrt_v_hat", denom_);
  for (std::size_t j = 0; j < n; ++j) denom_[j] += s.eps;
  round_state(ctx, p, ".denominator", denom_);
  // AdamW's decoupled decay joins the step in one delta (PyTorch
  // multiplies w by 1 - lr * decay first, one more rounding); the update
  // w + delta is then rounded once, from its exact value (ctx.update).
  if (decoupled != 0.0f) {
    for (std::size_t j = 0; j < n; ++j) delta_[j] = -step_size * m[j] / denom_[j] - decoupled * w[j];
  } else {  // no 0 * w term: an infinite weight stays infinite, as in PyTorch
    for (std::size_t j = 0; j < n; ++j) delta_[j] = -step_size * m[j] / denom_[j];
  }
}

void zero_gradients(const std::vector<parameter*>& params) {
  for (auto* p : params) p->grad.zero();
}

double gradient_norm(const std::vector<parameter*>& params) {
  double sum = 0.0;
  for (auto* p : params)
    for (float g : p->grad.values()) sum += static_cast<double>(g) * g;
  return std::sqrt(sum);
}

double clip_gradient_norm(const std::vector<parameter*>& params, float max_norm) {
  const double norm = gradient_norm(params);
  // A NaN norm scales every gradient by NaN, as PyTorch 1.13's
  // clip_grad_norm_ does (clamp(max_norm / (NaN + 1e-6), max=1) is NaN).
  if (max_norm > 0.0f && (norm > max_norm || std::isnan(norm)))
    scale_gradients(params, static_cast<float>(max_norm / (norm + 1e-6)));
  return norm;
}

void scale_gradients(const std::vector<parameter*>& params, float factor) {
  for (auto* p : params)
    for (float& g : p->grad.values()) g *= factor;
}

}  // namespace lab
