// Inverted dropout: in training each element is zeroed with probability p and
// the rest scaled by 1/(1-p); in evaluation the layer is the identity.
#pragma once

#include <vector>

#include "lab/layer.hpp"

namespace lab {

/// Dropout layer. The mask of a step is drawn from rng(ctx.seed ^ hash(name),
/// ctx.step), so runs are reproducible and resumable.
class dropout : public layer {
 public:
  dropout(std::string name, float drop_probability);
  [[nodiscard]] std::string_view kind() const override { return "dropout"; }
  [[nodiscard]] lab::op_class op_class() const override { return lab::op_class::elementwise; }
  [[nodiscard]] shape output_shape(const shape& in) const override { return in; }
  void forward(const op_context& ctx, const tensor& in, tensor& out) override;
  void backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                tensor* grad_in) override;

 private:
  float p_;
  std::vector<float> mask_;  // 0 or 1/(1-p) per element of the latest training forward
  bool mask_valid_ = false;
};

}  // namespace lab
