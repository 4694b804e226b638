#include "lab/relu.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "parallel.hpp"

namespace lab {

void relu::forward(const op_context& ctx, const tensor& in, tensor& out) {
  out.resize(in.shape());
  detail::parallel_elementwise(ctx.threads, in.size(), [&](std::size_t begin, std::size_t end) {
    const float* __restrict x = in.data();
    float* __restrict y = out.data();
    for (std::size_t i = begin; i < end; ++i) y[i] = std::max(x[i], 0.0f);
  });
  ctx.produce_from(site("output"), out.values(), {in.values()});
}

void relu::backward(const op_context& ctx, const tensor& in, const tensor& /*out*/, const tensor& grad_out,
                    tensor* grad_in) {
  if (grad_in == nullptr) return;
  grad_in->resize(in.shape());
  // A bit mask instead of a branch or a multiply: signs are random (a branch
  // mispredicts half the time), GCC will not if-convert the conditional load,
  // and dy * 0 would turn an infinite gradient into NaN. The mask keeps dy
  // exactly where !(x <= 0) (x > 0 or NaN, PyTorch's threshold_backward)
  // and gives +0 elsewhere, and the loop vectorises.
  detail::parallel_elementwise(ctx.threads, in.size(), [&](std::size_t begin, std::size_t end) {
    const float* __restrict x = in.data();
    const float* __restrict dy = grad_out.data();
    float* __restrict dx = grad_in->data();
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t keep = x[i] <= 0.0f ? 0u : 0xffffffffu;
      dx[i] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(dy[i]) & keep);
    }
  });
  ctx.produce(site("grad_input"), tensor_role::grad_input, grad_in->values());
}

}  // namespace lab
