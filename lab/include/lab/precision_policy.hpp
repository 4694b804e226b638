// Precision policies: which format every tensor of a training run is rounded
// to, with which rounding, where partial sums are accumulated, and how the
// loss is scaled.
//
// A policy starts from a named preset (config key `precision`) and is
// refined by further keys (see precision_config_keys()):
//
//   fp32        ("32.32") nothing is rounded.
//   fp16, bf16  ("16.16") pure: every op class computes in the format, the
//               weights are stored in it, the optimizer's state and its
//               intermediates are rounded to it, and the write
//               w <- w + s * d is rounded to it.
//   fp16-mixed, bf16-mixed ("16.32"): PyTorch-AMP-style autocast: matmul and
//               conv compute in the format (their inputs and weights are cast
//               to it, their outputs rounded to it); norms and losses run in
//               fp32; elementwise ops follow their input; fp32 master weights
//               are updated in fp32 and cast for every forward.
//   fp8-current, fp8-delayed, fp8-blockwise, mxfp8, mxfp4, nvfp4: scaled-
//               format recipes (scaled_recipe.hpp): matmul and conv quantize
//               their GEMM operands into scaled formats (class `scaled`),
//               everything else stays fp32; fp32 master weights, fp32
//               partials. A layer kept in bf16 is `layers.<name>.precision: bf16`.
//
// "Computes in the format" means: the op's inputs are values of the format,
// its result is rounded to the format once per output element; inside, the
// op works in fp32 (exact for products of fp16/bf16 values) unless partials
// are set to the low format (see accumulation).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <libnum/format.hpp>
#include <libnum/philox.hpp>
#include <libnum/rounding.hpp>

#include "lab/op_context.hpp"
#include "lab/scaled_recipe.hpp"
#include "lab/torch_cpu_kernels.hpp"

namespace lab {

/// "matmul", "conv", ... (op_class is declared in op_context.hpp).
std::string_view op_class_name(op_class c);

/// How an op class computes.
enum class class_precision : std::uint8_t {
  fp32,    ///< inputs and outputs stay fp32
  low,     ///< the policy's low format
  follow,  ///< the precision of the op's input (the previous forward output)
  /// matmul and conv only: the GEMM operands are quantized by the policy's
  /// scaled_recipe; the op's inputs and outputs stay fp32.
  scaled,
};

/// Where matmul/conv partial sums are accumulated.
///
/// fp32 means: lab::sgemm (op_context.hpp) on operands that hold format
/// values. Their products are exact in fp32 (11 + 11 bits for fp16, 8 + 8
/// for bf16, both within fp32's 24), so every multiply-add is one fp32
/// rounding of an exact sum: the result is the exact products summed in
/// fp32, in the order of the GEMM kernel that runs (not p = 0 .. k-1; it
/// depends on the kernel and its blocking), starting from beta * C (dense
/// starts C at the bias). The
/// op's output is then rounded once into the format. Where every partial
/// sum is representable in fp32 the order does not matter and the output is
/// round(exact sum), which is how the tests pin it.
enum class accumulation : std::uint8_t {
  fp32,  ///< sgemm on the rounded operands (see above)
  low,   ///< in the op's format, rounding after every addition (see low_precision_gemm.hpp)
};

/// Loss scaling.
struct loss_scaling {
  enum class kind : std::uint8_t { none, fixed, dynamic };
  kind mode = kind::none;
  double scale = 1.0;             ///< the static factor, or the initial dynamic scale
  double growth_factor = 2.0;     ///< dynamic: scale *= growth after growth_interval clean updates
  double backoff_factor = 0.5;    ///< dynamic: scale *= backoff after an update with inf/NaN gradients
  std::size_t growth_interval = 2000;
  double min_scale = 0.0;         ///< dynamic: the scale never drops below this (MindSpore: 1)
  bool divide_lr = false;         ///< static: keep gradients scaled and divide the learning rate instead
  /// dynamic: count the growth window as MindSpore's DynamicLossScaleManager
  /// does (first growth after window - 1 steps) instead of GradScaler's way.
  bool mindspore_window = false;
};

/// Everything that decides how a run rounds. Value type; see the file comment.
struct precision_policy {
  std::string name = "fp32";          ///< the preset it started from
  num::format low = num::binary16;    ///< the low-precision format of the run
  bool master_weights = true;         ///< fp32 master weights (16.32); false: stored in the format (16.16)
  std::array<class_precision, op_class_count> classes{};  ///< by op_class
  /// Per-layer override by exact layer name: nullopt = fp32, else that format.
  std::map<std::string, std::optional<num::format>, std::less<>> layers;
  accumulation partials = accumulation::fp32;
  std::size_t partials_block = 0;     ///< low partials: 0 sequential, else chunk size
  /// Rounding of each tensor role (indexed by tensor_role); overflow
  /// behaviour and stochastic bits live in the round_spec.
  std::array<num::round_spec, tensor_role_count> rounding{};
  num::flags traps = num::flags::none;  ///< overflow | divide_by_zero | invalid stop the run
  loss_scaling scaling;
  bool shadow = false;                ///< run an fp32 shadow model and report per-layer errors
  std::uint64_t seed = 0;             ///< key of the stochastic-rounding streams (0: the run's seed)
  /// Where stochastic rounding of tensors takes its random bits: one
  /// Philox4x32-10 word per element (the default, results as recorded
  /// before), or a 16-bit half-word per element (half the generator's work;
  /// needs rounding_bits <= 16). Low-partials sums keep full words.
  num::random_draws draws = num::random_draws::full_word;
  /// How ops of class `scaled` quantize their GEMM operands (element
  /// rounding: rounding[activation], rounding[weight], rounding[grad_input]).
  scaled_recipe scaled;
  /// PyTorch 1.13's CPU bf16 kernels to match bit for bit (torch_cpu_kernels.hpp):
  /// when set, the optimizer's add-with-alpha operations on tensors held in
  /// bf16 (the decay term, Adam's m, Nesterov's direction, SGD's write to
  /// weights stored in bf16) round the product to bf16 before the sum in the
  /// elements PyTorch's scalar loop computes, as its BFloat16 operators do,
  /// and fuse it elsewhere. Round to nearest even only (PyTorch's own); under
  /// stochastic rounding the exact result is rounded once as before. nullopt
  /// (the default): every element as the vectorised body.
  std::optional<torch_cpu_kernels> torch_bf16;

