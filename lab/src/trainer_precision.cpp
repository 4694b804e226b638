// The trainer's precision set-up: the policy's hook (chained before any hook
// the caller installed), the loss scaler and the configuration warnings.
#include <cstdio>

#include "lab/loss.hpp"
#include "lab/precision_warnings.hpp"
#include "lab/trainer.hpp"

namespace lab {

void progress_sink::on_warning(const std::string& message) {
  std::fprintf(stderr, "numlab: warning: %s\n", message.c_str());
}

void trainer::install_precision(const optimizer_settings& os, const model_spec& spec) {
  const precision_policy policy = config_.precision.resolve();
  scaler_ = std::make_unique<loss_scaler>(policy.scaling);
  warnings_ = precision_warnings(policy, os, config_.lr);
  if (policy.is_fp32() && policy.traps == num::flags::none) return;
  tensor_hook* after = ctx_.hook();
  if (policy.shadow) {
    recorder_ = std::make_unique<tensor_recorder>(after);
    after = recorder_.get();
    shadow_ = std::make_unique<shadow_model>(make_model(spec));
  }
  precision_ = std::make_unique<precision_hook>(policy, config_.seed, after);
  op_context ctx = precision_->context();
  ctx.training = ctx_.training;
  ctx.seed = ctx_.seed;
  ctx.step = ctx_.step;
  ctx.threads = ctx_.threads;
  ctx_ = ctx;
  // Pure policies store the weights in the format from the start (and after
  // resuming from an fp32 checkpoint).
  precision_->store_parameters(params_);
}

void trainer::run_shadow(const batch& b, float grad_scale) {
  // The same loss and gradient scale as the low-precision model, so scaled
  // gradients are compared with equally scaled ones.
  op_context like = ctx_;
  like.training = true;
  like.step = micro_steps_done_;
  shadow_->compare(*model_, *recorder_, b.images, like, [&](const op_context& ctx, const tensor& logits, tensor& grad) {
    classification_loss(ctx, loss_, logits, b.labels, static_cast<float>(config_.label_smoothing), grad_scale, grad);
  });
}

std::vector<shadow_error> trainer::shadow_errors() const {
  return shadow_ ? shadow_->errors() : std::vector<shadow_error>{};
}

}  // namespace lab
