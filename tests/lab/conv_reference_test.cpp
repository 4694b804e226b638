// conv2d and pooling forward against direct loops in double precision, an
// oracle that shares no code with im2col + sgemm.
#include <gtest/gtest.h>

#include <cmath>

#include "gradient_check.hpp"
#include "lab/batch_norm.hpp"
#include "lab/conv2d.hpp"
#include "lab/errors.hpp"
#include "lab/pooling.hpp"

namespace lab {
namespace {

struct case_t {
  std::size_t n, c, k, h, w, r, stride;
  padding_mode padding;
  std::size_t threads;
};

class ConvReference : public ::testing::TestWithParam<case_t> {};

TEST_P(ConvReference, MatchesDirectConvolution) {
  const auto p = GetParam();
  conv2d conv("conv", p.c, p.k, p.r, p.stride, p.padding, true);
  rng gen(5);
  conv.initialise(gen);
  testing::fill_uniform(conv.bias().value, gen);
  const tensor x = testing::random_input({p.n, p.c, p.h, p.w}, 6);
  op_context ctx;
  ctx.threads = p.threads;
  tensor y;
  conv.forward(ctx, x, y);
  // TensorFlow 'same': out = ceil(in/stride), total padding split with the
  // smaller half on top/left.
  std::size_t oh = 0, ow = 0, pt = 0, pl = 0;
  if (p.padding == padding_mode::same) {
    oh = (p.h + p.stride - 1) / p.stride;
    ow = (p.w + p.stride - 1) / p.stride;
    const long long th = std::max<long long>(0, static_cast<long long>((oh - 1) * p.stride + p.r) - static_cast<long long>(p.h));
    const long long tw = std::max<long long>(0, static_cast<long long>((ow - 1) * p.stride + p.r) - static_cast<long long>(p.w));
    pt = static_cast<std::size_t>(th / 2);
    pl = static_cast<std::size_t>(tw / 2);
  } else {
    oh = (p.h - p.r) / p.stride + 1;
    ow = (p.w - p.r) / p.stride + 1;
  }
  ASSERT_EQ(y.shape(), (shape{p.n, p.k, oh, ow}));
  const auto& wt = conv.kernel().value;
  for (std::size_t i = 0; i < p.n; ++i)
    for (std::size_t k = 0; k < p.k; ++k)
      for (std::size_t a = 0; a < oh; ++a)
        for (std::size_t b = 0; b < ow; ++b) {
          double sum = conv.bias().value[k];
          for (std::size_t c = 0; c < p.c; ++c)
            for (std::size_t r = 0; r < p.r; ++r)
              for (std::size_t s = 0; s < p.r; ++s) {
                const long long ih = static_cast<long long>(a * p.stride + r) - static_cast<long long>(pt);
                const long long iw = static_cast<long long>(b * p.stride + s) - static_cast<long long>(pl);
                if (ih < 0 || iw < 0 || ih >= static_cast<long long>(p.h) || iw >= static_cast<long long>(p.w)) continue;
                sum += static_cast<double>(wt[((k * p.c + c) * p.r + r) * p.r + s]) *
                       x[((i * p.c + c) * p.h + static_cast<std::size_t>(ih)) * p.w + static_cast<std::size_t>(iw)];
              }
          const float got = y[((i * p.k + k) * oh + a) * ow + b];
          ASSERT_NEAR(got, sum, 1e-5 * (1.0 + std::abs(sum))) << "at " << i << "," << k << "," << a << "," << b;
        }
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConvReference,
                         ::testing::Values(case_t{2, 1, 32, 28, 28, 3, 1, padding_mode::same, 1},
                                           case_t{3, 3, 4, 9, 7, 3, 2, padding_mode::same, 2},
                                           case_t{2, 2, 3, 8, 8, 4, 2, padding_mode::same, 1},
                                           case_t{2, 3, 5, 10, 11, 5, 1, padding_mode::valid, 2},
                                           case_t{20, 2, 3, 6, 6, 1, 2, padding_mode::valid, 3},
                                           // stride 1 and out_w == in_w: the flat (shifted-plane) im2col
                                           case_t{2, 3, 4, 7, 6, 4, 1, padding_mode::same, 2},
                                           case_t{3, 2, 5, 6, 9, 2, 1, padding_mode::same, 1},
                                           case_t{2, 4, 3, 5, 5, 1, 1, padding_mode::same, 1},
                                           case_t{1, 2, 3, 2, 3, 5, 1, padding_mode::same, 1}));

TEST(ConvReference, ThreadCountDoesNotChangeForwardResults) {
  conv2d conv("conv", 3, 8, 3, 1, padding_mode::same, false);
  rng gen(9);
  conv.initialise(gen);
  const tensor x = testing::random_input({40, 3, 12, 12}, 10);
  op_context one, three;
  three.threads = 3;
  tensor a, b;
  conv.forward(one, x, a);
  conv.forward(three, x, b);
  ASSERT_EQ(a.shape(), b.shape());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]);
}

TEST(ConvReference, ThreadCountDoesNotChangeBatchNormResults) {
  batch_norm one_bn("bn", 5), three_bn("bn", 5);
  const tensor x = testing::random_input({6, 5, 3, 3}, 12);
  tensor dy = testing::random_input({6, 5, 3, 3}, 13);
  op_context one, three;
  three.threads = 3;
  tensor a, b, da, db;
  one_bn.forward(one, x, a);
  three_bn.forward(three, x, b);
  one_bn.backward(one, x, a, dy, &da);
  three_bn.backward(three, x, b, dy, &db);
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]);
  for (std::size_t i = 0; i < da.size(); ++i) ASSERT_EQ(da[i], db[i]);
  for (std::size_t c = 0; c < 5; ++c) ASSERT_EQ(one_bn.running_var()[c], three_bn.running_var()[c]);
}

TEST(PoolingReference, MaxAndAveragePickTheRightWindows) {
  // A 4x4 plane 0..15: 2x2/2 max pool gives 5 7 13 15, average 2.5 4.5 10.5 12.5.
  tensor x({1, 1, 4, 4});
  for (std::size_t i = 0; i < 16; ++i) x[i] = static_cast<float>(i);
  op_context ctx;
  max_pool2d mp("max", 2, 2);
  avg_pool2d ap("avg", 2, 2);
  global_avg_pool gp("gap");
  tensor y;
  mp.forward(ctx, x, y);
  EXPECT_EQ(y.shape(), (shape{1, 1, 2, 2}));
  EXPECT_EQ(y[0], 5.0f);
  EXPECT_EQ(y[1], 7.0f);
  EXPECT_EQ(y[2], 13.0f);
  EXPECT_EQ(y[3], 15.0f);
  ap.forward(ctx, x, y);
  EXPECT_EQ(y[0], 2.5f);
  EXPECT_EQ(y[3], 12.5f);
  gp.forward(ctx, x, y);
  EXPECT_EQ(y.shape(), (shape{1, 1}));
  EXPECT_EQ(y[0], 7.5f);
}

TEST(ShapeErrors, ImpossibleShapesNameTheLayer) {
  conv2d conv("conv7", 3, 4, 5, 1, padding_mode::valid, false);
  try {
    (void)conv.output_shape({1, 3, 4, 4});
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("conv7"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)conv.output_shape({1, 2, 9, 9}), input_error);
}

}  // namespace
}  // namespace lab