  /// True when nothing is ever rounded (every class fp32, no layer override).
  [[nodiscard]] bool is_fp32() const;
  /// How op class c computes.
  [[nodiscard]] class_precision of(op_class c) const { return classes[static_cast<std::size_t>(c)]; }
  /// The rounding of a role.
  [[nodiscard]] const num::round_spec& spec(tensor_role r) const { return rounding[static_cast<std::size_t>(r)]; }
};

/// A preset by name: fp32, fp16, bf16, fp16-mixed, bf16-mixed, the
/// Graphcore names 32.32, 16.16 (fp16), 16.32 (fp16-mixed), or a scaled
/// recipe (fp8-current, fp8-delayed, fp8-blockwise, mxfp8, mxfp4, nvfp4).
/// Throws input_error naming the known presets.
precision_policy precision_preset(std::string_view name);

/// The policy part of a training configuration: the preset plus refinements,
/// each key once (a key set again replaces its value). Refinements are
/// checked when set (so an error names its key and file) and applied on top
/// of the preset by resolve() in one pass: loss_scaling (whose kind sets the
/// scale, interval and minimum defaults) first, then the other general keys,
/// then per-role, per-class and per-layer ones. An explicit key therefore
/// always wins over a preset's default, and the order the keys came in (file
/// or command line) does not matter.
struct precision_config {
  std::string preset = "fp32";
  std::map<std::string, std::string, std::less<>> refinements;  ///< key -> value

  /// The resolved policy.
  [[nodiscard]] precision_policy resolve() const;
};

/// True for the keys precision_config handles: precision, precision_format,
/// master_weights, partials, partials_block, rounding, rounding_bits,
/// rounding.<role>, overflow, traps, autocast.<class>, layers.<name>.precision,
/// loss_scaling, loss_scale, loss_scale_growth, loss_scale_backoff,
/// loss_scale_interval, loss_scale_min, loss_scale_method, shadow, precision_seed, rounding_draws, torch_bf16_kernels,
/// scaled.activation, scaled.weight, scaled.gradient, scaled.scaling,
/// scaled.amax_history_len, scaled.amax_compute_algo, scaled.margin, scaled.hadamard.
bool is_precision_key(std::string_view key);
/// Sets one key; `where` names the source for messages. Throws input_error.
void set_precision_value(precision_config& config, const std::string& key, const std::string& value,
                         const std::string& where);
/// The documented keys with one-line help (per-layer keys shown as a pattern).
std::vector<std::pair<std::string, std::string>> precision_config_keys();
/// The configuration as YAML lines "key: value".
std::string precision_yaml(const precision_config& config);

/// Human-readable one-line description ("fp16-mixed: matmul/conv fp16, ...").
std::string describe(const precision_policy& policy);

}  // namespace lab
