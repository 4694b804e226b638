#include "lab/batch_norm.hpp"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "lab/errors.hpp"
#include "libnum/cpu_features.hpp"
#include "parallel.hpp"

namespace lab {
namespace {

// One channel of an [N, C, ...] tensor: n planes of `size` values each,
// plane i at first + i * stride.
struct channel_planes {
  const float* first;
  std::size_t stride, n, size;
  const float* operator[](std::size_t i) const { return first + i * stride; }
};

// Channel c of `data`, laid out as `like` is.
channel_planes channel_of(const float* data, const tensor& like, std::size_t c) {
  const std::size_t n = like.shape()[0], channels = like.shape()[1], size = like.size() / (n * channels);
  return {data + c * size, channels * size, n, size};
}

channel_planes channel_of(const tensor& t, std::size_t c) { return channel_of(t.data(), t, c); }

// Independent partial sums per channel: element p of a plane goes to lane
// p % lanes and the lanes are added in order at the end, a fixed order whose
// additions pipeline instead of waiting on one another. The lanes are GCC
// vector types, so the compiler keeps them in SIMD registers of whatever
// width the target has, with the same result.
constexpr std::size_t lanes = 16;
using float_lanes = float __attribute__((vector_size(lanes * sizeof(float))));
using double_lanes = double __attribute__((vector_size(lanes * sizeof(double))));

template <typename Lanes>
[[gnu::always_inline]] inline auto add_lanes(const Lanes& lane) {
  auto total = lane[0];
  for (std::size_t j = 1; j < lanes; ++j) total += lane[j];
  return total;
}

// Sum over all values x of a channel of x (Squared false) or of (x - m)^2
// (Squared true), in the lanes' type: double, or float for the rounded
// statistics' fp32 sums. (Vectors never pass by value here: that would
// depend on the target's calling convention.)
template <bool Squared, typename Lanes = double_lanes>
[[gnu::always_inline]] inline auto channel_sum(const channel_planes& x, double m) {
  using real = std::remove_cvref_t<decltype(Lanes{}[0])>;
  Lanes lane = {};
  for (std::size_t i = 0; i < x.n; ++i) {
    const float* v = x[i];
    std::size_t p = 0;
    for (; p + lanes <= x.size; p += lanes) {
      float_lanes f;
      std::memcpy(&f, v + p, sizeof f);
      Lanes d = __builtin_convertvector(f, Lanes);
      if constexpr (Squared) {
        d -= static_cast<real>(m);
        d *= d;
      }
      lane += d;
    }
    for (; p < x.size; ++p) {
      real d = v[p];
      if constexpr (Squared) {
        d -= static_cast<real>(m);
        d *= d;
      }
      lane[p % lanes] += d;
    }
  }
  return add_lanes(lane);
}

// The kernels below run through dispatch(): compiled once for any x86-64 and
// once for AVX-512, with identical results (the same operations per lane).

// Sum of the channel's values, in double.
[[gnu::always_inline]] inline double sum_kernel(channel_planes x) {
  return channel_sum<false>(x, 0.0);
}

// Sum of squared deviations from m, in double.
[[gnu::always_inline]] inline double squared_deviation_kernel(channel_planes x, double m) {
  return channel_sum<true>(x, m);
}

// Sum of the channel's values in fp32 (the rounded statistics' sums).
[[gnu::always_inline]] inline float float_sum_kernel(channel_planes x) {
  return channel_sum<false, float_lanes>(x, 0.0);
}

// y = x * scale + shift, y laid out like x from y_first on.
[[gnu::always_inline]] inline int affine_kernel(channel_planes x, float* y_first, float scale, float shift) {
  for (std::size_t i = 0; i < x.n; ++i) {
    const float* __restrict v = x[i];
    float* __restrict y = y_first + i * x.stride;
    for (std::size_t p = 0; p < x.size; ++p) y[p] = v[p] * scale + shift;
  }
  return 0;
}

struct gradient_sums {
  float dy, dy_xhat;  // sum of dy and of dy * xhat over the channel
};

[[gnu::always_inline]] inline gradient_sums gradient_sums_kernel(channel_planes x, channel_planes dy, float mean,
                                                                 float inv_std) {
  float_lanes lane_dy = {}, lane_dy_xhat = {};
  for (std::size_t i = 0; i < x.n; ++i) {
    const float* v = x[i];
    const float* d = dy[i];
    std::size_t p = 0;
    for (; p + lanes <= x.size; p += lanes) {
      float_lanes g, xv;
      std::memcpy(&g, d + p, sizeof g);
      std::memcpy(&xv, v + p, sizeof xv);
      lane_dy += g;
      lane_dy_xhat += g * (xv - mean) * inv_std;
    }
    for (; p < x.size; ++p) {
      lane_dy[p % lanes] += d[p];
      lane_dy_xhat[p % lanes] += d[p] * (v[p] - mean) * inv_std;
    }
  }
  return {add_lanes(lane_dy), add_lanes(lane_dy_xhat)};
}

// dL/dx with batch statistics: k * (dy - mean_dy - xhat * sum_dy_xhat / count).
[[gnu::always_inline]] inline int input_gradient_kernel(channel_planes x, channel_planes dy, float* dx_first,
                                                        float mean, float inv_std, float k, float mean_dy,
                                                        float sum_dy_xhat, float count) {
  for (std::size_t i = 0; i < x.n; ++i) {
    const float* __restrict v = x[i];
    const float* __restrict d = dy[i];
    float* __restrict dx = dx_first + i * x.stride;
    for (std::size_t p = 0; p < x.size; ++p) {
      const float xhat = (v[p] - mean) * inv_std;
      dx[p] = k * (d[p] - mean_dy - xhat * sum_dy_xhat / count);
    }
  }
  return 0;
}

template <auto Kernel, typename... Args>
__attribute__((target("avx512f"))) auto with_avx512(Args... args) {
  return Kernel(args...);
}

// Kernel(args...) with AVX-512 where the CPU has it.
template <auto Kernel, typename... Args>
auto dispatch(Args... args) {
  return num::host_cpu().avx512f ? with_avx512<Kernel>(args...) : Kernel(args...);
}

}  // namespace

std::string_view norm_statistics_name(norm_statistics s) {
  switch (s) {
    case norm_statistics::exact: return "exact";
    case norm_statistics::one_pass: return "one_pass";
    case norm_statistics::stable: return "stable";
  }
  return "exact";
}

norm_statistics parse_norm_statistics(std::string_view name) {
  for (const norm_statistics s : {norm_statistics::exact, norm_statistics::one_pass, norm_statistics::stable}) {
    if (name == norm_statistics_name(s)) return s;
  }
  throw input_error("unknown norm_statistics '" + std::string(name) + "' (known: exact, one_pass, stable)");
}

batch_norm::batch_norm(std::string name, std::size_t channels, float momentum, float eps, norm_statistics statistics)
    : layer(std::move(name)), channels_(channels), momentum_(momentum), eps_(eps), statistics_(statistics),
      running_mean_({channels}), running_var_({channels}) {
  gamma_ = make_parameter(this->name(), kind(), op_class(), "gamma", {channels_}, false);
  beta_ = make_parameter(this->name(), kind(), op_class(), "beta", {channels_}, false);
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
  const bool rounded = ctx.training && statistics_ != norm_statistics::exact;
  if (rounded) rounded_statistics(ctx, in, count);
  // Channels are independent, so workers take disjoint channel ranges.
  detail::parallel_for(ctx.threads, channels_, [&](std::size_t, std::size_t c_begin, std::size_t c_end) {
    for (std::size_t c = c_begin; c < c_end; ++c) {
      float mean = running_mean_[c];
      float var = running_var_[c];
      if (rounded) {
        mean = batch_mean_[c];
        var = batch_var_[c];
        const auto unbiased =
            static_cast<float>(static_cast<double>(var) * static_cast<double>(count) / static_cast<double>(count - 1));
        running_mean_[c] = (1.0f - momentum_) * running_mean_[c] + momentum_ * mean;
        running_var_[c] = (1.0f - momentum_) * running_var_[c] + momentum_ * unbiased;
      } else if (ctx.training) {
        // Two passes in double: the mean first, then squared deviations, so the
        // variance does not suffer the cancellation of E[x^2] - E[x]^2.
        const channel_planes x = channel_of(in, c);
        const double m = dispatch<sum_kernel>(x) / static_cast<double>(count);
        const double sq = dispatch<squared_deviation_kernel>(x, m);
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
      dispatch<affine_kernel>(channel_of(in, c), out.data() + c * plane, scale, shift);
    }
  });
  ctx.produce(site("output"), tensor_role::activation, out.values());
}

void batch_norm::rounded_statistics(const op_context& ctx, const tensor& in, std::size_t count) {
  const auto n = static_cast<float>(count);
  const float* x = in.data();
  scratch_.resize(in.size());
  float* s = scratch_.data();
  batch_mean_.assign(channels_, 0.0f);
  batch_var_.assign(channels_, 0.0f);
  const auto each_channel = [&](auto&& body) {
    detail::parallel_for(ctx.threads, channels_, [&](std::size_t, std::size_t c_begin, std::size_t c_end) {
      for (std::size_t c = c_begin; c < c_end; ++c) body(c);
    });
  };
  if (statistics_ == norm_statistics::one_pass) {
    for (std::size_t i = 0; i < scratch_.size(); ++i) s[i] = x[i] * x[i];
    ctx.produce(site("squares"), tensor_role::activation, scratch_);
    each_channel([&](std::size_t c) {
      const float mean = dispatch<float_sum_kernel>(channel_of(in, c)) / n;
      batch_mean_[c] = mean;
      batch_var_[c] = dispatch<float_sum_kernel>(channel_of(s, in, c)) / n - mean * mean;
    });
    return;
  }
  each_channel([&](std::size_t c) { batch_mean_[c] = dispatch<float_sum_kernel>(channel_of(in, c)) / n; });
  ctx.produce(site("mean"), tensor_role::activation, batch_mean_);
  each_channel([&](std::size_t c) {
    const channel_planes from = channel_of(in, c);
    float* to = s + (from.first - x);
    for (std::size_t i = 0; i < from.n; ++i) {
      for (std::size_t p = 0; p < from.size; ++p) to[i * from.stride + p] = from[i][p] - batch_mean_[c];
    }
  });
  ctx.produce(site("deviations"), tensor_role::activation, scratch_);
  for (std::size_t i = 0; i < scratch_.size(); ++i) s[i] *= s[i];
  ctx.produce(site("squares"), tensor_role::activation, scratch_);
  each_channel([&](std::size_t c) { batch_var_[c] = dispatch<float_sum_kernel>(channel_of(s, in, c)) / n; });
}

void batch_norm::backward(const op_context& ctx, const tensor& in, const tensor& /*out*/, const tensor& grad_out,
                          tensor* grad_in) {
  const std::size_t n = in.shape()[0];
  const std::size_t plane = in.shape().rank() == 4 ? in.shape()[2] * in.shape()[3] : 1;
  const auto count = static_cast<float>(n * plane);
  const auto gamma = ctx.weight_again(site("gamma"), gamma_.value.values());  // as the forward rounded it
  if (grad_in != nullptr) grad_in->resize(in.shape());
  detail::parallel_for(ctx.threads, channels_, [&](std::size_t, std::size_t c_begin, std::size_t c_end) {
    for (std::size_t c = c_begin; c < c_end; ++c) {
      const float mean = mean_[c], inv_std = inv_std_[c];
      const channel_planes x = channel_of(in, c), dy = channel_of(grad_out, c);
      const auto [sum_dy, sum_dy_xhat] = dispatch<gradient_sums_kernel>(x, dy, mean, inv_std);
      gamma_.grad[c] += sum_dy_xhat;
      beta_.grad[c] += sum_dy;
      if (grad_in == nullptr) continue;
      const float k = gamma[c] * inv_std;
      float* dx = grad_in->data() + c * plane;
      if (used_batch_stats_) {
        dispatch<input_gradient_kernel>(x, dy, dx, mean, inv_std, k, sum_dy / count, sum_dy_xhat, count);
      } else {
        // Running statistics are constants: dL/dx = k * dy.
        dispatch<affine_kernel>(dy, dx, k, 0.0f);
      }
    }
  });
  ctx.produce(site("gamma"), tensor_role::grad_weight, gamma_.grad.values());
  ctx.produce(site("beta"), tensor_role::grad_weight, beta_.grad.values());
  if (grad_in != nullptr) ctx.produce(site("grad_input"), tensor_role::grad_input, grad_in->values());
}

}  // namespace lab
