// Fully connected layer: out[n, o] = sum_f in[n, f] * W[o, f] + b[o].
#pragma once

#include "lab/layer.hpp"

namespace lab {

/// Dense (matmul + optional bias) layer; input [N, F], output [N, O].
/// The kernel is stored [O, F] (PyTorch's layout). Each output's sum
/// starts at its bias and adds in[n, f] * W[o, f] for f in order: the bias
/// is the GEMM's C with beta = 1, as in PyTorch's addmm(bias, x, W^T) and
/// in conv2d, so low-precision partials round bias + first product first.
class dense : public layer {
 public:
  dense(std::string name, std::size_t in_features, std::size_t out_features, bool bias = true);

  [[nodiscard]] std::string_view kind() const override { return "dense"; }

  [[nodiscard]] lab::op_class op_class() const override { return lab::op_class::matmul; }
  [[nodiscard]] shape output_shape(const shape& in) const override;
  void forward(const op_context& ctx, const tensor& in, tensor& out) override;
  void backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                tensor* grad_in) override;
  std::vector<parameter*> parameters() override;
  /// Glorot-uniform kernel, zero bias (TensorFlow's defaults).
  void initialise(rng& gen) override;

  parameter& kernel() { return kernel_; }
  parameter& bias() { return bias_; }

 private:
  std::size_t in_, out_;
  bool has_bias_;
  parameter kernel_, bias_;
};

}  // namespace lab
