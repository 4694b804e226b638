#include "lab/dropout.hpp"

#include <functional>
#include <string>

#include "lab/errors.hpp"

namespace lab {

dropout::dropout(std::string name, float drop_probability) : layer(std::move(name)), p_(drop_probability) {
  if (!(p_ >= 0.0f && p_ < 1.0f))
    throw input_error("layer " + this->name() + " (dropout): probability must be in [0, 1), got " +
                      std::to_string(p_));
}

void dropout::forward(const op_context& ctx, const tensor& in, tensor& out) {
  out.resize(in.shape());
  const std::size_t n = in.size();
  mask_valid_ = ctx.training && p_ > 0.0f;
  if (!mask_valid_) {
    std::copy(in.data(), in.data() + n, out.data());
  } else {
    rng gen(ctx.seed ^ std::hash<std::string>{}(name()), ctx.step);
    const float keep_scale = 1.0f / (1.0f - p_);
    mask_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      mask_[i] = gen.uniform() < p_ ? 0.0f : keep_scale;
      out[i] = in[i] * mask_[i];
    }
  }
  ctx.produce_from(site("output"), out.values(), {in.values()});
}

void dropout::backward(const op_context& ctx, const tensor& in, const tensor& /*out*/, const tensor& grad_out,
                       tensor* grad_in) {
  if (grad_in == nullptr) return;
  grad_in->resize(in.shape());
  const std::size_t n = in.size();
  for (std::size_t i = 0; i < n; ++i) (*grad_in)[i] = mask_valid_ ? grad_out[i] * mask_[i] : grad_out[i];
  ctx.produce(site("grad_input"), tensor_role::grad_input, grad_in->values());
}

}  // namespace lab
