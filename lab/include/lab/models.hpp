// The model zoo: MLP, the Graphcore tutorial's conv model, LeNet-5 and
// ResNet-(6N+2). Every model maps [N, C, H, W] images to [N, classes] logits.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lab/batch_norm.hpp"
#include "lab/sequential.hpp"

namespace lab {

/// What to build; `name` is one of mlp, tutorial_conv, lenet5, resnet.
struct model_spec {
  std::string name = "tutorial_conv";
  std::size_t channels = 1, height = 28, width = 28;  ///< input image shape
  std::size_t classes = 10;
  std::vector<std::size_t> hidden = {256};  ///< mlp: hidden layer widths
  std::size_t depth = 8;                     ///< resnet: 6N + 2
  float dropout = 0.0f;                      ///< mlp: dropout after each hidden ReLU
  /// resnet: how its batch norms compute their training statistics
  norm_statistics statistics = norm_statistics::exact;
};

/// flatten -> (dense -> relu [-> dropout]) per hidden width -> dense(classes).
std::unique_ptr<sequential> make_mlp(const model_spec& spec);
/// conv3x3x32 (no bias) -> relu -> conv3x3x32 (no bias) -> flatten -> dense
/// (classes): the model of Graphcore's fp16 tutorial, 'same' padding.
std::unique_ptr<sequential> make_tutorial_conv(const model_spec& spec);
/// LeNet-5: conv5x5x6 -> relu -> maxpool2 -> conv5x5x16 -> relu -> maxpool2
/// -> dense120 -> relu -> dense84 -> relu -> dense(classes). The first conv
/// pads 'same' on 28x28 inputs and 'valid' otherwise, so both give 5x5x16.
std::unique_ptr<sequential> make_lenet5(const model_spec& spec);
/// He et al.'s CIFAR ResNet of depth 6N+2: conv3x3x16-bn-relu, three stages
/// of N basic blocks (16, 32, 64 channels, stride 2 entering stages 2 and 3,
/// 1x1 conv + bn projection shortcuts where the shape changes), global
/// average pooling, dense(classes). Works for 28x28 and 32x32 inputs.
std::unique_ptr<sequential> make_resnet(const model_spec& spec);
/// Dispatches on spec.name; throws input_error for an unknown name or depth.
std::unique_ptr<sequential> make_model(const model_spec& spec);

}  // namespace lab
