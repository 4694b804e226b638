// Optimizers: SGD (plain, momentum, Nesterov), Adam and AdamW, with weight
// decay; plus gradient clipping by global norm. Every weight write goes
// through op_context::update (role update) and is then reported with role
// master_weight, so precision policies control how updates are rounded.
// The operation order, PyTorch 1.13's, is stated at class optimizer.
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

/// Hyper-parameters, as doubles: PyTorch keeps them as Python floats and
/// forms its constants (1 - beta1, lr / (1 - beta1^t), ...) in double.
/// Semantics follow PyTorch 1.13 (torch.optim, foreach=False): SGD momentum
/// without dampening, Nesterov's direction g + momentum * buf; Adam's eps is
/// added to sqrt(v) / sqrt(1 - beta2^t). weight_decay adds weight_decay * w
/// to the gradient (L2) for sgd and adam, and multiplies w by
/// 1 - lr * weight_decay first (decoupled) for adamw. Parameters whose
/// `decay` flag is false (biases, norm scales) are never decayed.
/// NaN and inf (PyTorch 1.13): a NaN or inf gradient reaches the weight
/// through the arithmetic (Adam: inf gradient -> inf/inf = NaN step); a
/// weight that is already inf or NaN stays so, and without decay it never
/// meets a 0 * w term.
struct optimizer_settings {
  optimizer_kind kind = optimizer_kind::adam;
  double momentum = 0.0;
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weight_decay = 0.0;
};

/// Parses "sgd", "adam", "adamw"; throws input_error otherwise.
optimizer_kind parse_optimizer_kind(const std::string& name);

/// Applies one update per call to a fixed list of parameters, bit for bit
/// as PyTorch 1.13's single-tensor CPU optimizers do in fp32 and, under a
/// policy that holds parameters and state in bf16, as they do with
/// torch.bfloat16 parameters (tests/lab/pytorch_fixture_test.cpp): in their
/// vectorised body always, and in every element when the policy names the
/// CPU capability and thread count of the torch run (precision_policy::
/// torch_bf16, config key torch_bf16_kernels). PyTorch's bf16 add(b, alpha)
/// rounds the product to bf16 before the sum in the elements after each
/// parallel chunk's last whole block of two vectors (the last n mod 32 under
/// AVX2, n mod 64 under AVX-512; torch_cpu_kernels.hpp), so the lines marked
/// fma below that take an alpha (not addcmul's) go through
/// op_context::add_scaled, and SGD's write says step_kernel::add.
/// Capability "default" (no SIMD) is not emulated.
///
/// Operation order, one rounding per PyTorch tensor operation; fma(a, b, c)
/// is a * b + c rounded once (PyTorch's add with alpha, and addcmul, compute
/// so on the CPU); "[dtype]" marks a hyper-parameter that PyTorch casts to
/// the tensor's dtype (op_context::scalar), the others stay in fp32.
/// Every line ends in a rounding into the state's format (role
/// optimizer_state) or, for w, the weight's (role update):
///   g'  = fma(w, wd[dtype], g)                   sgd, adam with weight_decay
///   SGD with momentum:
///     buf = g' at the first step (a copy), else
///     buf = buf * momentum[dtype];  buf = buf + g'
///     d   = fma(buf, momentum[dtype], g') with Nesterov, else buf
///   SGD without momentum: d = g'
///   SGD: w = fma(d, -lr[dtype], w)
///   AdamW (decayed parameters): w = w * (1 - lr * wd)[dtype], before all else
///   Adam, AdamW (t = steps(), constants formed in double):
///     m = m * beta1[dtype];  m = fma(g', (1 - beta1)[dtype], m)
///     v = v * beta2[dtype];  v = fma((1 - beta2) * g', g', v)
///     q = sqrt(v);  q = q / sqrt(1 - beta2^t)[dtype];  q = q + eps[dtype]
///     w = w + ((-lr / (1 - beta1^t)) * m) / q  (the step rounded to fp32,
///         then the sum)
class optimizer {
 public:
  optimizer(optimizer_settings settings, std::vector<parameter*> params);

  /// One update with learning rate lr from the parameters' current grads.
  void step(const op_context& ctx, double lr);
  /// Number of updates applied so far (Adam's t).
  [[nodiscard]] std::uint64_t steps() const { return steps_; }
  /// Restores the update counter (checkpoint resume).
  void set_steps(std::uint64_t n) { steps_ = n; }
  /// The per-parameter state tensors (momentum buffers, Adam's m and v) in a
  /// fixed order, for checkpoints.
  std::vector<tensor*> state();

 private:
  /// Where the optimizer's intermediates of parameter p are produced (site
  /// "<tensor><suffix>", role optimizer_state).
  [[nodiscard]] lab::site state_site(const parameter& p, std::string_view tensor) const;
  /// Hands an optimizer intermediate of parameter p to the context (site
  /// "<tensor><suffix>", role optimizer_state), where a policy rounds it.
  void round_state(const op_context& ctx, const parameter& p, std::string_view suffix, std::span<float> values) const;
  /// The hyper-parameter `value` as PyTorch combines it with parameter p's
  /// state tensors (cast to their dtype).
  [[nodiscard]] float state_scalar(const op_context& ctx, const parameter& p, double value) const;
  /// SGD's update of parameter i from its regularised gradient (momentum, Nesterov).
  void sgd_update(const op_context& ctx, std::size_t i, double lr, std::span<const float> grad);
  /// Adam's (AdamW's) update of parameter i from its regularised gradient.
  void adam_update(const op_context& ctx, std::size_t i, double lr, std::span<const float> grad);

  optimizer_settings settings_;
  std::vector<parameter*> params_;
  std::vector<tensor> first_, second_;  // momentum / Adam m; Adam v
  // Scratch, used through detail::scratch_prefix: parameters of different
  // sizes take turns, and resizing to each would zero-fill on every step.
  std::vector<float> delta_;            // Nesterov's direction, Adam's step
  std::vector<float> grad_, denom_;     // regularised gradient, Adam's denominator
  std::uint64_t steps_ = 0;
};

/// Sets every parameter's gradient to zero.
void zero_gradients(const std::vector<parameter*>& params);
/// torch.norm(values, 2) of an fp32 tensor in PyTorch 1.13's CPU (AVX2)
/// summation order: float, eight fused multiply-add lanes, then the tail.
float torch_fp32_norm(std::span<const float> values);
/// The global L2 norm of all gradients as torch.nn.utils.clip_grad_norm_
/// (PyTorch 1.13, fp32) takes and returns it: torch_fp32_norm() of the
/// per-gradient torch_fp32_norm()s, in float. It is the norm the trainer
/// records, clipping or not, so that the recorded value is the one clipping
/// compares with max_norm and the one a PyTorch script would log. Float
/// overflows where double would not (sum of squares above ~3.4e38), as in torch.
float global_gradient_norm(const std::vector<parameter*>& params);
/// torch.nn.utils.clip_grad_norm_(params, max_norm) of PyTorch 1.13 in fp32,
/// bit for bit: global_gradient_norm(), multiplied into every gradient as
/// min(max_norm / (norm + 1e-6), 1) in float. Returns that norm.
/// max_norm <= 0 disables clipping (returns the norm only). A NaN
/// norm makes every gradient NaN and an infinite one zeroes the finite
/// gradients (the inf ones become NaN), as torch does.
double clip_gradient_norm(const std::vector<parameter*>& params, float max_norm);
/// Multiplies every gradient by `factor` (gradient accumulation averaging).
void scale_gradients(const std::vector<parameter*>& params, float factor);

}  // namespace lab
