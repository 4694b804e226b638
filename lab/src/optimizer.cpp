#include "lab/optimizer.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "fused_loops.hpp"
#include "scratch.hpp"
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

lab::site optimizer::state_site(const parameter& p, std::string_view tensor) const {
  const std::string_view op = settings_.kind == optimizer_kind::sgd ? "sgd" : "adam";
  return {p.layer, op, op_class::optimizer, tensor};
}

void optimizer::round_state(const op_context& ctx, const parameter& p, std::string_view suffix,
                            std::span<float> values) const {
  const std::string name = p.tensor_name + std::string(suffix);
  ctx.produce(state_site(p, name), tensor_role::optimizer_state, values);
}

float optimizer::state_scalar(const op_context& ctx, const parameter& p, double value) const {
  return ctx.scalar(state_site(p, p.tensor_name), tensor_role::optimizer_state, value);
}

void optimizer::step(const op_context& ctx, double lr) {
  ++steps_;
  const auto& s = settings_;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    parameter& p = *params_[i];
    const std::size_t n = p.value.size();
    const float* w = p.value.data();
    const float* g = p.grad.data();
    const double l2 = p.decay && s.kind != optimizer_kind::adamw ? s.weight_decay : 0.0;
    // The gradient, the state and every intermediate of the update pass
    // through the context (role optimizer_state), so a precision policy holds
    // each in its format: one rounding per elementary tensor operation, in
    // the order PyTorch 1.13 performs them, which is what a framework
    // computing in fp16/bf16 does.
    const std::span<float> grad = detail::scratch_prefix(grad_, n);
    // Without decay the gradient is taken as it is (PyTorch adds the decay
    // term only when weight_decay != 0), so an infinite weight stays out of it.
    if (l2 != 0.0) {
      const float decay = state_scalar(ctx, p, l2);
      ctx.add_scaled(state_site(p, p.tensor_name), tensor_role::optimizer_state, {g, n}, decay, {w, n},
                     grad);  // grad.add(param, alpha=wd)
    } else {
      std::copy(g, g + n, grad.begin());
    }
    round_state(ctx, p, ".grad", grad);
    if (s.kind == optimizer_kind::sgd)
      sgd_update(ctx, i, lr, grad);
    else
      adam_update(ctx, i, lr, grad);
    ctx.produce(p.site(), tensor_role::master_weight, p.value.values());
  }
}

void optimizer::sgd_update(const op_context& ctx, std::size_t i, double lr, std::span<const float> grad) {
  // PyTorch 1.13's SGD: buf = clone(grad) at the first step, then
  // buf.mul_(momentum).add_(grad); Nesterov's direction
  // grad.add(buf, alpha=momentum); then param.add_(direction, alpha=-lr).
  const auto& s = settings_;
  parameter& p = *params_[i];
  const std::size_t n = grad.size();
  std::span<const float> direction = grad;
  if (s.momentum != 0.0) {
    const float momentum = state_scalar(ctx, p, s.momentum);
    float* buf = first_[i].data();
    if (steps_ == 1) {
      std::copy(grad.begin(), grad.end(), buf);
    } else {
      for (std::size_t j = 0; j < n; ++j) buf[j] *= momentum;
      round_state(ctx, p, ".momentum.decayed", first_[i].values());
      for (std::size_t j = 0; j < n; ++j) buf[j] += grad[j];
    }
    round_state(ctx, p, ".momentum", first_[i].values());
    direction = first_[i].values();
    if (s.nesterov) {
      const std::span<float> delta = detail::scratch_prefix(delta_, n);
      ctx.add_scaled(state_site(p, p.tensor_name), tensor_role::optimizer_state, grad, momentum, first_[i].values(),
                     delta);  // grad.add(buf, alpha=momentum)
      round_state(ctx, p, ".nesterov_direction", delta);
      direction = delta;
    }
  }
  const lab::site where = p.site();
  ctx.update(where, p.value.values(), {direction, ctx.scalar(where, tensor_role::update, -lr)});
}

