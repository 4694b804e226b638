// The trainer's precision set-up: the policy's hook (chained before any hook
// the caller installed), the loss scaler and the configuration warnings.
#include <cstdio>

#include "lab/precision_warnings.hpp"
#include "lab/trainer.hpp"

namespace lab {

void progress_sink::on_warning(const std::string& message) {
  std::fprintf(stderr, "numlab: warning: %s\n", message.c_str());
}

void trainer::install_precision(const optimizer_settings& os) {
  const precision_policy policy = config_.precision.resolve();
  scaler_ = std::make_unique<loss_scaler>(policy.scaling);
  warnings_ = precision_warnings(policy, os, config_.lr);
  if (policy.is_fp32() && policy.traps == num::flags::none) return;
  precision_ = std::make_unique<precision_hook>(policy, config_.seed, ctx_.hook());
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

}  // namespace lab
