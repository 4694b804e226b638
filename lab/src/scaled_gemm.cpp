#include "lab/scaled_gemm.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "lab/hadamard.hpp"

namespace lab {
namespace {

// One operand, quantized and dequantized; owns what quantized_operand shows.
struct quantized {
  num::tensor_shape shape;
  std::vector<float> own_values;  // where the operand had to be laid out (or transformed)
  std::span<const float> values;
  std::vector<std::uint8_t> elements;
  std::vector<std::uint32_t> scales;
  std::vector<float> dequantized;
  num::scaled_result result;
};

quantized quantize_operand(const gemm_args& g, bool is_a, const operand_quantization& q) {
  quantized out;
  out.shape = {is_a ? g.m : g.n, g.k};
  const bool k_contiguous = is_a ? !g.trans_a : g.trans_b;
  if (k_contiguous && (is_a ? g.lda : g.ldb) == g.k && q.hadamard_signs.empty()) {
    out.values = {is_a ? g.a : g.b, out.shape.size()};  // already rows x k, dense
  } else {
    out.own_values = reduction_rows(g, is_a);
    if (!q.hadamard_signs.empty())
      hadamard_transform_rows(out.own_values, g.k, q.hadamard_signs.first<hadamard_size>());
    out.values = out.own_values;
  }
  const auto& f = q.options.format;
  out.elements.resize(num::element_bytes(f.element, q.options.layout, out.shape.size()));
  out.scales.resize(num::scale_count(f, out.shape));
  out.result = num::quantize(out.values, out.shape, out.elements, out.scales, q.options);
  out.dequantized.resize(out.shape.size());
  num::dequantize(out.elements, out.scales, out.result.tensor_scale, out.shape, out.dequantized, q.options);
  return out;
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
  view.elements = q.elements;
  view.scales = q.scales;
  view.dequantized = q.dequantized;
  view.options = how.options;
  view.result = q.result;
  view.tensor_amax = how.tensor_amax;
  view.amax_history = how.amax_history;
  observe(view);
}

// q's dequantized values in the layout the op stored the operand in: as they
// are where that was rows x k, else transposed into k x rows (`scratch`).
const float* stored_layout(const quantized& q, bool stored_k_major, std::vector<float>& scratch, std::size_t& ld) {
  const std::size_t rows = q.shape.rows, k = q.shape.cols;
  if (!stored_k_major) {
    ld = k;
    return q.dequantized.data();
  }
  scratch.resize(rows * k);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t p = 0; p < k; ++p) scratch[p * rows + r] = q.dequantized[r * k + p];
  ld = rows;
  return scratch.data();
}

}  // namespace

std::vector<float> reduction_rows(const gemm_args& g, bool is_a) {
  // op(A) row i is A's row i (A stored m x k) or column i (stored k x m);
  // op(B)ᵀ row j is B's column j (stored k x n) or row j (stored n x k).
  const std::size_t rows = is_a ? g.m : g.n, k = g.k;
  const float* src = is_a ? g.a : g.b;
  const std::size_t ld = is_a ? g.lda : g.ldb;
  const bool k_contiguous = is_a ? !g.trans_a : g.trans_b;
  std::vector<float> out(rows * k);
  if (k_contiguous) {
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t p = 0; p < k; ++p) out[r * k + p] = src[r * ld + p];
  } else {
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t r = 0; r < rows; ++r) out[r * k + p] = src[p * ld + r];
  }
  return out;
}

void scaled_gemm(const gemm_args& g, tensor_role gemm_role, const operand_quantization& a,
                 const operand_quantization& b, const quantized_observer& observe) {
  if (!gemm_operand_of(g.a_role) || !gemm_operand_of(g.b_role))
    throw std::invalid_argument("scaled GEMM: operand roles must be activation, weight or grad_input (got " +
                                std::string(role_name(g.a_role)) + ", " + std::string(role_name(g.b_role)) + ")");
  const quantized qa = quantize_operand(g, true, a);
  show(observe, qa, a, g.a_role, gemm_role, g.part);
  const quantized qb = quantize_operand(g, false, b);
  show(observe, qb, b, g.b_role, gemm_role, g.part);
  // The dequantized operands go back into the layout the op passed them in,
  // so sgemm picks the kernel (and summation order) it picks in fp32.
  std::vector<float> a_stored, b_stored;
  gemm_args on = g;
  on.a = stored_layout(qa, g.trans_a, a_stored, on.lda);
  on.b = stored_layout(qb, !g.trans_b, b_stored, on.ldb);
  sgemm(on);
}

}  // namespace lab
