// Scaled-format recipes: how the matmul/conv ops of a precision policy whose
// class is `scaled` quantize the operands of each of their GEMMs.
//
// Every GEMM C = op(A) * op(B) of dense and conv2d (forward, the input
// gradient "dgrad" and the weight gradient "wgrad") names what each operand
// is: an activation (the op's input), the weight, or a gradient (the op's
// output gradient). The recipe gives each of the three its scaled format
// (libnum's num::scaled_format: element format, block shape, scale rule) and
// quantizes it with blocks taken along the GEMM's reduction dimension, as the
// MX GEMM definition (OCP MX v1.0 §6.2, dot products of two blocks) requires.
// A tensor that two GEMMs reduce along different axes (the weight in forward
// and dgrad, the input in forward and wgrad, the output gradient in dgrad and
// wgrad) is therefore quantized once per GEMM, each time along that GEMM's
// reduction dimension; a 2-D block (16x16, 128x128) holds the same elements
// in both orientations. The GEMM then runs in fp32 (lab::sgemm) on the
// dequantized operands: each element times its scale(s), rounded once to
// fp32 (num::quantize_dequantize), fp32 partial sums. The op's inputs, outputs and
// master weights stay fp32.
//
// Per-tensor formats (block whole_tensor_block) take their amax from the
// whole tensor, even where conv2d splits its batch into several GEMMs:
//   current scaling: the amax of the tensor now (TransformerEngine's
//                    Float8CurrentScaling);
//   delayed scaling: the amax history of the tensor over the previous steps
//                    (TransformerEngine's DelayedScaling, see tensor_scaling).
// NVFP4's second-level fp32 scale is likewise the whole tensor's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <libnum/scaled_format.hpp>
#include <libnum/scaled_tensor_scale.hpp>

#include "lab/op_context.hpp"

namespace lab {

/// What a GEMM operand is to the op.
enum class gemm_operand : std::uint8_t {
  activation,  ///< the op's forward input (forward and wgrad GEMMs)
  weight,      ///< the op's kernel (forward and dgrad GEMMs)
  gradient,    ///< the op's output gradient (dgrad and wgrad GEMMs)
};
inline constexpr std::size_t gemm_operand_count = 3;

/// "activation", "weight", "gradient" (the `scaled.<operand>` keys).
std::string_view gemm_operand_name(gemm_operand o);
/// The operand kind of a tensor role as gemm_args names operands
/// (activation, weight, grad_input); nullopt for other roles.
std::optional<gemm_operand> gemm_operand_of(tensor_role role);
/// The tensor role whose rounding (precision_policy::rounding) the operand's
/// elements take: activation, weight, grad_input.
tensor_role rounding_role_of(gemm_operand o);

/// Where a per-tensor fp32 scale (rule fp32_amax over whole_tensor_block)
/// comes from.
enum class tensor_scaling : std::uint8_t {
  /// From the tensor's own amax, now (TransformerEngine Float8CurrentScaling).
  current,
  /// TransformerEngine DelayedScaling (docs.nvidia.com/deeplearning/
  /// transformer-engine/api/common.html, "Use scale factor from previous
  /// iteration and record amax history of amax_history_len steps"): the
  /// scale of a step comes from the amax history of the steps before it,
  /// reduced by max or most_recent; the step's own amax joins the history
  /// when the step ends (precision_hook::end_step). An empty history gives
  /// scale 1 (TE's initial scale); a reduced amax that is 0 keeps the
  /// previous scale, as TE's _default_sf_compute (transformer_engine/pytorch/
  /// fp8.py) keeps it where amax is not > 0 or not finite. A non-finite amax
  /// is not recorded (libnum's history holds finite amaxes only), which keeps
  /// the scale too.
  delayed,
};

/// A recipe: the scaled format of each operand kind and how per-tensor
/// scales are found. Value type.
struct scaled_recipe {
  /// By gemm_operand. Default: MXFP8 everywhere.
  std::array<num::scaled_format, gemm_operand_count> formats{
      num::scaled_format{}, num::scaled_format{}, num::scaled_format{}};
  tensor_scaling scaling = tensor_scaling::current;
  /// Delayed scaling (TE DelayedScaling defaults: 1024, "max", margin 0).
  std::size_t amax_history_len = 1024;
  num::amax_reduction amax_compute_algo = num::amax_reduction::max;
  /// fp32_amax rules: the decode scale is amax · 2^margin / max_elem.
  int margin = 0;
  /// A 16x16 random Hadamard transform on both inputs of the wgrad GEMM,
  /// along its reduction dimension (NVFP4 pretraining recipe).
  bool hadamard = false;

  [[nodiscard]] const num::scaled_format& format(gemm_operand o) const {
    return formats[static_cast<std::size_t>(o)];
  }
  /// Whether operand o's format has one fp32 scale for the whole tensor that
  /// delayed scaling replaces (fp32_amax over whole_tensor_block).
  [[nodiscard]] bool per_tensor(gemm_operand o) const;
};

/// The recipe presets, by the `precision` name that selects them:
///   fp8-current   E4M3 activations and weights, E5M2 gradients (TE's HYBRID),
///                 one fp32 scale per tensor from its current amax;
///   fp8-delayed   the same formats, scales from a 1024-step amax history (max);
///   fp8-blockwise E4M3, fp32 scales per 1x128 activation and gradient tile and
///                 per 128x128 weight block (DeepSeek-V3, TE Float8BlockScaling);
///   mxfp8         MXFP8 (E4M3, E8M0 scale per 32) for every operand
///                 (TE MXFP8BlockScaling's default E4M3);
///   mxfp4         MXFP4 (E2M1, E8M0 per 32); gradients rounded stochastically,
///                 Hadamard transform on the wgrad inputs;
///   nvfp4         NVFP4 (E2M1, E4M3 per 16, fp32 tensor scale), weights in
///                 16x16 2-D blocks, gradients rounded stochastically, Hadamard
///                 transform on the wgrad inputs (TE NVFP4BlockScaling, NVIDIA's
///                 NVFP4 pretraining paper). The stochastic rounding of gradients
///                 is the policy's rounding.grad_input, set by the preset.
/// nullopt for another name.
std::optional<scaled_recipe> scaled_recipe_preset(std::string_view name);
/// Whether gradients of the preset round stochastically (mxfp4, nvfp4).
bool scaled_preset_rounds_gradients_stochastically(std::string_view name);

/// One line: "activation e4m3/fp32-amax/tensor, weight ..., gradient ...;
/// delayed scaling (history 1024, max, margin 0); Hadamard on wgrad".
std::string describe(const scaled_recipe& recipe);

}  // namespace lab
