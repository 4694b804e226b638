#include "lab/batch_norm.hpp"

#include <cmath>

#include "lab/errors.hpp"
#include "parallel.hpp"

namespace lab {
namespace {

// Independent partial sums per channel: element p of a plane goes to lane
// p % lanes and the lanes are added in order at the end, a fixed order whose
// additions pipeline instead of waiting on one another.
constexpr std::size_t lanes = 16;

// Plane i of channel c of an [N, C, ...] tensor.
const float* plane_of(const tensor& t, std::size_t i, std::size_t c) {
  const std::size_t channels = t.shape()[1];
  return t.data() + (i * channels + c) * (t.size() / (t.shape()[0] * channels));
}

// Sum of term(x) over the n planes of `plane` values that plane_at(i) points to.
template <typename T, typename PlaneAt, typename Term>
T channel_sum(std::size_t n, std::size_t plane, PlaneAt plane_at, Term term) {
  T lane[lanes] = {};
  for (std::size_t i = 0; i < n; ++i) {
    const float* __restrict x = plane_at(i);
    std::size_t p = 0;
    for (; p + lanes <= plane; p += lanes)
      for (std::size_t j = 0; j < lanes; ++j) lane[j] += term(x[p + j]);
    for (; p < plane; ++p) lane[p % lanes] += term(x[p]);
  }
  T total = 0;
  for (std::size_t j = 0; j < lanes; ++j) total += lane[j];
  return total;
}

}  // namespace

batch_norm::batch_norm(std::string name, std::size_t channels, float momentum, float eps)
    : layer(std::move(name)), channels_(channels), momentum_(momentum), eps_(eps),
      running_mean_({channels}), running_var_({channels}) {
  gamma_ = make_parameter(this->name(), kind(), "gamma", {channels_}, false);
  beta_ = make_parameter(this->name(), kind(), "beta", {channels_}, false);
  for (auto& v : gamma_.value.values()) v = 1.0f;
  for (auto& v : running_var_.values()) v = 1.0f;
}

shape batch_norm::output_shape(const shape& in) const {
  if ((in.rank() != 2 && in.rank() != 4) || in[1] != channels_)
    throw input_error("layer " + name() + " (batch_norm): expects input [N, " + std::to_string(channels_) +
                      "] or [N, " + std::to_string(channels_) + ", H, W], got " + in.str());
  return in;
}

void batch_norm::initialise(rng& /*gen*/) {
  for (auto& v : gamma_.value.values()) v = 1.0f;
  beta_.value.zero();
  running_mean_.zero();
  for (auto& v : running_var_.values()) v = 1.0f;
}

void batch_norm::forward(const op_context& ctx, const tensor& in, tensor& out) {
  out.resize(output_shape(in.shape()));
  const std::size_t n = in.shape()[0];
  const std::size_t plane = in.shape().rank() == 4 ? in.shape()[2] * in.shape()[3] : 1;
  const std::size_t count = n * plane;
  mean_.assign(channels_, 0.0f);
  inv_std_.assign(channels_, 0.0f);
  used_batch_stats_ = ctx.training;
  const auto gamma = ctx.weight(site("gamma"), gamma_.value.values());
  const auto beta = ctx.weight(site("beta"), beta_.value.values());
  if (ctx.training && count < 2)
    throw input_error("layer " + name() + " (batch_norm): training needs more than one value per channel, got " +
                      in.shape().str());
  // Channels are independent, so workers take disjoint channel ranges.
  detail::parallel_for(ctx.threads, channels_, [&](std::size_t, std::size_t c_begin, std::size_t c_end) {
    for (std::size_t c = c_begin; c < c_end; ++c) {
      float mean = running_mean_[c];
      float var = running_var_[c];
      if (ctx.training) {
        // Two passes in double: the mean first, then squared deviations, so the
        // variance does not suffer the cancellation of E[x^2] - E[x]^2.
        const auto planes = [&](std::size_t i) { return plane_of(in, i, c); };
        const double m = channel_sum<double>(n, plane, planes, [](float x) { return static_cast<double>(x); }) /
                         static_cast<double>(count);
        const double sq = channel_sum<double>(n, plane, planes, [m](float x) { return (x - m) * (x - m); });
        mean = static_cast<float>(m);
        var = static_cast<float>(sq / static_cast<double>(count));
        const auto unbiased = static_cast<float>(sq / static_cast<double>(count - 1));
        running_mean_[c] = (1.0f - momentum_) * running_mean_[c] + momentum_ * mean;
        running_var_[c] = (1.0f - momentum_) * running_var_[c] + momentum_ * unbiased;
      }
      const float inv_std = 1.0f / std::sqrt(var + eps_);
      mean_[c] = mean;
      inv_std_[c] = inv_std;
      const float scale = gamma[c] * inv_std;
      const float shift = beta[c] - mean * scale;
      for (std::size_t i = 0; i < n; ++i) {
        const float* __restrict x = plane_of(in, i, c);
        float* __restrict y = out.data() + (i * channels_ + c) * plane;
        for (std::size_t p = 0; p < plane; ++p) y[p] = x[p] * scale + shift;
      }
    }
  });
  ctx.produce(site("output"), tensor_role::activation, out.values());
}

void batch_norm::backward(const op_context& ctx, const tensor& in, const tensor& /*out*/, const tensor& grad_out,
                          tensor* grad_in) {
  const std::size_t n = in.shape()[0];
  const std::size_t plane = in.shape().rank() == 4 ? in.shape()[2] * in.shape()[3] : 1;
  const auto count = static_cast<float>(n * plane);
  const auto gamma = ctx.weight(site("gamma"), gamma_.value.values());
  if (grad_in != nullptr) grad_in->resize(in.shape());
  detail::parallel_for(ctx.threads, channels_, [&](std::size_t, std::size_t c_begin, std::size_t c_end) {
    for (std::size_t c = c_begin; c < c_end; ++c) {
      const float mean = mean_[c], inv_std = inv_std_[c];
      float sum_dy = 0.0f, sum_dy_xhat = 0.0f;
      {
        float lane_dy[lanes] = {}, lane_dy_xhat[lanes] = {};
        for (std::size_t i = 0; i < n; ++i) {
          const float* __restrict x = plane_of(in, i, c);
          const float* __restrict dy = plane_of(grad_out, i, c);
          std::size_t p = 0;
          for (; p + lanes <= plane; p += lanes)
            for (std::size_t j = 0; j < lanes; ++j) {
              lane_dy[j] += dy[p + j];
              lane_dy_xhat[j] += dy[p + j] * (x[p + j] - mean) * inv_std;
            }
          for (; p < plane; ++p) {
            lane_dy[p % lanes] += dy[p];
            lane_dy_xhat[p % lanes] += dy[p] * (x[p] - mean) * inv_std;
          }
        }
        for (std::size_t j = 0; j < lanes; ++j) {
          sum_dy += lane_dy[j];
          sum_dy_xhat += lane_dy_xhat[j];
        }
      }
      gamma_.grad[c] += sum_dy_xhat;
      beta_.grad[c] += sum_dy;
      if (grad_in == nullptr) continue;
      const float k = gamma[c] * inv_std;
      for (std::size_t i = 0; i < n; ++i) {
        const float* __restrict x = plane_of(in, i, c);
        const float* __restrict dy = plane_of(grad_out, i, c);
        float* __restrict dx = grad_in->data() + (i * channels_ + c) * plane;
        if (used_batch_stats_) {
          const float mean_dy = sum_dy / count;
          for (std::size_t p = 0; p < plane; ++p) {
            const float xhat = (x[p] - mean) * inv_std;
            dx[p] = k * (dy[p] - mean_dy - xhat * sum_dy_xhat / count);
          }
        } else {
          for (std::size_t p = 0; p < plane; ++p) dx[p] = k * dy[p];
        }
      }
    }
  });
  ctx.produce(site("gamma"), tensor_role::grad_weight, gamma_.grad.values());
  ctx.produce(site("beta"), tensor_role::grad_weight, beta_.grad.values());
  if (grad_in != nullptr) ctx.produce(site("grad_input"), tensor_role::grad_input, grad_in->values());
}

}  // namespace lab
