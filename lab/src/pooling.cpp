#include "lab/pooling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lab/errors.hpp"

namespace lab {
namespace {

window_geometry pool_geometry(const std::string& who, const shape& in, std::size_t k, std::size_t stride,
                              padding_mode padding) {
  if (in.rank() != 4) throw input_error(who + ": expects input [N, C, H, W], got " + in.str());
  return make_geometry(who, in[2], in[3], k, k, stride, padding);
}

// Calls visit(ih, iw) for the in-bounds input pixels of output pixel (oh, ow).
template <typename Visit>
void for_window(const window_geometry& g, std::size_t oh, std::size_t ow, Visit&& visit) {
  const long long h0 = static_cast<long long>(oh * g.stride) - static_cast<long long>(g.pad_top);
  const long long w0 = static_cast<long long>(ow * g.stride) - static_cast<long long>(g.pad_left);
  for (long long ih = std::max(h0, 0LL); ih < std::min(h0 + static_cast<long long>(g.kernel_h),
                                                        static_cast<long long>(g.in_h));
       ++ih)
    for (long long iw = std::max(w0, 0LL); iw < std::min(w0 + static_cast<long long>(g.kernel_w),
                                                          static_cast<long long>(g.in_w));
         ++iw)
      visit(static_cast<std::size_t>(ih), static_cast<std::size_t>(iw));
}

}  // namespace

max_pool2d::max_pool2d(std::string name, std::size_t kernel, std::size_t stride, padding_mode padding)
    : layer(std::move(name)), k_(kernel), stride_(stride), padding_(padding) {}

window_geometry max_pool2d::geometry(const shape& in) const {
  return pool_geometry("layer " + name() + " (max_pool2d)", in, k_, stride_, padding_);
}

shape max_pool2d::output_shape(const shape& in) const {
  const auto g = geometry(in);
  return {in[0], in[1], g.out_h, g.out_w};
}

void max_pool2d::forward(const op_context& ctx, const tensor& in, tensor& out) {
  const auto g = geometry(in.shape());
  const std::size_t planes = in.shape()[0] * in.shape()[1];
  out.resize({in.shape()[0], in.shape()[1], g.out_h, g.out_w});
  argmax_.resize(out.size());
  const std::size_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  for (std::size_t p = 0; p < planes; ++p) {
    const float* x = in.data() + p * in_plane;
    for (std::size_t oh = 0; oh < g.out_h; ++oh)
      for (std::size_t ow = 0; ow < g.out_w; ++ow) {
        float best = -std::numeric_limits<float>::infinity();
        std::uint32_t best_at = 0;
        bool first = true;
        for_window(g, oh, ow, [&](std::size_t ih, std::size_t iw) {
          const float v = x[ih * g.in_w + iw];
          // PyTorch 1.13's CPU kernel: `val > maxval || isnan(val)`.
          if (first || v > best || std::isnan(v)) {
            best = v;
            best_at = static_cast<std::uint32_t>(ih * g.in_w + iw);
            first = false;
          }
        });
        const std::size_t o = p * out_plane + oh * g.out_w + ow;
        out[o] = best;
        argmax_[o] = best_at;
      }
  }
  ctx.produce_from(site("output"), out.values(), {in.values()});
}

void max_pool2d::backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                          tensor* grad_in) {
  if (grad_in == nullptr) return;
  grad_in->resize(in.shape());
  grad_in->zero();
  const std::size_t planes = in.shape()[0] * in.shape()[1];
  const std::size_t in_plane = in.shape()[2] * in.shape()[3];
  const std::size_t out_plane = out.shape()[2] * out.shape()[3];
  for (std::size_t p = 0; p < planes; ++p)
    for (std::size_t o = 0; o < out_plane; ++o)
      (*grad_in)[p * in_plane + argmax_[p * out_plane + o]] += grad_out[p * out_plane + o];
  ctx.produce(site("grad_input"), tensor_role::grad_input, grad_in->values());
}

avg_pool2d::avg_pool2d(std::string name, std::size_t kernel, std::size_t stride, padding_mode padding)
    : layer(std::move(name)), k_(kernel), stride_(stride), padding_(padding) {}

