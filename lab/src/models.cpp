#include "lab/models.hpp"

#include "lab/batch_norm.hpp"
#include "lab/conv2d.hpp"
#include "lab/dense.hpp"
#include "lab/dropout.hpp"
#include "lab/errors.hpp"
#include "lab/flatten.hpp"
#include "lab/pooling.hpp"
#include "lab/relu.hpp"
#include "lab/residual.hpp"

namespace lab {
namespace {

shape input_shape(const model_spec& spec) { return {1, spec.channels, spec.height, spec.width}; }

// Checks the whole chain once at build time so an impossible shape is
// reported before training starts, naming the layer.
std::unique_ptr<sequential> checked(std::unique_ptr<sequential> model, const model_spec& spec) {
  const shape out = model->output_shape(input_shape(spec));
  if (out != shape{1, spec.classes})
    throw input_error("model " + spec.name + ": produces " + out.str() + " per image instead of [1, " +
                      std::to_string(spec.classes) + "]");
  return model;
}

// A batch norm with the model's statistics and PyTorch's defaults.
void add_batch_norm(sequential& net, const std::string& name, std::size_t channels, norm_statistics statistics) {
  net.emplace<batch_norm>(name, channels, 0.1f, 1e-5f, statistics);
}

void add_basic_block(sequential& net, const std::string& name, std::size_t in_c, std::size_t out_c,
                     std::size_t stride, norm_statistics statistics) {
  auto& block = net.emplace<residual>(name);
  auto& m = block.main_branch();
  m.emplace<conv2d>(name + ".conv_a", in_c, out_c, 3, stride, padding_mode::same, false).use_he_init();
  add_batch_norm(m, name + ".bn_a", out_c, statistics);
  m.emplace<relu>(name + ".relu_a");
  m.emplace<conv2d>(name + ".conv_b", out_c, out_c, 3, 1, padding_mode::same, false).use_he_init();
  add_batch_norm(m, name + ".bn_b", out_c, statistics);
  if (stride != 1 || in_c != out_c) {
    auto& s = block.shortcut();
    s.emplace<conv2d>(name + ".proj", in_c, out_c, 1, stride, padding_mode::same, false).use_he_init();
    add_batch_norm(s, name + ".proj_bn", out_c, statistics);
  }
  net.emplace<relu>(name + ".relu");
}

}  // namespace

std::unique_ptr<sequential> make_mlp(const model_spec& spec) {
  auto net = std::make_unique<sequential>("mlp");
  net->emplace<flatten>("flatten");
  std::size_t width = spec.channels * spec.height * spec.width;
  for (std::size_t i = 0; i < spec.hidden.size(); ++i) {
    const std::string id = std::to_string(i + 1);
    net->emplace<dense>("dense" + id, width, spec.hidden[i]);
    net->emplace<relu>("relu" + id);
    if (spec.dropout > 0.0f) net->emplace<dropout>("dropout" + id, spec.dropout);
    width = spec.hidden[i];
  }
  net->emplace<dense>("logits", width, spec.classes);
  return checked(std::move(net), spec);
}

std::unique_ptr<sequential> make_tutorial_conv(const model_spec& spec) {
  auto net = std::make_unique<sequential>("tutorial_conv");
  net->emplace<conv2d>("conv1", spec.channels, 32, 3, 1, padding_mode::same, false);
  net->emplace<relu>("relu1");
  net->emplace<conv2d>("conv2", 32, 32, 3, 1, padding_mode::same, false);
  net->emplace<flatten>("flatten");
  net->emplace<dense>("logits", 32 * spec.height * spec.width, spec.classes);
  return checked(std::move(net), spec);
}

std::unique_ptr<sequential> make_lenet5(const model_spec& spec) {
  auto net = std::make_unique<sequential>("lenet5");
  const padding_mode first = spec.height == 28 && spec.width == 28 ? padding_mode::same : padding_mode::valid;
  net->emplace<conv2d>("conv1", spec.channels, 6, 5, 1, first, true);
  net->emplace<relu>("relu1");
  net->emplace<max_pool2d>("pool1", 2, 2);
  net->emplace<conv2d>("conv2", 6, 16, 5, 1, padding_mode::valid, true);
  net->emplace<relu>("relu2");
  net->emplace<max_pool2d>("pool2", 2, 2);
  net->emplace<flatten>("flatten");
  const shape conv_out = net->output_shape(input_shape(spec));
  net->emplace<dense>("fc1", conv_out[1], 120);
  net->emplace<relu>("relu3");
  net->emplace<dense>("fc2", 120, 84);
  net->emplace<relu>("relu4");
  net->emplace<dense>("logits", 84, spec.classes);
  return checked(std::move(net), spec);
}

std::unique_ptr<sequential> make_resnet(const model_spec& spec) {
  if (spec.depth < 8 || (spec.depth - 2) % 6 != 0)
    throw input_error("model resnet: depth must be 6N+2 with N >= 1 (8, 14, 20, ...), got " +
                      std::to_string(spec.depth));
  const std::size_t blocks = (spec.depth - 2) / 6;
  auto net = std::make_unique<sequential>("resnet" + std::to_string(spec.depth));
  net->emplace<conv2d>("stem.conv", spec.channels, 16, 3, 1, padding_mode::same, false).use_he_init();
  add_batch_norm(*net, "stem.bn", 16, spec.statistics);
  net->emplace<relu>("stem.relu");
  std::size_t channels = 16;
  for (std::size_t stage = 0; stage < 3; ++stage) {
    const std::size_t out_c = 16u << stage;
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t stride = stage > 0 && b == 0 ? 2 : 1;
      add_basic_block(*net, "stage" + std::to_string(stage + 1) + ".block" + std::to_string(b + 1), channels, out_c,
                      stride, spec.statistics);
      channels = out_c;
    }
  }
  net->emplace<global_avg_pool>("pool");
  net->emplace<dense>("logits", channels, spec.classes);
  return checked(std::move(net), spec);
}

std::unique_ptr<sequential> make_model(const model_spec& spec) {
  if (spec.name == "mlp") return make_mlp(spec);
  if (spec.name == "tutorial_conv") return make_tutorial_conv(spec);
  if (spec.name == "lenet5") return make_lenet5(spec);
  if (spec.name == "resnet") return make_resnet(spec);
  throw input_error("unknown model '" + spec.name + "' (known: mlp, tutorial_conv, lenet5, resnet)");
}

}  // namespace lab
