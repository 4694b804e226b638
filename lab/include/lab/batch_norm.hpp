// Batch normalisation over the batch (and spatial) axes, per channel.
#pragma once

#include <vector>

#include "lab/layer.hpp"

namespace lab {

/// Batch norm for [N, C, H, W] (statistics over N, H, W) or [N, C] (over N).
/// Training normalises with the batch mean and biased variance and updates
/// the running statistics as running = (1 - momentum) * running + momentum *
/// batch, with the unbiased variance (PyTorch's convention); evaluation uses
/// the running statistics. NaN and inf (as PyTorch 1.13): in training a NaN
/// or inf anywhere in a channel makes the channel's variance NaN, so all its
/// outputs and input gradients NaN and its running statistics non-finite;
/// other channels are untouched. In evaluation a NaN stays in its element.
class batch_norm : public layer {
 public:
  batch_norm(std::string name, std::size_t channels, float momentum = 0.1f, float eps = 1e-5f);
  [[nodiscard]] std::string_view kind() const override { return "batch_norm"; }
  [[nodiscard]] lab::op_class op_class() const override { return lab::op_class::norm; }
  [[nodiscard]] shape output_shape(const shape& in) const override;
  void forward(const op_context& ctx, const tensor& in, tensor& out) override;
  void backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                tensor* grad_in) override;
  std::vector<parameter*> parameters() override { return {&gamma_, &beta_}; }
  std::vector<tensor*> buffers() override { return {&running_mean_, &running_var_}; }
  /// gamma = 1, beta = 0, running mean 0, running variance 1.
  void initialise(rng& gen) override;

  [[nodiscard]] const tensor& running_mean() const { return running_mean_; }
  [[nodiscard]] const tensor& running_var() const { return running_var_; }

 private:
  std::size_t channels_;
  float momentum_, eps_;
  parameter gamma_, beta_;
  tensor running_mean_, running_var_;
  std::vector<float> mean_, inv_std_;  // statistics used by the latest forward
  bool used_batch_stats_ = false;
};

}  // namespace lab
