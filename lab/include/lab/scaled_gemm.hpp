// One GEMM of a scaled recipe (scaled_recipe.hpp): both operands quantized
// along the reduction dimension and dequantized again in one call
// (num::quantize_dequantize), and multiplied by lab::sgemm in fp32.
//
// Layout: op(A) (m x k) is quantized as an m x k row-major matrix and op(B)
// (k x n) as its transpose, an n x k row-major matrix: in both, row r holds
// the k values output row / column r is reduced over, so 1 x N blocks run
// along the reduction dimension and an R x C block covers R output rows (or
// columns) and C reduction steps. Element (r, p) takes random word r·k + p of
// the operand's stream. The dequantized operands are laid out again as the op
// passed them, so sgemm runs the kernel it runs on fp32 operands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include <libnum/scaled_array.hpp>

#include "lab/kept_operand.hpp"
#include "lab/op_context.hpp"
#include "lab/scaled_recipe.hpp"

namespace lab {

/// One GEMM operand as a scaled recipe quantized it (shown to the hook
/// chained after the policy: tensor_hook::observe_quantized).
struct quantized_operand {
  gemm_operand operand = gemm_operand::activation;   ///< what it is to the op
  tensor_role gemm_role = tensor_role::activation;   ///< the GEMM's output: activation, grad_input or grad_weight
  std::size_t part = 0;                              ///< gemm_args::part
  num::tensor_shape shape;                           ///< rows x k (see the file comment)
  std::span<const float> values;                     ///< what was quantized, in that layout (after the Hadamard transform)
  std::span<const std::uint32_t> scales;             ///< the block scale codes num::quantize gives
  std::span<const float> dequantized;                ///< what the GEMM multiplied: every element × its scale(s)
  num::scaled_options options;                       ///< the options the quantization ran with
  num::scaled_result result;                         ///< what it reported
  /// The amax the per-tensor scale (fp32_given) or NVFP4's tensor scale came
  /// from: the whole tensor's now, or the reduced history's; NaN where none.
  float tensor_amax = __builtin_nanf("");
  std::span<const float> amax_history;               ///< delayed scaling: the history, oldest first
};

/// How one operand of a scaled GEMM is quantized.
struct operand_quantization {
  num::scaled_options options;                 ///< format, element rounding, scale, random stream
  float tensor_amax = __builtin_nanf("");      ///< as quantized_operand::tensor_amax
  std::span<const float> amax_history;         ///< as quantized_operand::amax_history
  /// Apply the 16x16 random Hadamard transform with these signs (hadamard.hpp)
  /// to every run of 16 reduction steps before quantizing; empty: none.
  std::span<const float> hadamard_signs;
  /// Where options.format.rule is fp32_given standing for a per-tensor rule
  /// (fp32_amax over the whole tensor, whose amax or amax history gave the
  /// scale): that rule. A per-tensor scale is the tensor's block scale, so an
  /// element it flushes counts as block_underflow where that rule's scale of
  /// the element alone would hold it, as num::quantize counts a block's
  /// flushes (num::count_flushes_as_block_underflow; libnum's quantize,
  /// seeing a given scale, counts every flush as underflow_to_zero).
  std::optional<num::scale_rule> given_scale_stands_for;
};

/// Called once per quantized operand (A, then B).
using quantized_observer = std::function<void(const quantized_operand&)>;

/// Working storage of scaled_gemm, reused from call to call (one per thread
/// that runs GEMMs at once) so its buffers are not allocated every time.
struct scaled_gemm_scratch {
  struct operand {
    std::vector<float> values, dequantized, stored;
    std::vector<std::uint32_t> scales;
  };
  operand a, b;
};

/// Where scaled_gemm finds and keeps the quantizations of A and B for the
/// GEMM's other parts (kept_operand.hpp); null: quantize every time.
struct operand_keepers {
  operand_keeper* a = nullptr;
  operand_keeper* b = nullptr;
};

/// C = op(A) * op(B) + beta * C on the quantized operands (see the file
/// comment): a as A's, b as B's quantization. `observe` may be empty; it
/// sees every operand, a kept one too, with this call's part and options.
void scaled_gemm(const gemm_args& g, tensor_role gemm_role, const operand_quantization& a,
                 const operand_quantization& b, const quantized_observer& observe, scaled_gemm_scratch& scratch,
                 const operand_keepers& keepers = {});

/// The operand op(A) (`is_a`) or op(B) of `g` in the layout above, rows x k, into `out`.
void reduction_rows(const gemm_args& g, bool is_a, std::vector<float>& out);

}  // namespace lab
