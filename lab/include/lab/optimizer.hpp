// Optimizers: SGD (plain, momentum, Nesterov), Adam and AdamW, with weight
// decay; plus gradient clipping by global norm. Every weight write goes
// through op_context::update (role update) and is then reported with role
// master_weight, so precision policies control how updates are rounded.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lab/layer.hpp"

namespace lab {

/// Which update rule.
enum class optimizer_kind { sgd, adam, adamw };

/// Hyper-parameters. Semantics follow PyTorch: SGD momentum without
/// dampening, buf = momentum*buf + g, Nesterov uses g + momentum*buf; Adam's
/// eps is added to sqrt(v)/sqrt(1 - beta2^t). weight_decay adds
/// weight_decay*w to the gradient (L2) for sgd and adam, and shrinks w by
/// lr*weight_decay*w directly (decoupled) for adamw. Parameters whose `decay`
/// flag is false (biases, norm scales) are never decayed.
/// NaN and inf (PyTorch 1.13): a NaN or inf gradient reaches the weight
/// through the arithmetic (Adam: inf gradient -> inf/inf = NaN step); a
/// weight that is already inf or NaN stays so, and without decay it never
/// meets a 0 * w term. One difference remains: with AdamW's decoupled decay
/// an infinite weight becomes NaN here (w + (step - lr*wd*w)), where
/// PyTorch's w * (1 - lr*wd) + step keeps it infinite.
struct optimizer_settings {
  optimizer_kind kind = optimizer_kind::adam;
  float momentum = 0.0f;
  bool nesterov = false;
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  float weight_decay = 0.0f;
};

/// Parses "sgd", "adam", "adamw"; throws input_error otherwise.
optimizer_kind parse_optimizer_kind(const std::string& name);

/// Applies one update per call to a fixed list of parameters.
class optimizer {
 public:
  optimizer(optimizer_settings settings, std::vector<parameter*> params);

  /// One update with learning rate lr from the parameters' current grads.
  void step(const op_context& ctx, float lr);
  /// Number of updates applied so far (Adam's t).
  [[nodiscard]] std::uint64_t steps() const { return steps_; }
  /// Restores the update counter (checkpoint resume).
  void set_steps(std::uint64_t n) { steps_ = n; }
  /// The per-parameter state tensors (momentum buffers, Adam's m and v) in a
  /// fixed order, for checkpoints.
  std::vector<tensor*> state();

 private:
  /// Hands an optimizer intermediate of parameter p to the context (site
  /// "<tensor><suffix>", role optimizer_state), where a policy rounds it.
  void round_state(const op_context& ctx, const parameter& p, std::string_view suffix, std::span<float> values) const;
  /// delta_ <- SGD's step for parameter i from grad_ (momentum, Nesterov).
  void sgd_delta(const op_context& ctx, std::size_t i, float lr);
  /// delta_ <- Adam's (AdamW's) step for parameter i from grad_.
  void adam_delta(const op_context& ctx, std::size_t i, float lr);

  optimizer_settings settings_;
  std::vector<parameter*> params_;
  std::vector<tensor> first_, second_;  // momentum / Adam m; Adam v
  std::vector<float> delta_;            // scratch for the update of one parameter
  std::vector<float> grad_, denom_;     // scratch: regularised gradient, Adam's denominator
  std::uint64_t steps_ = 0;
};

/// Sets every parameter's gradient to zero.
void zero_gradients(const std::vector<parameter*>& params);
/// The global L2 norm of all gradients (accumulated in double).
double gradient_norm(const std::vector<parameter*>& params);
/// Scales all gradients so their global norm is at most max_norm; returns
/// the norm before clipping. max_norm <= 0 disables clipping. A NaN norm
/// makes every gradient NaN and an infinite one zeroes the finite gradients
/// (the inf ones become NaN), as torch.nn.utils.clip_grad_norm_ does.
double clip_gradient_norm(const std::vector<parameter*>& params, float max_norm);
/// Multiplies every gradient by `factor` (gradient accumulation averaging).
void scale_gradients(const std::vector<parameter*>& params, float factor);

}  // namespace lab
