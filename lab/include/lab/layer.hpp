// The layer interface every op implements, and trainable parameters.
//
// A model is a tree of layers; a sequential container keeps every layer's
// input and output alive until backward, so a layer's backward receives both
// and caches only what it cannot recompute (pooling argmax, batch-norm
// statistics, dropout masks). All tensors a layer writes pass through the
// op_context (see op_context.hpp).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lab/op_context.hpp"
#include "lab/rng.hpp"
#include "lab/tensor.hpp"

namespace lab {

/// A trainable tensor with its gradient accumulator.
struct parameter {
  std::string name;     ///< unique, "<layer>.<tensor>", e.g. "conv1.kernel"
  std::string layer;    ///< the owning layer's name (a site's layer)
  std::string op;       ///< the owning layer's op kind (a site's op)
  lab::op_class op_class = lab::op_class::elementwise;  ///< the owning layer's class (a site's op_class)
  std::string tensor_name;  ///< "kernel", "bias", "gamma", "beta"
  tensor value;
  tensor grad;          ///< accumulated by backward; zeroed by the trainer
  bool decay = true;    ///< weight decay applies (false for biases and norms)

  /// The site under which this parameter is reported.
  [[nodiscard]] lab::site site() const { return {layer, op, op_class, tensor_name}; }
};

/// A zero-valued parameter of the given shape with a matching gradient.
parameter make_parameter(std::string_view layer, std::string_view op, lab::op_class op_class,
                         std::string_view tensor_name, const shape& s, bool decay);

/// One op with forward and backward.
class layer {
 public:
  explicit layer(std::string name) : name_(std::move(name)) {}
  virtual ~layer() = default;
  layer(const layer&) = delete;
  layer& operator=(const layer&) = delete;

  /// Unique name within the model ("conv1"), used for sites and checkpoints.
  [[nodiscard]] const std::string& name() const { return name_; }
  /// Op kind ("conv2d", "dense", ...).
  [[nodiscard]] virtual std::string_view kind() const = 0;
  /// The class a precision policy treats this op as (dense: matmul, relu:
  /// elementwise, ...); every layer says its own, so no kind is guessed.
  [[nodiscard]] virtual lab::op_class op_class() const = 0;

  /// Output shape for input shape `in` (batch first); throws input_error
  /// naming the layer when the shape cannot work.
  [[nodiscard]] virtual shape output_shape(const shape& in) const = 0;
  /// Computes `out` from `in` (out is resized as needed).
  virtual void forward(const op_context& ctx, const tensor& in, tensor& out) = 0;
  /// Given dL/d(out), adds dL/d(parameter) into each parameter's grad and,
  /// when grad_in is not null, writes dL/d(in) to it. `in` and `out` are
  /// the tensors of the latest forward call.
  virtual void backward(const op_context& ctx, const tensor& in, const tensor& out,
                        const tensor& grad_out, tensor* grad_in) = 0;

  /// Trainable parameters (stable pointers into the layer).
  virtual std::vector<parameter*> parameters() { return {}; }
  /// Non-trainable state saved in checkpoints (batch-norm running stats).
  virtual std::vector<tensor*> buffers() { return {}; }
  /// Draws initial parameter values.
  virtual void initialise(rng& /*gen*/) {}

 protected:
  /// Site of one of this layer's tensors.
  [[nodiscard]] lab::site site(std::string_view tensor_name) const { return {name_, kind(), op_class(), tensor_name}; }

 private:
  std::string name_;
};

using layer_ptr = std::unique_ptr<layer>;

}  // namespace lab
