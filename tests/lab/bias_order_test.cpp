// Dense and conv2d start each output's sum at the bias (the GEMM's C with
// beta = 1): under fp16 partials both equal a chain of fp16 fmas from the
// bias, bit for bit.
#include <gtest/gtest.h>

#include <libnum/arithmetic.hpp>
#include <libnum/codec.hpp>
#include <libnum/convert.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "lab/conv2d.hpp"
#include "lab/dense.hpp"
#include "lab/precision_hook.hpp"

namespace lab {
namespace {

const num::format& f16 = num::binary16;

std::uint32_t h(float x) { return num::from_float(f16, x, num::round_spec{}).bits; }

// Values of fp16, varied in sign and size, so partial sums round often.
void fill_fp16(std::span<float> v, float scale, int salt) {
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = num::to_float(f16, h(scale * std::sin(static_cast<float>(i * 7 + static_cast<std::size_t>(salt)) * 1.3f)));
}

precision_hook fp16_partials_hook() {
  precision_config c;
  c.preset = "fp16";
  set_precision_value(c, "partials", "low", "test");
  return precision_hook(c.resolve(), 1);
}

TEST(BiasOrder, ConvHalfPartialsEqualAnFmaChainFromTheBias) {
  // Batch 3 of 18x18 images, 3x3 valid: 256 output pixels, so two images
  // share a GEMM and the third has its own (both of conv2d's paths).
  for (const std::size_t stride : {1u, 2u}) {
    const std::size_t n = 3, c = 2, k = 3, r = 3, hw = 18;
    conv2d conv("conv", c, k, r, stride, padding_mode::valid, true);
    fill_fp16(conv.kernel().value.values(), 0.4f, 1);
    fill_fp16(conv.bias().value.values(), 2.0f, 2);
    tensor x({n, c, hw, hw}), y;
    fill_fp16(x.values(), 3.0f, 3);
    precision_hook hook = fp16_partials_hook();
    hook.store_parameters(conv.parameters());
    conv.forward(hook.context(), x, y);
    const std::size_t out = y.shape()[2];
    const auto& w = conv.kernel().value;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t o = 0; o < k; ++o)
        for (std::size_t oh = 0; oh < out; ++oh)
          for (std::size_t ow = 0; ow < out; ++ow) {
            std::uint32_t acc = h(conv.bias().value[o]);
            for (std::size_t ch = 0; ch < c; ++ch)
              for (std::size_t kh = 0; kh < r; ++kh)
                for (std::size_t kw = 0; kw < r; ++kw) {
                  const float xv = x[((i * c + ch) * hw + oh * stride + kh) * hw + ow * stride + kw];
                  acc = num::fma(f16, h(xv), h(w[((o * c + ch) * r + kh) * r + kw]), acc, num::round_spec{}).bits;
                }
            ASSERT_EQ(y[((i * k + o) * out + oh) * out + ow], num::to_float(f16, acc))
                << "stride " << stride << " image " << i << " channel " << o << " at " << oh << "," << ow;
          }
  }
}

TEST(BiasOrder, DenseHalfPartialsEqualAnFmaChainFromTheBias) {
  const std::size_t n = 3, in = 30, out = 5;
  dense fc("fc", in, out);
  fill_fp16(fc.kernel().value.values(), 0.4f, 4);
  fill_fp16(fc.bias().value.values(), 2.0f, 5);
  tensor x({n, in}), y;
  fill_fp16(x.values(), 3.0f, 6);
  precision_hook hook = fp16_partials_hook();
  hook.store_parameters(fc.parameters());
  fc.forward(hook.context(), x, y);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t o = 0; o < out; ++o) {
      std::uint32_t acc = h(fc.bias().value[o]);
      for (std::size_t f = 0; f < in; ++f)
        acc = num::fma(f16, h(x[i * in + f]), h(fc.kernel().value[o * in + f]), acc, num::round_spec{}).bits;
      ASSERT_EQ(y[i * out + o], num::to_float(f16, acc)) << i << "," << o;
    }
}

}  // namespace
}  // namespace lab
