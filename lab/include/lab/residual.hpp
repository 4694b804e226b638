// Residual add: out = main(x) + shortcut(x), the core of a ResNet block.
#pragma once

#include <memory>

#include "lab/sequential.hpp"

namespace lab {

/// A residual block: a main branch and a shortcut branch (identity when it
/// has no layers), summed elementwise. The activation after the sum is a
/// separate layer, so this op is exactly the residual add.
class residual : public layer {
 public:
  explicit residual(std::string name);
  [[nodiscard]] std::string_view kind() const override { return "residual_add"; }
  [[nodiscard]] lab::op_class op_class() const override { return lab::op_class::elementwise; }

  /// The main branch, to be filled by the caller.
  sequential& main_branch() { return main_; }
  /// The shortcut branch; leave empty for the identity.
  sequential& shortcut() { return shortcut_; }

  [[nodiscard]] shape output_shape(const shape& in) const override;
  void forward(const op_context& ctx, const tensor& in, tensor& out) override;
  void backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                tensor* grad_in) override;
  std::vector<parameter*> parameters() override;
  std::vector<tensor*> buffers() override;
  void initialise(rng& gen) override;

 private:
  sequential main_, shortcut_;
  tensor main_out_, shortcut_out_, main_grad_, shortcut_grad_;
};

}  // namespace lab
