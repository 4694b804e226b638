#include "lab/scaled_gemm.hpp"

#include <cblas.h>
#include <libnum/scaled_flush_counts.hpp>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab/hadamard.hpp"
#include "scratch.hpp"

namespace lab {
namespace {

// The rows x cols matrix src (row stride ld) transposed into dst (cols x
// rows, dense), by OpenBLAS's out-of-place matrix copy: several times faster
// than a tiled loop here. Its factor 1 leaves every value as it is (a
// signalling NaN comes out quiet, which quantize treats alike).
void transpose(const float* src, std::size_t ld, std::size_t rows, std::size_t cols, float* dst) {
  if (rows == 0 || cols == 0) return;
  cblas_somatcopy(CblasRowMajor, CblasTrans, static_cast<blasint>(rows), static_cast<blasint>(cols), 1.0f, src,
                  static_cast<blasint>(ld), dst, static_cast<blasint>(rows));
}

// One operand, quantized: its values rows x k, their block scales, and the
// dequantized values rows x k and in the layout the op stored the operand in.
struct quantized {
  num::tensor_shape shape;
  std::span<const float> values;
  std::span<const std::uint32_t> scales;
  std::span<const float> dequantized;
  const float* stored = nullptr;
  std::size_t stored_ld = 0;
  num::scaled_result result;
};

// The dequantized values rows x k in the layout the op stored the operand
// in: as they are where that was rows x k, else transposed into k x rows.
const float* stored_layout(const quantized& q, bool stored_k_major, std::vector<float>& stored, std::size_t& ld) {
  const std::size_t rows = q.shape.rows, k = q.shape.cols;
  if (!stored_k_major) {
    ld = k;
    return q.dequantized.data();
  }
  float* out = detail::scratch_prefix(stored, rows * k).data();
  transpose(q.dequantized.data(), k, rows, k, out);
  ld = rows;
  return out;
}

// Where quantize_operand writes: a scratch operand's vectors, or those of a
// quantization to be kept (kept_quantization's fields of the same names).
// They only grow (detail::scratch_prefix): a scratch that served a larger
// operand is not zero-filled again when it serves a smaller one and then a
// larger one, as conv2d's and dense's GEMMs take turns with it.
struct operand_storage {
  std::vector<float>& values;
  std::vector<float>& dequantized;
  std::vector<float>& stored;
  std::vector<std::uint32_t>& scales;
};

// The operand rows x k into `values`: op(A) row i is A's row i (A stored
// m x k) or column i (stored k x m); op(B)ᵀ row j is B's column j (stored
// k x n) or row j (stored n x k). With Hadamard signs, each row's runs of 16
// transformed on the way where the rows are stored k-contiguous (one pass
// instead of a copy and a transform in place).
void operand_rows(const gemm_args& g, bool is_a, std::span<const float> hadamard_signs, std::span<float> values) {
  const std::size_t rows = is_a ? g.m : g.n, k = g.k;
  const float* src = is_a ? g.a : g.b;
  const std::size_t ld = is_a ? g.lda : g.ldb;
  const bool k_contiguous = is_a ? !g.trans_a : g.trans_b;
  if (!k_contiguous) {
    transpose(src, ld, k, rows, values.data());
    if (!hadamard_signs.empty()) hadamard_transform_rows(values, k, hadamard_signs.first<hadamard_size>());
    return;
  }
  if (hadamard_signs.empty()) {
    for (std::size_t r = 0; r < rows; ++r) std::copy(src + r * ld, src + r * ld + k, values.data() + r * k);
    return;
  }
  for (std::size_t r = 0; r < rows; ++r)
    hadamard_transform_rows({src + r * ld, k}, values.subspan(r * k, k), k, hadamard_signs.first<hadamard_size>());
}

quantized quantize_operand(const gemm_args& g, bool is_a, const operand_quantization& q, operand_storage s) {
  quantized out;
  out.shape = {is_a ? g.m : g.n, g.k};
  const std::size_t n = out.shape.size();
  const bool k_contiguous = is_a ? !g.trans_a : g.trans_b;
  if (k_contiguous && (is_a ? g.lda : g.ldb) == g.k && q.hadamard_signs.empty()) {
    out.values = {is_a ? g.a : g.b, n};  // already rows x k, dense
  } else {
    const std::span<float> values = detail::scratch_prefix(s.values, n);
    operand_rows(g, is_a, q.hadamard_signs, values);
    out.values = values;
  }
  const std::span<std::uint32_t> scales =
      detail::scratch_prefix(s.scales, num::scale_count(q.options.format, out.shape));
  const std::span<float> dequantized = detail::scratch_prefix(s.dequantized, n);
  out.result = num::quantize_dequantize(out.values, out.shape, dequantized, scales, q.options);
  if (q.given_scale_stands_for)
    num::count_flushes_as_block_underflow(out.values, dequantized, q.options, *q.given_scale_stands_for,
                                          out.result.counts);
  out.scales = scales;
  out.dequantized = dequantized;
  out.stored = stored_layout(out, !k_contiguous, s.stored, out.stored_ld);
  return out;
}

quantized view_of(const kept_quantization& k) {
  return {k.shape, k.values_view(), k.scales, k.dequantized, k.stored_data(), k.stored_ld, k.result};
}

// The operand quantized into storage that the keeper then keeps: the
// keeper's previous quantization where nothing else holds it (its vectors
// keep their capacity, so a step allocates nothing and touches no fresh
// page), else a new one. Its layouts are kept_quantization's: values empty
// where the source is rows x k already, stored empty where that is the
// dequantized layout.
std::shared_ptr<const kept_quantization> quantize_to_keep(const gemm_args& g, bool is_a,
                                                          const operand_quantization& q, operand_keeper& keeper) {
  std::shared_ptr<kept_quantization> k = keeper.take_unshared();
  if (!k) k = std::make_shared<kept_quantization>();
  const quantized out = quantize_operand(g, is_a, q, {k->values, k->dequantized, k->stored, k->scales});
  const stored_operand s = stored_operand_of(g, is_a);
  // Exactly the operand's sizes (quantize_operand only grows the vectors):
  // values empty where the source itself was quantized, stored empty where
  // that is the dequantized layout.
  const std::size_t n = out.shape.size();
  k->values.resize(out.values.data() == k->values.data() ? n : 0);
  k->stored.resize(out.stored == k->stored.data() ? n : 0);
  k->dequantized.resize(n);
  k->scales.resize(out.scales.size());
  k->is_a = is_a;
  k->trans = is_a ? g.trans_a : g.trans_b;
  k->stored_rows = s.rows;
  k->stored_cols = s.cols;
  k->source.resize(s.rows * s.cols);
  for (std::size_t r = 0; r < s.rows; ++r)
    std::copy(s.data + r * s.ld, s.data + r * s.ld + s.cols, k->source.begin() + static_cast<std::ptrdiff_t>(r * s.cols));
  k->options = q.options;
  k->shape = out.shape;
  k->stored_ld = out.stored_ld;
  k->result = out.result;
  keeper.keep(k);
  return k;
}

// The operand quantized, or the quantization `keeper` kept where it is the
// same (kept_operand.hpp); `hold` keeps a found one alive for the GEMM.
quantized operand_for(const gemm_args& g, bool is_a, const operand_quantization& q, scaled_gemm_scratch::operand& s,
                      operand_keeper* keeper, std::shared_ptr<const kept_quantization>& hold) {
  const bool keepable =
      keeper != nullptr && q.hadamard_signs.empty() && q.options.spec.mode != num::rounding::stochastic;
  if (!keepable) return quantize_operand(g, is_a, q, {s.values, s.dequantized, s.stored, s.scales});
  hold = keeper->find(g, is_a, q.options);
  if (!hold) hold = quantize_to_keep(g, is_a, q, *keeper);
  return view_of(*hold);
}

void show(const quantized_observer& observe, const quantized& q, const operand_quantization& how, tensor_role role,
          tensor_role gemm_role, std::size_t part) {
  if (!observe) return;
  quantized_operand view;
  view.operand = *gemm_operand_of(role);
  view.gemm_role = gemm_role;
  view.part = part;
  view.shape = q.shape;
  view.values = q.values;
  view.scales = q.scales;
  view.dequantized = q.dequantized;
  view.options = how.options;
  view.result = q.result;
  view.tensor_amax = how.tensor_amax;
  view.amax_history = how.amax_history;
  observe(view);
}

}  // namespace

void reduction_rows(const gemm_args& g, bool is_a, std::vector<float>& out) {
  out.resize((is_a ? g.m : g.n) * g.k);
  operand_rows(g, is_a, {}, out);
}

void scaled_gemm(const gemm_args& g, tensor_role gemm_role, const operand_quantization& a,
                 const operand_quantization& b, const quantized_observer& observe, scaled_gemm_scratch& scratch,
                 const operand_keepers& keepers) {
  if (!gemm_operand_of(g.a_role) || !gemm_operand_of(g.b_role))
    throw std::invalid_argument("scaled GEMM: operand roles must be activation, weight or grad_input (got " +
                                std::string(role_name(g.a_role)) + ", " + std::string(role_name(g.b_role)) + ")");
  std::shared_ptr<const kept_quantization> kept_a, kept_b;
  const quantized qa = operand_for(g, true, a, scratch.a, keepers.a, kept_a);
  show(observe, qa, a, g.a_role, gemm_role, g.part);
  const quantized qb = operand_for(g, false, b, scratch.b, keepers.b, kept_b);
  show(observe, qb, b, g.b_role, gemm_role, g.part);
  // The dequantized operands go back into the layout the op passed them in,
  // so sgemm picks the kernel (and summation order) it picks in fp32.
  gemm_args on = g;
  on.a = qa.stored;
  on.lda = qa.stored_ld;
  on.b = qb.stored;
  on.ldb = qb.stored_ld;
  sgemm(on);
}

}  // namespace lab