void optimizer::adam_update(const op_context& ctx, std::size_t i, double lr, std::span<const float> grad) {
  // PyTorch 1.13's Adam: m.mul_(beta1).add_(grad, alpha=1-beta1);
  // v.mul_(beta2).addcmul_(grad, grad, value=1-beta2); the denominator
  // (v.sqrt() / sqrt(bias_correction2)).add_(eps); then
  // param.addcdiv_(m, denominator, value=-lr / bias_correction1). The
  // constants are formed in double, as Python does.
  const auto& s = settings_;
  parameter& p = *params_[i];
  const std::size_t n = grad.size();
  const auto t = static_cast<double>(steps_);
  const double bias1 = 1.0 - std::pow(s.beta1, t);
  const double bias2_sqrt = std::sqrt(1.0 - std::pow(s.beta2, t));
  const float beta1 = state_scalar(ctx, p, s.beta1);
  const float one_minus_beta1 = state_scalar(ctx, p, 1.0 - s.beta1);
  const float beta2 = state_scalar(ctx, p, s.beta2);
  const auto one_minus_beta2 = static_cast<float>(1.0 - s.beta2);  // addcmul's value: fp32 whatever the dtype
  const float correction2 = state_scalar(ctx, p, bias2_sqrt);
  const float eps = state_scalar(ctx, p, s.eps);
  const auto step_size = static_cast<float>(-(lr / bias1));  // addcdiv's value: fp32 whatever the dtype
  float* m = first_[i].data();
  float* v = second_[i].data();
  for (std::size_t j = 0; j < n; ++j) m[j] *= beta1;
  round_state(ctx, p, ".m.decayed", first_[i].values());
  ctx.add_scaled(state_site(p, p.tensor_name), tensor_role::optimizer_state, first_[i].values(), one_minus_beta1,
                 grad, first_[i].values());
  round_state(ctx, p, ".m", first_[i].values());
  for (std::size_t j = 0; j < n; ++j) v[j] *= beta2;
  round_state(ctx, p, ".v.decayed", second_[i].values());
  detail::fused_addcmul_square(second_[i].values(), one_minus_beta2, grad);
  round_state(ctx, p, ".v", second_[i].values());
  const std::span<float> denom = detail::scratch_prefix(denom_, n);
  for (std::size_t j = 0; j < n; ++j) denom[j] = std::sqrt(v[j]);
  round_state(ctx, p, ".sqrt_v", denom);
  for (std::size_t j = 0; j < n; ++j) denom[j] /= correction2;
  round_state(ctx, p, ".sqrt_v_hat", denom);
  for (std::size_t j = 0; j < n; ++j) denom[j] += eps;
  round_state(ctx, p, ".denominator", denom);
  const std::span<float> delta = detail::scratch_prefix(delta_, n);
  for (std::size_t j = 0; j < n; ++j) delta[j] = step_size * m[j] / denom[j];
  // AdamW's param.mul_(1 - lr * weight_decay) comes first in PyTorch; the
  // step does not read w, so the hook performs both in that order.
  const lab::site where = p.site();
  const bool decoupled = s.kind == optimizer_kind::adamw && p.decay && s.weight_decay != 0.0;
  const float keep = decoupled ? ctx.scalar(where, tensor_role::update, 1.0 - lr * s.weight_decay) : 1.0f;
  ctx.update(where, p.value.values(), {delta, 1.0f, keep, step_kernel::addcdiv});
}

void zero_gradients(const std::vector<parameter*>& params) {
  for (auto* p : params) p->grad.zero();
}

float torch_fp32_norm(std::span<const float> values) {
  // ATen 1.13's CPU norm kernel, as built for AVX2 (Debian's python3-torch on
  // x86-64): eight float lanes accumulate fused multiply-adds over the whole
  // vectors, the lanes are added left to right, the tail is fused onto the
  // sum one element at a time (the compiler contracts the scalar loop), then
  // a float square root. The "default" capability (no fusing) and AVX-512
  // (16 lanes) may differ in the last bits; tests/fixtures/pytorch/make_fixtures.py
  // shows the three and insists on AVX2.
  constexpr std::size_t lanes = 8;
  std::array<float, lanes> acc{};
  const std::size_t whole = values.size() - values.size() % lanes;
  for (std::size_t d = 0; d < whole; d += lanes)
    for (std::size_t l = 0; l < lanes; ++l) acc[l] = std::fma(values[d + l], values[d + l], acc[l]);
  float sum = acc[0];
  for (std::size_t l = 1; l < lanes; ++l) sum += acc[l];
  for (std::size_t d = whole; d < values.size(); ++d) sum = std::fma(values[d], values[d], sum);
  return std::sqrt(sum);
}

float global_gradient_norm(const std::vector<parameter*>& params) {
  // clip_grad_norm_ (1.13): torch.norm(torch.stack([torch.norm(g) for g in grads])).
  std::vector<float> norms;
  norms.reserve(params.size());
  for (const auto* p : params) norms.push_back(torch_fp32_norm(p->grad.values()));
  return torch_fp32_norm(norms);
}

double clip_gradient_norm(const std::vector<parameter*>& params, float max_norm) {
  // torch.nn.utils.clip_grad_norm_ (1.13) on fp32 tensors: the norm of the
  // per-tensor norms, clip_coef = reciprocal(total + 1e-6) * max_norm (Python's
  // max_norm / tensor is reciprocal-then-multiply, the scalars cast to float),
  // clamped to at most 1 with NaN kept, and every gradient multiplied by it
  // in float. A norm just below max_norm is therefore still scaled.
  const float total = global_gradient_norm(params);
  if (max_norm <= 0.0f) return total;
  const float coef = (1.0f / (total + static_cast<float>(1e-6))) * max_norm;
  const float clamped = std::isnan(coef) ? coef : std::min(coef, 1.0f);
  // Multiplying by exactly 1 changes no value (NaN and inf included).
  if (clamped != 1.0f) scale_gradients(params, clamped);
  return total;
}

void scale_gradients(const std::vector<parameter*>& params, float factor) {
  for (auto* p : params)
    for (float& g : p->grad.values()) g *= factor;
}

}  // namespace lab
