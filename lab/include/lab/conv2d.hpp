// 2-D convolution (cross-correlation, as in every DL framework) on NCHW
// tensors, by im2col + lab::sgemm. Kernel layout [K, C, R, S]. Small images
// are processed in chunks whose im2col matrices sit side by side, so each
// GEMM is wide enough to run near the machine's peak; chunks (single images
// from 512 output pixels on) are split between ctx.threads workers (the GEMM
// itself single-threaded).
#pragma once

#include <vector>

#include "lab/layer.hpp"

namespace lab {

/// 'same' pads so that out = ceil(in / stride) (TensorFlow's rule, extra
/// padding at the bottom/right); 'valid' does not pad.
enum class padding_mode { same, valid };

/// Geometry of one convolution or pooling window over an H x W input.
struct window_geometry {
  std::size_t in_h, in_w, kernel_h, kernel_w, stride;
  std::size_t pad_top, pad_left, out_h, out_w;
};

/// Geometry for an input of in_h x in_w; throws input_error (naming `who`)
/// when the window does not fit.
window_geometry make_geometry(const std::string& who, std::size_t in_h, std::size_t in_w, std::size_t kernel_h,
                              std::size_t kernel_w, std::size_t stride, padding_mode padding);

/// Convolution layer: input [N, C, H, W], output [N, K, OH, OW]. Each
/// output's sum starts at its bias and adds the products in im2col order
/// (channel, kernel row, kernel column): the bias is the GEMM's C with
/// beta = 1, as in dense and in PyTorch's slow_conv2d (output = bias, then
/// addmm_), so low-precision partials round bias + first product first.
class conv2d : public layer {
 public:
  conv2d(std::string name, std::size_t in_channels, std::size_t out_channels, std::size_t kernel_size,
         std::size_t stride, padding_mode padding, bool bias);

  [[nodiscard]] std::string_view kind() const override { return "conv2d"; }

  [[nodiscard]] lab::op_class op_class() const override { return lab::op_class::conv; }
  [[nodiscard]] shape output_shape(const shape& in) const override;
  void forward(const op_context& ctx, const tensor& in, tensor& out) override;
  void backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                tensor* grad_in) override;
  std::vector<parameter*> parameters() override;
  /// Glorot-uniform kernel (TensorFlow's default) unless he_normal is set.
  void initialise(rng& gen) override;

  /// Use He (Kaiming) normal initialisation, as ResNets do.
  void use_he_init() { he_init_ = true; }
  parameter& kernel() { return kernel_; }
  parameter& bias() { return bias_; }

 private:
  [[nodiscard]] window_geometry geometry(const shape& in) const;
  // Per-worker scratch: the im2col matrix of a chunk of images, the chunk's
  // output (or output gradient) as [K, images*OH*OW], and partial gradients.
  struct workspace {
    std::vector<float> col, rows, dcol, dkernel, dbias;
  };
  [[nodiscard]] std::size_t images_per_chunk(const window_geometry& g) const;

  std::size_t in_c_, out_c_, k_, stride_;
  padding_mode padding_;
  bool has_bias_;
  bool he_init_ = false;
  parameter kernel_, bias_;
  std::vector<workspace> workspaces_;  // one per worker thread, reused across calls
};

}  // namespace lab
