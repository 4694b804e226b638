#include "lab/relu.hpp"

#include <algorithm>

namespace lab {

void relu::forward(const op_context& ctx, const tensor& in, tensor& out) {
  out.resize(in.shape());
  const float* __restrict x = in.data();
  float* __restrict y = out.data();
  const std::size_t n = in.size();
  for (std::size_t i = 0; i < n; ++i) y[i] = std::max(x[i], 0.0f);
  ctx.produce(site("output"), tensor_role::activation, out.values());
}

void relu::backward(const op_context& ctx, const tensor& in, const tensor& /*out*/, const tensor& grad_out,
                    tensor* grad_in) {
  if (grad_in == nullptr) return;
  grad_in->resize(in.shape());
  // Branch-free and __restrict so the loop vectorises: signs are random, a
  // branch would mispredict half the time.
  const float* __restrict x = in.data();
  const float* __restrict dy = grad_out.data();
  float* __restrict dx = grad_in->data();
  const std::size_t n = in.size();
  for (std::size_t i = 0; i < n; ++i) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
  ctx.produce(site("grad_input"), tensor_role::grad_input, grad_in->values());
}

}  // namespace lab
