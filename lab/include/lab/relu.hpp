// Rectified linear unit, elementwise: out = max(in, 0).
#pragma once

#include "lab/layer.hpp"

namespace lab {

/// ReLU layer; any shape. The gradient at exactly 0 is taken as 0. NaN
/// (PyTorch 1.13's clamp_min and threshold_backward): relu(NaN) = NaN, and
/// the gradient passes unchanged where the input is NaN (the test is
/// `x <= 0 ? 0 : dy`, which is false for NaN).
class relu : public layer {
 public:
  using layer::layer;
  [[nodiscard]] std::string_view kind() const override { return "relu"; }
  [[nodiscard]] lab::op_class op_class() const override { return lab::op_class::elementwise; }
  [[nodiscard]] shape output_shape(const shape& in) const override { return in; }
  void forward(const op_context& ctx, const tensor& in, tensor& out) override;
  void backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                tensor* grad_in) override;
};

}  // namespace lab
