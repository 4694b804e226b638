#include "lab/flatten.hpp"

#include <algorithm>

#include "lab/errors.hpp"

namespace lab {

shape flatten::output_shape(const shape& in) const {
  if (in.rank() < 2) throw input_error("layer " + name() + " (flatten): needs a batch dimension, got " + in.str());
  return {in[0], in.per_sample()};
}

void flatten::forward(const op_context& ctx, const tensor& in, tensor& out) {
  out.resize(output_shape(in.shape()));
  std::copy(in.data(), in.data() + in.size(), out.data());
  ctx.produce_from(site("output"), out.values(), {in.values()});
}

void flatten::backward(const op_context& ctx, const tensor& in, const tensor& /*out*/, const tensor& grad_out,
                       tensor* grad_in) {
  if (grad_in == nullptr) return;
  grad_in->resize(in.shape());
  std::copy(grad_out.data(), grad_out.data() + grad_out.size(), grad_in->data());
  ctx.produce(site("grad_input"), tensor_role::grad_input, grad_in->values());
}

}  // namespace lab
