#include "lab/conv2d.hpp"

#include <algorithm>
#include <cmath>

#include "im2col.hpp"
#include "parallel.hpp"
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
  kernel_ = make_parameter(this->name(), kind(), op_class(), "kernel", {out_c_, in_c_, k_, k_}, true);
  if (has_bias_) bias_ = make_parameter(this->name(), kind(), op_class(), "bias", {out_c_}, false);
}

window_geometry conv2d::geometry(const shape& in) const {
  const std::string who = "layer " + name() + " (conv2d)";
  if (in.rank() != 4 || in[1] != in_c_)
    throw input_error(who + ": expects input [N, " + std::to_string(in_c_) + ", H, W], got " + in.str());
  return make_geometry(who, in[2], in[3], k_, k_, stride_, padding_);
}

std::size_t conv2d::images_per_chunk(const window_geometry& g) const {
  // About 512 columns per GEMM: wide enough for full efficiency, small enough
  // that a chunk's im2col matrix stays in the L2 cache while the GEMM packs
  // it. Images with that many output pixels go one at a time, which lets the
  // GEMMs read and write the NCHW tensors in place.
  constexpr std::size_t target_columns = 512;
  return std::max<std::size_t>(1, target_columns / (g.out_h * g.out_w));
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
  const std::size_t per_chunk = images_per_chunk(g);
  const std::size_t chunks = (n + per_chunk - 1) / per_chunk;
  const auto w = ctx.weight(site("kernel"), kernel_.value.values());
  const auto x = ctx.operand(site("input"), tensor_role::activation, in.values());
  std::span<const float> b;
  if (has_bias_) b = ctx.weight(site("bias"), bias_.value.values());
  workspaces_.resize(std::max<std::size_t>(1, ctx.threads));
  detail::parallel_for(ctx.threads, chunks, [&](std::size_t worker, std::size_t first, std::size_t last) {
    workspace& ws = workspaces_[worker];
    for (std::size_t chunk = first; chunk < last; ++chunk) {
      const std::size_t i0 = chunk * per_chunk, m = std::min(per_chunk, n - i0), cols = m * ohw;
      ws.col.resize(crs * cols);
      for (std::size_t j = 0; j < m; ++j)
        detail::im2col(x.data() + (i0 + j) * in_plane, in_c_, g, ws.col.data() + j * ohw, cols);
      // A single image's [K, OH*OW] product is its NCHW output already.
      float* rows = out.data() + i0 * out_c_ * ohw;
      if (m > 1) {
        ws.rows.resize(out_c_ * cols);
        rows = ws.rows.data();
      }
      // The bias is where each output's sum starts (the GEMM's C, beta 1),
      // as in dense: PyTorch's slow_conv2d sets output = bias and addmm_s onto it.
      if (has_bias_)
        for (std::size_t k = 0; k < out_c_; ++k) std::fill(rows + k * cols, rows + (k + 1) * cols, b[k]);
      ctx.gemm(site("output"), tensor_role::activation,
               {false, false, out_c_, cols, crs, w.data(), crs, ws.col.data(), cols,
                has_bias_ ? 1.0f : 0.0f, rows, cols, tensor_role::weight, tensor_role::activation, chunk});
      if (m == 1) continue;
      for (std::size_t j = 0; j < m; ++j)
        for (std::size_t k = 0; k < out_c_; ++k) {
          const float* src = rows + k * cols + j * ohw;
          std::copy(src, src + ohw, out.data() + ((i0 + j) * out_c_ + k) * ohw);
        }
    }
  });
  ctx.produce(site("output"), tensor_role::activation, out.values());
}

