#include "lab/residual.hpp"

#include "lab/errors.hpp"
#include "parallel.hpp"

namespace lab {
namespace {

// sum[i] = a[i] + b[i], split between ctx.threads workers when large.
void add(const op_context& ctx, const tensor& a, const tensor& b, tensor& sum) {
  detail::parallel_elementwise(ctx.threads, sum.size(), [&](std::size_t begin, std::size_t end) {
    const float* __restrict x = a.data();
    const float* __restrict y = b.data();
    float* __restrict z = sum.data();
    for (std::size_t i = begin; i < end; ++i) z[i] = x[i] + y[i];
  });
}

}  // namespace

residual::residual(std::string name)
    : layer(std::move(name)), main_(this->name() + ".main"), shortcut_(this->name() + ".shortcut") {}

shape residual::output_shape(const shape& in) const {
  const shape a = main_.output_shape(in);
  const shape b = shortcut_.output_shape(in);
  if (a != b)
    throw input_error("layer " + name() + " (residual_add): main branch gives " + a.str() + " but shortcut gives " +
                      b.str());
  return a;
}

void residual::forward(const op_context& ctx, const tensor& in, tensor& out) {
  const shape s = output_shape(in.shape());
  main_.forward(ctx, in, main_out_);
  const tensor* skip = &in;
  if (!shortcut_.layers().empty()) {
    shortcut_.forward(ctx, in, shortcut_out_);
    skip = &shortcut_out_;
  }
  out.resize(s);
  add(ctx, main_out_, *skip, out);
  ctx.produce_from(site("output"), out.values(), {main_out_.values(), skip->values()});
}

void residual::backward(const op_context& ctx, const tensor& in, const tensor& /*out*/, const tensor& grad_out,
                        tensor* grad_in) {
  // The sum passes grad_out unchanged to both branches.
  main_.backward(ctx, in, main_out_, grad_out, grad_in != nullptr ? &main_grad_ : nullptr);
  if (shortcut_.layers().empty()) {
    if (grad_in == nullptr) return;
    grad_in->resize(in.shape());
    add(ctx, main_grad_, grad_out, *grad_in);
  } else {
    shortcut_.backward(ctx, in, shortcut_out_, grad_out, grad_in != nullptr ? &shortcut_grad_ : nullptr);
    if (grad_in == nullptr) return;
    grad_in->resize(in.shape());
    add(ctx, main_grad_, shortcut_grad_, *grad_in);
  }
  ctx.produce(site("grad_input"), tensor_role::grad_input, grad_in->values());
}

std::vector<parameter*> residual::parameters() {
  auto all = main_.parameters();
  auto s = shortcut_.parameters();
  all.insert(all.end(), s.begin(), s.end());
  return all;
}

std::vector<tensor*> residual::buffers() {
  auto all = main_.buffers();
  auto s = shortcut_.buffers();
  all.insert(all.end(), s.begin(), s.end());
  return all;
}

void residual::initialise(rng& gen) {
  main_.initialise(gen);
  shortcut_.initialise(gen);
}

}  // namespace lab
