// Batch normalisation over the batch (and spatial) axes, per channel.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lab/layer.hpp"

namespace lab {

/// How batch norm computes a channel's mean and variance in training. The
/// rounded ways hand their intermediate tensors to the op_context (sites
/// "mean", "deviations", "squares" of the layer, role activation), so a
/// precision policy rounds them into the norm's compute format (fp16 under
/// pure fp16, "16.16"; nothing under fp32 or the mixed policies, where
/// norms compute in fp32) and a tracer records them.
enum class norm_statistics : std::uint8_t {
  /// numlab's own: two passes in double (the mean, then the squared
  /// deviations), nothing rounded inside.
  exact,
  /// E[x^2] - E[x]^2 in one pass, as an IPU normalisation without
  /// use_stable_statistics (Graphcore's CNN README: --stable-norm False):
  /// each square x * x rounded into the format, the values and the squares
  /// summed in fp32, the difference in fp32. Squares past the format's
  /// largest value make the variance inf, cancellation can make it wrong
  /// or negative.
  one_pass,
  /// The mean subtracted first (use_stable_statistics=True, --stable-norm
  /// True): the mean summed in fp32 and rounded into the format, each
  /// deviation x - mean computed in fp32 and rounded, its square rounded,
  /// the squares summed in fp32.
  stable,
};

/// "exact", "one_pass", "stable" (train_config's norm_statistics key).
std::string_view norm_statistics_name(norm_statistics s);
/// The inverse of norm_statistics_name; input_error for another name.
norm_statistics parse_norm_statistics(std::string_view name);

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
  batch_norm(std::string name, std::size_t channels, float momentum = 0.1f, float eps = 1e-5f,
             norm_statistics statistics = norm_statistics::exact);
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
  [[nodiscard]] norm_statistics statistics() const { return statistics_; }

 private:
  /// batch_mean_ and batch_var_ of `in` the rounded ways (statistics_ is
  /// not exact), each channel's `count` values.
  void rounded_statistics(const op_context& ctx, const tensor& in, std::size_t count);

  std::size_t channels_;
  float momentum_, eps_;
  norm_statistics statistics_;
  parameter gamma_, beta_;
  tensor running_mean_, running_var_;
  std::vector<float> mean_, inv_std_;  // statistics used by the latest forward
  std::vector<float> batch_mean_, batch_var_, scratch_;  // rounded_statistics()'s
  bool used_batch_stats_ = false;
};

}  // namespace lab
