// scaled_gemm's operands (scaled_gemm.hpp) where the layout work is done on
// the way: k-contiguous operands with row strides longer than k, Hadamard-
// transformed while they are copied into rows x k (conv2d's kernel-gradient
// GEMM under nvfp4), checked against the transform's fp32 steps written out
// here and num::quantize_dequantize on them, and the product against
// lab::sgemm on those dequantized operands; and one scratch serving a larger
// operand after a smaller one (its vectors only grow) with the results of a
// fresh scratch, bit for bit.
#include <gtest/gtest.h>

#include <libnum/scaled_array.hpp>
#include <libnum/scaled_format.hpp>

#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "lab/hadamard.hpp"
#include "lab/scaled_gemm.hpp"
#include "scaled_test_support.hpp"

namespace lab {
namespace {

// What scaled_gemm showed of one operand, copied.
struct operands_seen {
  num::tensor_shape shape;
  std::vector<float> values, dequantized;
  std::vector<std::uint32_t> scales;
  num::scaled_counts counts;
};

std::vector<std::uint32_t> bits(std::span<const float> x) {
  std::vector<std::uint32_t> b(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) b[i] = std::bit_cast<std::uint32_t>(x[i]);
  return b;
}

// Runs g through scaled_gemm with both operands quantized by `options` (and
// the Hadamard signs where given); returns what it showed of A and B.
std::pair<operands_seen, operands_seen> run(const gemm_args& g, const num::scaled_options& options,
                                            std::span<const float> signs, scaled_gemm_scratch& scratch) {
  operand_quantization q;
  q.options = options;
  q.hadamard_signs = signs;
  std::vector<operands_seen> shown;
  const quantized_observer observe = [&](const quantized_operand& o) {
    shown.push_back({o.shape,
                     {o.values.begin(), o.values.end()},
                     {o.dequantized.begin(), o.dequantized.end()},
                     {o.scales.begin(), o.scales.end()},
                     o.result.counts});
  };
  scaled_gemm(g, tensor_role::grad_weight, q, q, observe, scratch);
  EXPECT_EQ(shown.size(), 2u);
  return {shown.at(0), shown.at(1)};
}

num::scaled_options mxfp8_options() {
  num::scaled_options o;
  o.format = *num::find_scaled_format("mxfp8");
  return o;
}

// rows x k of a matrix stored with row stride ld, each run of 16 through the
// transform's fp32 steps; a last run shorter than 16 as it is.
std::vector<float> transformed_rows(const std::vector<float>& stored, std::size_t rows, std::size_t k, std::size_t ld,
                                    std::span<const float, hadamard_size> signs) {
  std::vector<float> out(rows * k);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* in = stored.data() + r * ld;
    for (std::size_t p = 0; p < k; ++p) out[r * k + p] = in[p];
    for (std::size_t run = 0; (run + 1) * 16 <= k; ++run)
      scaled_test::hadamard_run_steps(in + run * 16, signs.data(), out.data() + r * k + run * 16);
  }
  return out;
}

void expect_reference_quantization(const operands_seen& got, const std::vector<float>& values, num::tensor_shape shape,
                                   const num::scaled_options& o, const char* what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(got.shape.rows, shape.rows);
  ASSERT_EQ(got.shape.cols, shape.cols);
  EXPECT_EQ(bits(got.values), bits(values));
  std::vector<float> dq(values.size());
  std::vector<std::uint32_t> scales(num::scale_count(o.format, shape));
  const num::scaled_result r = num::quantize_dequantize(values, shape, dq, scales, o);
  EXPECT_EQ(bits(got.dequantized), bits(dq));
  EXPECT_EQ(got.scales, scales);
  EXPECT_EQ(got.counts, r.counts);
}

TEST(ScaledGemmOperands, KContiguousOperandsAreHadamardTransformedWhileCopied) {
  // dW = dY colᵀ as conv2d's kernel gradient calls it: A as stored, B
  // transposed, both k-contiguous; strides past k; k = 37: two runs and a
  // tail of 5.
  const std::size_t m = 5, n = 7, k = 37, lda = k + 3, ldb = k + 6;
  const std::vector<float> a = scaled_test::normal_values(m * lda, 21, 1.0f);
  const std::vector<float> b = scaled_test::normal_values(n * ldb, 22, 1e-3f);
  std::vector<float> c(m * n, 0.0f);
  const gemm_args g{false, true, m, n, k, a.data(), lda, b.data(), ldb, 0.0f, c.data(), n,
                    tensor_role::grad_input, tensor_role::activation, 0};
  const auto signs = hadamard_signs(5);
  const num::scaled_options o = mxfp8_options();
  scaled_gemm_scratch scratch;
  const auto [qa, qb] = run(g, o, signs, scratch);
  expect_reference_quantization(qa, transformed_rows(a, m, k, lda, signs), {m, k}, o, "A");
  expect_reference_quantization(qb, transformed_rows(b, n, k, ldb, signs), {n, k}, o, "B");
  // The product is sgemm's on the dequantized operands, as the op laid them
  // out (A as stored, B transposed).
  std::vector<float> want(m * n, 0.0f);
  sgemm({false, true, m, n, k, qa.dequantized.data(), k, qb.dequantized.data(), k, 0.0f, want.data(), n});
  EXPECT_EQ(bits(c), bits(want));
}

// Both operands of two scaled_gemm calls, with a reused scratch and with a
// fresh one, equal bit for bit and in size.
void expect_same_operands(const std::pair<operands_seen, operands_seen>& reused,
                          const std::pair<operands_seen, operands_seen>& fresh) {
  for (const auto& [got, want] : {std::pair{&reused.first, &fresh.first}, std::pair{&reused.second, &fresh.second}}) {
    EXPECT_EQ(got->values.size(), want->values.size());
    EXPECT_EQ(bits(got->values), bits(want->values));
    EXPECT_EQ(bits(got->dequantized), bits(want->dequantized));
    EXPECT_EQ(got->scales, want->scales);
    EXPECT_EQ(got->counts, want->counts);
  }
}

TEST(ScaledGemmOperands, ScratchServesSmallerAndLargerOperandsInTurnBitForBit) {
  // A large product with a k-major B (a transposition in and out), then a
  // small one, then the large one again: each shows and computes exactly
  // what a fresh scratch does.
  const std::size_t m = 9, n = 300, k = 70;
  const std::vector<float> a = scaled_test::normal_values(m * k, 31, 1.0f);
  const std::vector<float> b = scaled_test::normal_values(k * n, 32, 1.0f);
  std::vector<float> c(m * n, 0.0f), c_fresh(m * n, 0.0f), c_small(4, 0.0f), c_small_fresh(4, 0.0f);
  const gemm_args large{false, false, m, n, k, a.data(), k, b.data(), n, 0.0f, c.data(), n,
                        tensor_role::activation, tensor_role::activation, 0};
  gemm_args small = large;
  small.m = small.n = 2;
  small.k = 33;
  small.lda = 33;
  small.ldb = 2;
  small.c = c_small.data();
  small.ldc = 2;
  const num::scaled_options o = mxfp8_options();
  scaled_gemm_scratch reused;
  run(large, o, {}, reused);
  const auto small_reused = run(small, o, {}, reused);
  const auto large_reused = run(large, o, {}, reused);
  {
    SCOPED_TRACE("small after large");
    scaled_gemm_scratch fresh;
    gemm_args call = small;
    call.c = c_small_fresh.data();
    expect_same_operands(small_reused, run(call, o, {}, fresh));
    EXPECT_EQ(small_reused.second.values.size(), 2u * 33u);
    EXPECT_EQ(small_reused.second.scales.size(), 2u * 2u);  // blocks of 32: two per row of 33
    EXPECT_EQ(bits(c_small), bits(c_small_fresh));
  }
  {
    SCOPED_TRACE("large after small");
    scaled_gemm_scratch fresh;
    gemm_args call = large;
    call.c = c_fresh.data();
    expect_same_operands(large_reused, run(call, o, {}, fresh));
    EXPECT_EQ(large_reused.second.values.size(), n * k);
    EXPECT_EQ(bits(c), bits(c_fresh));
  }
}

}  // namespace
}  // namespace lab
