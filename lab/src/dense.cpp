#include "lab/dense.hpp"

#include <cmath>

#include "lab/errors.hpp"

namespace lab {

dense::dense(std::string name, std::size_t in_features, std::size_t out_features, bool bias)
    : layer(std::move(name)), in_(in_features), out_(out_features), has_bias_(bias) {
  kernel_ = make_parameter(this->name(), kind(), op_class(), "kernel", {out_, in_}, true);
  if (has_bias_) bias_ = make_parameter(this->name(), kind(), op_class(), "bias", {out_}, false);
}

shape dense::output_shape(const shape& in) const {
  if (in.rank() != 2 || in[1] != in_)
    throw input_error("layer " + name() + " (dense): expects input [N, " + std::to_string(in_) + "], got " +
                      in.str());
  return {in[0], out_};
}

void dense::forward(const op_context& ctx, const tensor& in, tensor& out) {
  const std::size_t n = in.shape()[0];
  out.resize(output_shape(in.shape()));
  const auto w = ctx.weight(site("kernel"), kernel_.value.values());
  const auto x = ctx.operand(site("input"), tensor_role::activation, in.values());
  float beta = 0.0f;
  if (has_bias_) {
    const auto b = ctx.weight(site("bias"), bias_.value.values());
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t o = 0; o < out_; ++o) out[i * out_ + o] = b[o];
    beta = 1.0f;
  }
  ctx.gemm(site("output"), tensor_role::activation,
           {false, true, n, out_, in_, x.data(), in_, w.data(), in_, beta, out.data(), out_, tensor_role::activation,
            tensor_role::weight});
  ctx.produce(site("output"), tensor_role::activation, out.values());
}

void dense::backward(const op_context& ctx, const tensor& in, const tensor& /*out*/, const tensor& grad_out,
                     tensor* grad_in) {
  const std::size_t n = in.shape()[0];
  // The input as the forward rounded it (`in` is its input, unchanged).
  const auto x = ctx.operand_again(site("input"), tensor_role::activation, in.values());
  const auto dy = ctx.operand(site("grad_output"), tensor_role::grad_input, grad_out.values());
  // dW[o, f] += sum_n dY[n, o] * X[n, f]
  ctx.gemm(site("kernel"), tensor_role::grad_weight,
           {true, false, out_, in_, n, dy.data(), out_, x.data(), in_, 1.0f, kernel_.grad.data(), in_,
            tensor_role::grad_input, tensor_role::activation});
  ctx.produce(site("kernel"), tensor_role::grad_weight, kernel_.grad.values());
  if (has_bias_) {
    float* db = bias_.grad.data();
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t o = 0; o < out_; ++o) db[o] += dy[i * out_ + o];
    ctx.produce(site("bias"), tensor_role::grad_weight, bias_.grad.values());
  }
  if (grad_in != nullptr) {
    grad_in->resize(in.shape());
    const auto w = ctx.weight_again(site("kernel"), kernel_.value.values());
    // dX[n, f] = sum_o dY[n, o] * W[o, f]
    ctx.gemm(site("grad_input"), tensor_role::grad_input,
             {false, false, n, in_, out_, dy.data(), out_, w.data(), in_, 0.0f, grad_in->data(), in_,
              tensor_role::grad_input, tensor_role::weight});
    ctx.produce(site("grad_input"), tensor_role::grad_input, grad_in->values());
  }
}

std::vector<parameter*> dense::parameters() {
  if (has_bias_) return {&kernel_, &bias_};
  return {&kernel_};
}

void dense::initialise(rng& gen) {
  const float limit = std::sqrt(6.0f / static_cast<float>(in_ + out_));
  for (auto& v : kernel_.value.values()) v = gen.uniform(-limit, limit);
  if (has_bias_) bias_.value.zero();
}

}  // namespace lab