void conv2d::backward(const op_context& ctx, const tensor& in, const tensor& /*out*/, const tensor& grad_out,
                      tensor* grad_in) {
  const auto g = geometry(in.shape());
  const std::size_t n = in.shape()[0];
  const std::size_t crs = in_c_ * k_ * k_;
  const std::size_t ohw = g.out_h * g.out_w;
  const std::size_t in_plane = in.shape().per_sample();
  const std::size_t per_chunk = images_per_chunk(g);
  const std::size_t chunks = (n + per_chunk - 1) / per_chunk;
  // The kernel and input as the forward rounded them (`in` is its input, unchanged).
  const auto w = ctx.weight_again(site("kernel"), kernel_.value.values());
  const auto x = ctx.operand_again(site("input"), tensor_role::activation, in.values());
  const auto dy = ctx.operand(site("grad_output"), tensor_role::grad_input, grad_out.values());
  if (grad_in != nullptr) grad_in->resize(in.shape());
  const std::size_t workers = std::max<std::size_t>(1, std::min(ctx.threads, chunks));
  workspaces_.resize(std::max(workspaces_.size(), workers));
  detail::parallel_for(workers, chunks, [&](std::size_t worker, std::size_t first, std::size_t last) {
    workspace& ws = workspaces_[worker];
    ws.dkernel.assign(out_c_ * crs, 0.0f);
    ws.dbias.assign(out_c_, 0.0f);
    for (std::size_t chunk = first; chunk < last; ++chunk) {
      const std::size_t i0 = chunk * per_chunk, m = std::min(per_chunk, n - i0), cols = m * ohw;
      ws.col.resize(crs * cols);
      for (std::size_t j = 0; j < m; ++j)
        detail::im2col(x.data() + (i0 + j) * in_plane, in_c_, g, ws.col.data() + j * ohw, cols);
      // A single image's output gradient is already the [K, OH*OW] matrix.
      const float* rows = dy.data() + i0 * out_c_ * ohw;
      if (m > 1) {
        ws.rows.resize(out_c_ * cols);
        for (std::size_t j = 0; j < m; ++j)
          for (std::size_t k = 0; k < out_c_; ++k) {
            const float* src = dy.data() + ((i0 + j) * out_c_ + k) * ohw;
            std::copy(src, src + ohw, ws.rows.data() + k * cols + j * ohw);
          }
        rows = ws.rows.data();
      }
      // dW[k, crs] += dY[k, cols] * col[crs, cols]^T
      ctx.gemm(site("kernel"), tensor_role::grad_weight,
               {false, true, out_c_, crs, cols, rows, cols, ws.col.data(), cols, 1.0f, ws.dkernel.data(), crs,
                tensor_role::grad_input, tensor_role::activation, chunk});
      if (has_bias_)
        for (std::size_t k = 0; k < out_c_; ++k) {
          const float* row = rows + k * cols;
          float sum = 0.0f;
          for (std::size_t p = 0; p < cols; ++p) sum += row[p];
          ws.dbias[k] += sum;
        }
      if (grad_in == nullptr) continue;
      // dcol[crs, cols] = W[k, crs]^T * dY[k, cols]
      ws.dcol.resize(crs * cols);
      ctx.gemm(site("grad_input"), tensor_role::grad_input,
               {true, false, crs, cols, out_c_, w.data(), crs, rows, cols, 0.0f, ws.dcol.data(), cols,
                tensor_role::weight, tensor_role::grad_input, chunk});
      for (std::size_t j = 0; j < m; ++j) {
        float* dx = grad_in->data() + (i0 + j) * in_plane;
        std::fill(dx, dx + in_plane, 0.0f);
        detail::col2im_add(ws.dcol.data() + j * ohw, cols, in_c_, g, dx);
      }
    }
  });
  // Partial gradients are summed in worker order: reproducible for a fixed
  // thread count.
  for (std::size_t wkr = 0; wkr < workers; ++wkr) {
    const auto& ws = workspaces_[wkr];
    for (std::size_t i = 0; i < out_c_ * crs; ++i) kernel_.grad[i] += ws.dkernel[i];
    if (has_bias_)
      for (std::size_t k = 0; k < out_c_; ++k) bias_.grad[k] += ws.dbias[k];
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
