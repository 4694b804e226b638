#include "lab/sequential.hpp"

#include <algorithm>

namespace lab {

shape sequential::output_shape(const shape& in) const {
  shape s = in;
  for (const auto& l : layers_) s = l->output_shape(s);
  return s;
}

void sequential::forward(const op_context& ctx, const tensor& in, tensor& out) {
  if (layers_.empty()) {
    out = in;
    return;
  }
  outputs_.resize(layers_.size());
  const tensor* x = &in;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    tensor& y = i + 1 == layers_.size() ? out : outputs_[i];
    layers_[i]->forward(ctx, *x, y);
    x = &y;
  }
}

void sequential::backward(const op_context& ctx, const tensor& in, const tensor& out, const tensor& grad_out,
                          tensor* grad_in) {
  if (layers_.empty()) {
    if (grad_in != nullptr) *grad_in = grad_out;
    return;
  }
  const tensor* dy = &grad_out;
  for (std::size_t i = layers_.size(); i-- > 0;) {
    const tensor& x = i == 0 ? in : outputs_[i - 1];
    const tensor& y = i + 1 == layers_.size() ? out : outputs_[i];
    tensor* dx = i == 0 ? grad_in : (dy == &grad_a_ ? &grad_b_ : &grad_a_);
    layers_[i]->backward(ctx, x, y, *dy, dx);
    dy = dx;
  }
}

std::vector<parameter*> sequential::parameters() {
  std::vector<parameter*> all;
  for (auto& l : layers_) {
    auto p = l->parameters();
    all.insert(all.end(), p.begin(), p.end());
  }
  return all;
}

std::vector<tensor*> sequential::buffers() {
  std::vector<tensor*> all;
  for (auto& l : layers_) {
    auto b = l->buffers();
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

void sequential::initialise(rng& gen) {
  for (auto& l : layers_) l->initialise(gen);
}

}  // namespace lab