window_geometry avg_pool2d::geometry(const shape& in) const {
  return pool_geometry("layer " + name() + " (avg_pool2d)", in, k_, stride_, padding_);
}

shape avg_pool2d::output_shape(const shape& in) const {
  const auto g = geometry(in);
  return {in[0], in[1], g.out_h, g.out_w};
}

void avg_pool2d::forward(const op_context& ctx, const tensor& in, tensor& out) {
  const auto g = geometry(in.shape());
  const std::size_t planes = in.shape()[0] * in.shape()[1];
  out.resize({in.shape()[0], in.shape()[1], g.out_h, g.out_w});
  const std::size_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  for (std::size_t p = 0; p < planes; ++p) {
    const float* x = in.data() + p * in_plane;
    for (std::size_t oh = 0; oh < g.out_h; ++oh)
      for (std::size_t ow = 0; ow < g.out_w; ++ow) {
        float sum = 0.0f;
        std::size_t count = 0;
        for_window(g, oh, ow, [&](std::size_t ih, std::size_t iw) {
          sum += x[ih * g.in_w + iw];
          ++count;
        });
        out[p * out_plane + oh * g.out_w + ow] = sum / static_cast<float>(count);
      }
  }
  ctx.produce_from(site("output"), out.values(), {in.values()});
}

void avg_pool2d::backward(const op_context& ctx, const tensor& in, const tensor& /*out*/, const tensor& grad_out,
                          tensor* grad_in) {
  if (grad_in == nullptr) return;
  const auto g = geometry(in.shape());
  grad_in->resize(in.shape());
  grad_in->zero();
  const std::size_t planes = in.shape()[0] * in.shape()[1];
  const std::size_t in_plane = g.in_h * g.in_w, out_plane = g.out_h * g.out_w;
  for (std::size_t p = 0; p < planes; ++p) {
    float* dx = grad_in->data() + p * in_plane;
    for (std::size_t oh = 0; oh < g.out_h; ++oh)
      for (std::size_t ow = 0; ow < g.out_w; ++ow) {
        std::size_t count = 0;
        for_window(g, oh, ow, [&](std::size_t, std::size_t) { ++count; });
        const float share = grad_out[p * out_plane + oh * g.out_w + ow] / static_cast<float>(count);
        for_window(g, oh, ow, [&](std::size_t ih, std::size_t iw) { dx[ih * g.in_w + iw] += share; });
      }
  }
  ctx.produce(site("grad_input"), tensor_role::grad_input, grad_in->values());
}

shape global_avg_pool::output_shape(const shape& in) const {
  if (in.rank() != 4)
    throw input_error("layer " + name() + " (global_avg_pool): expects input [N, C, H, W], got " + in.str());
  return {in[0], in[1]};
}

void global_avg_pool::forward(const op_context& ctx, const tensor& in, tensor& out) {
  out.resize(output_shape(in.shape()));
  const std::size_t planes = out.size();
  const std::size_t plane = in.shape()[2] * in.shape()[3];
  for (std::size_t p = 0; p < planes; ++p) {
    float sum = 0.0f;
    for (std::size_t i = 0; i < plane; ++i) sum += in[p * plane + i];
    out[p] = sum / static_cast<float>(plane);
  }
  ctx.produce_from(site("output"), out.values(), {in.values()});
}

void global_avg_pool::backward(const op_context& ctx, const tensor& in, const tensor& /*out*/,
                               const tensor& grad_out, tensor* grad_in) {
  if (grad_in == nullptr) return;
  grad_in->resize(in.shape());
  const std::size_t planes = grad_out.size();
  const std::size_t plane = in.shape()[2] * in.shape()[3];
  for (std::size_t p = 0; p < planes; ++p) {
    const float share = grad_out[p] / static_cast<float>(plane);
    std::fill(grad_in->data() + p * plane, grad_in->data() + (p + 1) * plane, share);
  }
  ctx.produce(site("grad_input"), tensor_role::grad_input, grad_in->values());
}

}  // namespace lab
