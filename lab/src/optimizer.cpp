#include "lab/optimizer.hpp"

#include <cmath>

#include "lab/errors.hpp"
#include "scratch.hpp"

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

void optimizer::step(const op_context& ctx, float lr) {
  ++steps_;
  const auto& s = settings_;
  const auto t = static_cast<double>(steps_);
  const auto bias1 = static_cast<float>(1.0 - std::pow(static_cast<double>(s.beta1), t));
  const auto bias2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(s.beta2), t)));
  for (std::size_t i = 0; i < params_.size(); ++i) {
    parameter& p = *params_[i];
    const std::size_t n = p.value.size();
    float* w = p.value.data();
    const float* g = p.grad.data();
    const std::span<float> delta = detail::scratch_prefix(delta_, n);
    const float l2 = p.decay && s.kind != optimizer_kind::adamw ? s.weight_decay : 0.0f;
    // The gradient, the state and every intermediate of the update pass
    // through the context (role optimizer_state), so a precision policy holds
    // each in its format: one rounding per elementary tensor operation, in
    // the order PyTorch 1.13's Adam performs them (mul_, add_, addcmul_,
    // sqrt, div, add_), which is what a framework computing in fp16/bf16 does.
    const std::string_view op = s.kind == optimizer_kind::sgd ? "sgd" : "adam";
    const auto rounded = [&](std::string_view suffix, std::span<float> values) {
      ctx.produce({p.layer, op, p.tensor_name + std::string(suffix)}, tensor_role::optimizer_state, values);
    };
    const std::span<float> grad = detail::scratch_prefix(grad_, n);
    for (std::size_t j = 0; j < n; ++j) grad[j] = g[j] + l2 * w[j];
    rounded(".grad", grad);
    if (s.kind == optimizer_kind::sgd) {
      if (s.momentum == 0.0f) {
        for (std::size_t j = 0; j < n; ++j) delta[j] = -lr * grad[j];
      } else {
        float* buf = first_[i].data();
        for (std::size_t j = 0; j < n; ++j) buf[j] *= s.momentum;
        rounded(".momentum.decayed", first_[i].values());
        for (std::size_t j = 0; j < n; ++j) buf[j] += grad[j];
        rounded(".momentum", first_[i].values());
        if (s.nesterov) {
          for (std::size_t j = 0; j < n; ++j) delta[j] = grad[j] + s.momentum * buf[j];
          rounded(".nesterov_direction", delta);
          for (std::size_t j = 0; j < n; ++j) delta[j] *= -lr;
        } else {
          for (std::size_t j = 0; j < n; ++j) delta[j] = -lr * buf[j];
        }
      }
    } else {
      float* m = first_[i].data();
      float* v = second_[i].data();
      const float step_size = lr / bias1;
      const float decoupled = p.decay && s.kind == optimizer_kind::adamw ? lr * s.weight_decay : 0.0f;
      for (std::size_t j = 0; j < n; ++j) m[j] *= s.beta1;
      rounded(".m.decayed", first_[i].values());
      for (std::size_t j = 0; j < n; ++j) m[j] += (1.0f - s.beta1) * grad[j];
      rounded(".m", first_[i].values());
      for (std::size_t j = 0; j < n; ++j) v[j] *= s.beta2;
      rounded(".v.decayed", second_[i].values());
      for (std::size_t j = 0; j < n; ++j) v[j] += (1.0f - s.beta2) * grad[j] * grad[j];
      rounded(".v", second_[i].values());
      const std::span<float> denom = detail::scratch_prefix(denom_, n);
      for (std::size_t j = 0; j < n; ++j) denom[j] = std::sqrt(v[j]);
      rounded(".sqrt_v", denom);
      for (std::size_t j = 0; j < n; ++j) denom[j] /= bias2_sqrt;
      rounded(".sqrt_v_hat", denom);
      for (std::size_t j = 0; j < n; ++j) denom[j] += s.eps;
      rounded(".denominator", denom);
      // AdamW's decoupled decay joins the step in one delta (PyTorch
      // multiplies w by 1 - lr * decay first, one more rounding); the update
      // w + delta is then rounded once, from its exact value (ctx.update).
      for (std::size_t j = 0; j < n; ++j) delta[j] = -step_size * m[j] / denom[j] - decoupled * w[j];
    }
    const lab::site where = p.site();
    ctx.update(where, p.value.values(), delta);
    ctx.produce(where, tensor_role::master_weight, p.value.values());
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
  if (max_norm > 0.0f && norm > max_norm) scale_gradients(params, static_cast<float>(max_norm / (norm + 1e-6)));
  return norm;
}

void scale_gradients(const std::vector<parameter*>& params, float factor) {
  for (auto* p : params)
    for (float& g : p->grad.values()) g *= factor;
}

}  // namespace lab
