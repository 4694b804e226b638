// Losses: softmax cross-entropy (with label smoothing) and mean squared error.
// Each returns the mean loss over the batch and writes dL/d(prediction),
// multiplied by `grad_scale` (1 / accumulation steps, or a loss scale later).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "lab/op_context.hpp"
#include "lab/tensor.hpp"

namespace lab {

/// Mean over the batch of -sum_k q_k log softmax(logits)_k where
/// q = (1 - smoothing) * onehot(label) + smoothing / K. logits [N, K].
/// Throws input_error for a label outside [0, K). Non-finite logits follow
/// PyTorch 1.13's log_softmax + nll_loss: a NaN or +inf anywhere in a row
/// makes that row's loss and all its gradients NaN (so the mean is NaN); a
/// -inf logit has probability 0, which makes the loss +inf only if it is the
/// label's or label smoothing is on, and its gradient is -q / N.
float softmax_cross_entropy(const op_context& ctx, const tensor& logits, std::span<const std::int32_t> labels,
                            float label_smoothing, float grad_scale, tensor& grad_logits);

/// Mean over all elements of (prediction - target)^2; shapes must agree.
float mean_squared_error(const op_context& ctx, const tensor& prediction, const tensor& target, float grad_scale,
                         tensor& grad_prediction);

/// The loss a classifier trains on (config key `loss`).
enum class loss_kind : std::uint8_t {
  cross_entropy,  ///< softmax_cross_entropy with the config's label smoothing
  mse,            ///< mean_squared_error against one-hot targets
};

/// The loss_kind a config value names ("cross_entropy", "mse"); throws
/// input_error for any other name.
loss_kind loss_kind_named(std::string_view name);

/// The mean loss of `kind` for logits [N, K] and labels in [0, K), writing
/// dL/d(logits) times `grad_scale`: softmax_cross_entropy, or
/// mean_squared_error against one-hot targets (label_smoothing unused).
/// Throws input_error for a label outside [0, K).
float classification_loss(const op_context& ctx, loss_kind kind, const tensor& logits,
                          std::span<const std::int32_t> labels, float label_smoothing, float grad_scale,
                          tensor& grad_logits);

}  // namespace lab
