// A chain of layers, itself a layer (so residual blocks can nest chains).
#pragma once

#include <utility>
#include <vector>

#include "lab/layer.hpp"

namespace lab {

/// Runs its layers in order; keeps every intermediate output for backward.
class sequential : public layer {
 public:
  using layer::layer;
  [[nodiscard]] std::string_view kind() const override { return "sequential"; }
  [[nodiscard]] lab::op_class op_class() const override { return lab::op_class::elementwise; }

  /// Appends a layer and returns a reference to it.
  template <typename L, typename... Args>
  L& emplace(Args&&... args) {
    auto owned = std::make_unique<L>(std::forward<Args>(args)...);
    L& ref = *owned;
    layers_.push_back(std::move(owned));
    return ref;
  }
  /// Appends an already built layer.
  void add(layer_ptr l) { layers_.push_back(std::move(l)); }
  [[nodiscard]] const std::vector<layer_ptr>& layers() const { return layers_; }

  [[nodiscard]] shape output_shape(const shape& in) const override;
  void forward(const op_context& ctx, const tensor& in, tensor& out) override;
  void backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                tensor* grad_in) override;
  std::vector<parameter*> parameters() override;
  std::vector<tensor*> buffers() override;
  void initialise(rng& gen) override;

 private:
  std::vector<layer_ptr> layers_;
  std::vector<tensor> outputs_;  // outputs_[i] is layer i's output (the last one is the caller's)
  tensor grad_a_, grad_b_;       // ping-pong gradient buffers
};

}  // namespace lab
