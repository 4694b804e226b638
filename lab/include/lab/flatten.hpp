// Flatten [N, C, H, W] (or any rank >= 2) to [N, C*H*W].
#pragma once

#include "lab/layer.hpp"

namespace lab {

/// Flatten layer: a copy with a new shape, so the op boundary stays visible
/// to the op_context like any other op's.
class flatten : public layer {
 public:
  using layer::layer;
  [[nodiscard]] std::string_view kind() const override { return "flatten"; }
  [[nodiscard]] lab::op_class op_class() const override { return lab::op_class::elementwise; }
  [[nodiscard]] shape output_shape(const shape& in) const override;
  void forward(const op_context& ctx, const tensor& in, tensor& out) override;
  void backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                tensor* grad_in) override;
};

}  // namespace lab
