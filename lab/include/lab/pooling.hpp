// Pooling on NCHW tensors: max, average and global average.
#pragma once

#include <cstdint>
#include <vector>

#include "lab/conv2d.hpp"
#include "lab/layer.hpp"

namespace lab {

/// Max pooling over k x k windows. Ties go to the first maximum in row-major
/// window order, which receives the whole gradient. NaN (PyTorch 1.13's
/// rule): a NaN anywhere in a window is the window's output, and the last
/// NaN in row-major order receives the gradient; +-inf compare as numbers.
class max_pool2d : public layer {
 public:
  max_pool2d(std::string name, std::size_t kernel, std::size_t stride, padding_mode padding = padding_mode::valid);
  [[nodiscard]] std::string_view kind() const override { return "max_pool2d"; }
  [[nodiscard]] lab::op_class op_class() const override { return lab::op_class::elementwise; }
  [[nodiscard]] shape output_shape(const shape& in) const override;
  void forward(const op_context& ctx, const tensor& in, tensor& out) override;
  void backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                tensor* grad_in) override;

 private:
  [[nodiscard]] window_geometry geometry(const shape& in) const;
  std::size_t k_, stride_;
  padding_mode padding_;
  std::vector<std::uint32_t> argmax_;  // per output element, index within its input plane
};

/// Average pooling over k x k windows; with 'same' padding each window is
/// divided by the number of input pixels it covers (padding not counted).
/// A NaN or an inf in a window reaches its output through the sum (inf and
/// -inf together give NaN), as in PyTorch.
class avg_pool2d : public layer {
 public:
  avg_pool2d(std::string name, std::size_t kernel, std::size_t stride, padding_mode padding = padding_mode::valid);
  [[nodiscard]] std::string_view kind() const override { return "avg_pool2d"; }
  [[nodiscard]] lab::op_class op_class() const override { return lab::op_class::elementwise; }
  [[nodiscard]] shape output_shape(const shape& in) const override;
  void forward(const op_context& ctx, const tensor& in, tensor& out) override;
  void backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                tensor* grad_in) override;

 private:
  [[nodiscard]] window_geometry geometry(const shape& in) const;
  std::size_t k_, stride_;
  padding_mode padding_;
};

/// Global average pooling: [N, C, H, W] -> [N, C]. NaN and inf propagate
/// through the sum, as in PyTorch.
class global_avg_pool : public layer {
 public:
  using layer::layer;
  [[nodiscard]] std::string_view kind() const override { return "global_avg_pool"; }
  [[nodiscard]] lab::op_class op_class() const override { return lab::op_class::elementwise; }
  [[nodiscard]] shape output_shape(const shape& in) const override;
  void forward(const op_context& ctx, const tensor& in, tensor& out) override;
  void backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                tensor* grad_in) override;
};

}  // namespace lab
