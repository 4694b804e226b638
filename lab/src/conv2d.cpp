#include "lab/conv2d.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "im2col.hpp"
#include "lab/errors.hpp"

namespace lab {

window_geometry make_geometry(const std::string& who, std::size_t in_h, std::size_t in_w, std::size_t kernel_h,
                              std::size_t kernel_w, std::size_t stride, padding_mode padding) {
  window_geometry g{in_h, in_w, kernel_h, kernel_w, stride, 0, 0, 0, 0};
  if (stride == 0) throw input_error(who + ": stride must be positive");
  if (padding == padding_mode::valid) {
    if (in_h < kernel_h || in_w < kernel_w)
      throw input_error(who + ": a " + std::to_string(kernel_h) + "x" + std::to_string(kernel_w) +
                        " window does not fit a " + std::to_string(in_h) + "x" + std::to_string(in_w) +
                        " input without padding");
    g.out_h = (in_h - kernel_h) / stride + 1;
    g.out_w = (in_w - kernel_w) / stride + 1;
  } else {
    if (in_h == 0 || in_w == 0) throw input_error(who + ": empty input");
    g.out_h = (in_h + stride - 1) / stride;
    g.out_w = (in_w + stride - 1) / stride;
    const std::size_t need_h = (g.out_h - 1) * stride + kernel_h;
    const std::size_t need_w = (g.out_w - 1) * stride + kernel_w;
    g.pad_top = need_h > in_h ? (need_h - in_h) / 2 : 0;
    g.pad_left = need_w > in_w ? (need_w - in_w) / 2 : 0;
  }
  return g;
}

conv2d::conv2d(std::string name, std::size_t in_channels, std::size_t out_channels, std::size_t kernel_size,
               std::size_t stride, padding_mode padding, bool bias)
    : layer(std::move(name)), in_c_(in_channels), out_c_(out_channels), k_(kernel_size), stride_(stride),
      padding_(padding), has_bias_(bias) {
  if (in_c_ == 0 || out_c_ == 0 || k_ == 0)
    throw input_error("layer " + this->name() + " (conv2d): channels and kernel size must be positive");
  kernel_ = make_parameter(this->name(), kind(), "kernel", {out_c_, in_c_, k_, k_}, true);
  if (has_bias_) bias_ = make_parameter(this->name(), kind(), "bias", {out_c_}, false);
}

window_geometry conv2d::geometry(const shape& in) const {
  const std::string who = "layer " + name() + " (conv2d)";
  if (in.rank() != 4 || in[1] != in_c_)
    throw input_error(who + ": expects input [N, " + std::to_string(in_c_) + ", H, W], got " + in.str());
  return make_geometry(who, in[2], in[3], k_, k_, stride_, padding_);
}

bool conv2d::is_pointwise(const window_geometry& g) const {
  return k_ == 1 && stride_ == 1 && g.pad_top == 0 && g.pad_left == 0;
}

shape conv2d::output_shape(const shape& in) const {
  const auto g = geometry(in);
  return {in[0], out_c_, g.out_h, g.out_w};
}

void conv2d::forward(const op_context& ctx, const tensor& in, tensor& out) {
  const auto g = geometry(in.shape());
  const std::size_t n = in.shape()[0];
  out.resize({n, out_c_, g.out_h, g.out_w});
  const std::size_t crs = in_c_ * k_ * k_;
  const std::size_t ohw = g.out_h * g.out_w;
  const std::size_t in_plane = in.shape().per_sample();
  const bool pointwise = is_pointwise(g);
  if (!pointwise) col_.resize(crs * ohw);
  const auto w = ctx.weight(site("kernel"), kernel_.value.values());
  std::span<const float> b;
  if (has_bias_) b = ctx.weight(site("bias"), bias_.value.values());
  for (std::size_t i = 0; i < n; ++i) {
    const float* image = in.data() + i * in_plane;
    const float* col = image;
    if (!pointwise) {
      detail::im2col(image, in_c_, g, col_.data());
      col = col_.data();
    }
    float* y = out.data() + i * out_c_ * ohw;
    float beta = 0.0f;
    if (has_bias_) {
      for (std::size_t k = 0; k < out_c_; ++k) std::fill(y + k * ohw, y + (k + 1) * ohw, b[k]);
      beta = 1.0f;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(out_c_), static_cast<int>(ohw),
                static_cast<int>(crs), 1.0f, w.data(), static_cast<int>(crs), col, static_cast<int>(ohw), beta, y,
                static_cast<int>(ohw));
  }
  ctx.produce(site("output"), tensor_role::activation, out.values());
}

void conv2d::backward(const op_context& ctx, const tensor& in, const tensor& /*out*/, const tensor& grad_out,
                      tensor* grad_in) {
  const auto g = geometry(in.shape());
  const std::size_t n = in.shape()[0];
  const std::size_t crs = in_c_ * k_ * k_;
  const std::size_t ohw = g.out_h * g.out_w;
  const std::size_t in_plane = in.shape().per_sample();
  const bool pointwise = is_pointwise(g);
  if (!pointwise) col_.resize(crs * ohw);
  const auto w = ctx.weight(site("kernel"), kernel_.value.values());
  if (grad_in != nullptr) {
    grad_in->resize(in.shape());
    if (!pointwise) dcol_.resize(crs * ohw);
  }
  const int ki = static_cast<int>(out_c_), ni = static_cast<int>(ohw), ci = static_cast<int>(crs);
  for (std::size_t i = 0; i < n; ++i) {
    const float* image = in.data() + i * in_plane;
    const float* dy = grad_out.data() + i * out_c_ * ohw;
    const float* col = image;
    if (!pointwise) {
      detail::im2col(image, in_c_, g, col_.data());
      col = col_.data();
    }
    // dW[k, crs] += dY[k, ohw] * col[crs, ohw]^T
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, ki, ci, ni, 1.0f, dy, ni, col, ni, 1.0f,
                kernel_.grad.data(), ci);
    if (has_bias_) {
      float* db = bias_.grad.data();
      for (std::size_t k = 0; k < out_c_; ++k) {
        float sum = 0.0f;
        for (std::size_t p = 0; p < ohw; ++p) sum += dy[k * ohw + p];
        db[k] += sum;
      }
    }
    if (grad_in != nullptr) {
      float* dx = grad_in->data() + i * in_plane;
      // dcol[crs, ohw] = W[k, crs]^T * dY[k, ohw]
      float* dcol = pointwise ? dx : dcol_.data();
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, ci, ni, ki, 1.0f, w.data(), ci, dy, ni, 0.0f, dcol, ni);
      if (!pointwise) {
        std::fill(dx, dx + in_plane, 0.0f);
        detail::col2im_add(dcol, in_c_, g, dx);
      }
    }
  }
  ctx.produce(site("kernel"), tensor_role::grad_weight, kernel_.grad.values());
  if (has_bias_) ctx.produce(site("bias"), tensor_role::grad_weight, bias_.grad.values());
  if (grad_in != nullptr) ctx.produce(site("grad_input"), tensor_role::grad_input, grad_in->values());
}

std::vector<parameter*> conv2d::parameters() {
  if (has_bias_) return {&kernel_, &bias_};
  return {&kernel_};
}

void conv2d::initialise(rng& gen) {
  const auto fan_in = static_cast<float>(in_c_ * k_ * k_);
  const auto fan_out = static_cast<float>(out_c_ * k_ * k_);
  if (he_init_) {
    const float sd = std::sqrt(2.0f / fan_in);
    for (auto& v : kernel_.value.values()) v = sd * gen.normal();
  } else {
    const float limit = std::sqrt(6.0f / (fan_in + fan_out));
    for (auto& v : kernel_.value.values()) v = gen.uniform(-limit, limit);
  }
  if (has_bias_) bias_.value.zero();
}

}  // namespace lab
