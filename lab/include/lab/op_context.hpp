// The one place every tensor of the trainer passes through.
//
// Each op (dense, conv2d, relu, pooling, batch norm, residual add, flatten,
// dropout, the losses) and the optimizer update hand their tensors to the
// op_context they are given, naming the *site* (layer, op, tensor) and the
// *role* of the tensor:
//
//   ctx.produce(site, role, values)   every activation an op writes (role
//                                     activation), every gradient it writes
//                                     (grad_input for dL/d(input), grad_weight
//                                     for dL/d(parameter)), after it is complete.
//                                     A precision policy rounds `values` in
//                                     place; a tracer takes statistics.
//   ctx.produce_from(site, values, {inputs...})
//                                     the same for an elementwise op's forward
//                                     output, naming the tensors it came from
//                                     (a "follow" op takes their widest format).
//   ctx.weight(site, master)          the parameter values an op computes with.
//                                     fp32 returns `master` itself; a mixed
//                                     policy returns a rounded working copy that
//                                     it owns (role weight) while the optimizer
//                                     keeps updating the fp32 master.
//   ctx.update(site, weight, step)    the optimizer's write w <- w + s * d
//                                     (role update; step = {d, s, keep}),
//                                     PyTorch's param.add_(d, alpha=s): product
//                                     and sum rounded once (after AdamW's
//                                     w <- w * keep). A policy rounds the sum to
//                                     its storage format (nearest or stochastic);
//                                     a tracer sees w before, the delta s * d
//                                     and w after (swamping detection).
//                                     Afterwards the optimizer reports the new
//                                     weight with produce(site, master_weight, weight).
//   ctx.add_scaled(site, role, a, s, b, out)
//                                     an optimizer's out <- a + s * b (PyTorch's
//                                     a.add(b, alpha=s)) before the rounding
//                                     into the role's format, which produce()
//                                     then does: fused in float, except where a
//                                     policy emulating PyTorch's bf16 scalar
//                                     loop rounds the product first.
//   ctx.scalar(site, role, x)         a hyper-parameter x (a Python double in
//                                     PyTorch) as an elementwise op combines it
//                                     with the tensor of that role: PyTorch casts
//                                     it to the tensor's dtype, so a policy that
//                                     holds the tensor in bf16 rounds x to bf16.
//   ctx.operand(site, role, values)   an input a matmul/conv computes with
//                                     (its forward input, its output gradient):
//                                     the values themselves, or a copy the hook
//                                     rounded to the op's compute format.
//   ctx.weight_again(site, master), ctx.operand_again(site, role, values)
//                                     the same in an op's backward, for the
//                                     tensor its latest forward passed,
//                                     unchanged since: a policy hands back the
//                                     copy it rounded then (bit for bit what a
//                                     new rounding gives, tallied again) where
//                                     it still holds it, else rounds anew.
//   ctx.gemm(site, role, g)           the matrix products of dense and conv:
//                                     lab::sgemm, or a gemm_engine that
//                                     accumulates in a low-precision format.
//
// In plain fp32 no hook is installed and all of this does nothing beyond the
// fused multiply-add in update() and the conversion to float in scalar(). A precision policy (precision_hook.hpp) and a
// tracer (run_tracer.hpp) are tensor_hooks. Because the hook is called once
// per tensor, never per element, a virtual call costs nothing measurable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>

namespace lab {

/// What a tensor is to the op that handles it.
enum class tensor_role {
  activation,     ///< an op's forward output (including logits and the loss)
  grad_input,     ///< dL/d(input) written by an op's backward
  grad_weight,    ///< dL/d(parameter) accumulated by an op's backward
  weight,         ///< the parameter values an op computes with
  master_weight,  ///< the stored parameter after an optimizer update
  update,         ///< the optimizer's step delta applied to a weight
  optimizer_state,  ///< optimizer state and intermediates (momentum, Adam m, v, denominator); stays last
};

/// The number of roles: tensor_role values are 0 .. tensor_role_count - 1.
inline constexpr std::size_t tensor_role_count = static_cast<std::size_t>(tensor_role::optimizer_state) + 1;

/// Lower-case name of a role ("grad_weight"), for traces, messages and the
/// `rounding.<role>` config keys.
std::string_view role_name(tensor_role role);
/// The role role_name() names `name`, or nullopt.
std::optional<tensor_role> role_from_name(std::string_view name);

/// Groups of ops that autocast treats alike; each layer names its own
/// (layer::op_class), and a precision policy decides per class.
enum class op_class : std::uint8_t {
  matmul,       ///< dense
  conv,         ///< conv2d
  norm,         ///< batch_norm (statistics in double inside, or rounded as lab::norm_statistics says)
  loss,         ///< softmax_cross_entropy, mse
  elementwise,  ///< relu, pooling, flatten, dropout, residual_add
  optimizer,    ///< the optimizer's state and intermediates (adam, sgd); stays last
};
/// The number of op classes: op_class values are 0 .. op_class_count - 1.
inline constexpr std::size_t op_class_count = static_cast<std::size_t>(op_class::optimizer) + 1;

/// Where a tensor is produced: the layer's unique name ("conv2",
/// "stage1.block0.conv_a"), the op kind ("conv2d", a label for traces and
/// messages), the op's class (what a precision policy decides by) and which
/// of its tensors ("output", "grad_input", "kernel", "bias", "gamma", ...).
struct site {
  std::string_view layer;
  std::string_view op;
  lab::op_class op_class;
  std::string_view tensor;
};

/// Which PyTorch operation a weight_step stands for. They agree in float
/// and in PyTorch's vectorised bf16 body; in its bf16 scalar loop add_
/// rounds the product scale * direction to bf16 before the sum, addcdiv_
/// does not (torch_cpu_kernels.hpp).
enum class step_kernel : std::uint8_t {
  add,      ///< param.add_(direction, alpha=scale) (SGD)
  addcdiv,  ///< param.addcdiv_(m, denominator, value) with its quotient as direction, scale 1 (Adam)
};

/// The optimizer's write to one weight tensor:
///   w[i] <- w[i] * keep, rounded into the weight's format (AdamW's
///           param.mul_(1 - lr * weight_decay); keep = 1 leaves w as it is), then
///   w[i] <- w[i] + scale * direction[i], as PyTorch 1.13's
///           param.add_(direction, alpha=scale) computes it on the CPU: a
///           fused multiply-add, the product and the sum rounded once (its
///           vectorised kernel calls fmadd).
/// Adam passes its finished step with scale 1 and kernel addcdiv.
struct weight_step {
  std::span<const float> direction;
  float scale = 1.0f;
  float keep = 1.0f;
  step_kernel kernel = step_kernel::add;
};

/// weight[i] <- fma(step.scale, step.direction[i], weight[i] * step.keep) in
/// fp32, each operation rounded to nearest even (IEEE 754 multiplication and
/// fusedMultiplyAdd): the write of an fp32 weight, wherever a hook (or no
/// hook) keeps the weight in fp32.
void apply_step_fp32(std::span<float> weight, const weight_step& step);
/// weight[i] <- weight[i] * keep in fp32, rounded to nearest even: the
/// decoupled decay that opens a weight_step (apply_step_fp32's first
/// operation). What an update's observers see as "before" is the weight
/// after this decay (tensor_hook::observe_update).
void apply_decay_fp32(std::span<float> weight, float keep);
/// out[i] <- fma(s, b[i], a[i]) in fp32, rounded to nearest even (IEEE 754
/// fusedMultiplyAdd): PyTorch 1.13's a.add(b, alpha=s) on fp32 tensors, and
/// on bf16 ones in its vectorised body before the rounding to bf16. `out`
/// may alias `a` or `b`; all three have a's size.
void add_scaled_fp32(std::span<const float> a, float s, std::span<const float> b, std::span<float> out);
/// delta[i] <- step.scale * step.direction[i] rounded to fp32: the delta a
/// step asks for, as observers of updates see it (tensor_hook::observe_update).
void requested_delta(const weight_step& step, std::span<float> delta);

struct quantized_operand;  // scaled_gemm.hpp
/// The values a tensor held before a precision policy rounded them into its
/// format. The policy hands them to the hook chained after it in the same
/// call as the rounded values, so a tracer can take the statistics of what
/// the rounding flushed to zero or overflowed; nullopt where nothing rounded
/// the tensor (every call an op makes, and a policy's fp32 tensors).
using unrounded_values = std::optional<std::span<const float>>;

/// What a precision policy or tracer implements; see the file comment.
/// `unrounded` is as described at unrounded_values; a hook that passes calls
/// on hands it on unchanged.
class tensor_hook {
 public:
  virtual ~tensor_hook() = default;
  /// Sees (and may round in place) a tensor an op has just produced.
  virtual void produce(const site& where, tensor_role role, std::span<float> values, unrounded_values unrounded) = 0;
  /// Returns the values an op must compute with for a parameter whose fp32
  /// master copy is `master` (or, chained after a policy, the policy's
  /// rounded working copy): `master` itself or a span the hook owns, valid
  /// until the next call for the same site.
  virtual std::span<const float> weight(const site& where, std::span<const float> master,
                                        unrounded_values unrounded) = 0;
  /// Sees (and may round in place) the forward output of an elementwise op
  /// (ReLU, pooling, flatten, dropout, residual add) computed from `inputs`:
  /// a precision policy holds a "follow" op's output in the widest of its
  /// inputs' formats, as autocast promotes. Default: produce() as an activation.
  virtual void produce_from(const site& where, std::span<float> values,
                            std::span<const std::span<const float>> /*inputs*/) {
    produce(where, tensor_role::activation, values, std::nullopt);
  }
  /// Performs weight[i] <- weight[i] + step.scale * step.direction[i] for
  /// all i, in whatever arithmetic the policy prescribes, observing before
  /// and after.
  virtual void update(const site& where, std::span<float> weight, const weight_step& step) = 0;
  /// The hyper-parameter `value` as an op at `where` combines it with a
  /// tensor of `role`: PyTorch casts a Python scalar to the tensor's dtype
  /// (round to nearest even). Default: fp32.
  virtual float scalar(const site& /*where*/, tensor_role /*role*/, double value) {
    return static_cast<float>(value);
  }
  /// Returns the values a matmul/conv computes with for an input tensor
  /// (role activation: its forward input; grad_input: its output gradient):
  /// `values` itself or a span the hook owns, valid until the next call for
  /// the same site and role. The default hands `values` through unchanged.
  virtual std::span<const float> operand(const site& /*where*/, tensor_role /*role*/, std::span<const float> values,
                                         unrounded_values /*unrounded*/) {
    return values;
  }
  /// weight() for an op's backward: `master` holds, unchanged, the values
  /// the op's latest forward passed to weight() for this site (the caller
  /// vouches for that). A hook may hand back what it returned then instead
  /// of computing it again; it must be what weight() would return now.
  /// Default: weight().
  virtual std::span<const float> weight_again(const site& where, std::span<const float> master) {
    return weight(where, master, std::nullopt);
  }
  /// operand() for an op's backward, on the same terms as weight_again():
  /// `values` is the tensor, unchanged, that the op's latest forward passed
  /// to operand() for this site and role. Default: operand().
  virtual std::span<const float> operand_again(const site& where, tensor_role role, std::span<const float> values) {
    return operand(where, role, values, std::nullopt);
  }
  /// out[i] <- a[i] + s * b[i] for an optimizer's elementwise op at `where`
  /// whose result is a tensor of `role` (PyTorch's a.add(b, alpha=s)), before
  /// the rounding into that role's format, which the caller's produce() does.
  /// Default: add_scaled_fp32 (fused). Spans as there.
  virtual void add_scaled(const site& /*where*/, tensor_role /*role*/, std::span<const float> a, float s,
                          std::span<const float> b, std::span<float> out) {
    add_scaled_fp32(a, s, b, out);
  }
  /// Observes an update another hook has already performed (a precision
  /// policy calls this on the hook chained after it instead of update()):
  /// the stored values before and after, and the delta asked for (the
  /// step's scale * direction, rounded to fp32). "before" is the weight the
  /// add starts from: after AdamW's decay (w * keep, stored), so that a
  /// delta that left it unchanged counts as swamped whatever the decay did.
  /// Every hook that performs an update reports it so. Default: nothing.
  virtual void observe_update(const site& /*where*/, std::span<const float> /*before*/,
                              std::span<const float> /*delta*/, std::span<const float> /*after*/) {}
  /// Whether observe_update() of `where` at this step would use what it is
  /// given: a hook that performs an update keeps the old weights and works
  /// out the delta only where this says so. Default: true.
  virtual bool observes_update(const site& /*where*/) { return true; }
  /// Sees one GEMM operand a scaled recipe has just quantized, at the GEMM's
  /// site (called by a precision policy on the hook chained after it, one
  /// call at a time even while conv2d's workers run). Default: nothing.
  virtual void observe_quantized(const site& /*where*/, const quantized_operand& /*operand*/) {}
};

/// One matrix product C = op(A) * op(B) + beta * C of row-major matrices
/// (op = transpose where asked; alpha is always 1): C is m x n, op(A) m x k,
/// op(B) k x n; lda, ldb, ldc are row strides in elements.
struct gemm_args {
  bool trans_a = false, trans_b = false;
  std::size_t m = 0, n = 0, k = 0;
  const float* a = nullptr;
  std::size_t lda = 0;
  const float* b = nullptr;
  std::size_t ldb = 0;
  float beta = 0.0f;
  float* c = nullptr;
  std::size_t ldc = 0;
  /// What op(A) and op(B) are to the op: activation (its input), weight or
  /// grad_input (its output gradient). A scaled recipe picks each operand's
  /// format by it (scaled_recipe.hpp).
  tensor_role a_role = tensor_role::activation, b_role = tensor_role::weight;
  /// Which of an op's GEMMs of one pass this is (conv2d's image chunks, from
  /// 0): keeps the random streams of their stochastic roundings apart.
  std::size_t part = 0;
};

/// C = op(A) * op(B) + beta * C in fp32: AVX-512 kernels where the CPU has
/// them (summation orders in lab/src/sgemm_avx512.hpp), OpenBLAS sgemm otherwise.
void sgemm(const gemm_args& g);

/// Computes the matrix products of dense and conv ops for a site; a
/// precision policy installs one to accumulate in a low-precision format.
/// Must be callable from several threads at once (conv2d's workers).
class gemm_engine {
 public:
  virtual ~gemm_engine() = default;
  /// C = op(A) * op(B) + beta * C for the op at `where`; C becomes a tensor
  /// of `role` (activation, grad_input or grad_weight).
  virtual void gemm(const site& where, tensor_role role, const gemm_args& g) const = 0;
};

/// Per-call context handed to every op's forward and backward and to the
/// optimizer. Cheap to copy; it does not own the hook.
class op_context {
 public:
  /// A context with no hook: plain fp32.
  op_context() = default;
  /// A context that routes every tensor through `hook` (may be null).
  explicit op_context(tensor_hook* hook) : hook_(hook) {}
  /// A context with a hook and a GEMM engine (either may be null).
  op_context(tensor_hook* hook, const gemm_engine* engine) : hook_(hook), gemm_(engine) {}

  /// Hands a freshly produced tensor to the hook (no-op without one).
  void produce(const site& where, tensor_role role, std::span<float> values) const {
    if (hook_ != nullptr) hook_->produce(where, role, values, std::nullopt);
  }
  /// Hands an elementwise op's forward output and the tensors it was
  /// computed from to the hook (see tensor_hook::produce_from).
  void produce_from(const site& where, std::span<float> values,
                    std::initializer_list<std::span<const float>> inputs) const {
    if (hook_ != nullptr) hook_->produce_from(where, values, {inputs.begin(), inputs.size()});
  }
  /// The values to compute with for the parameter `master` (role weight).
  [[nodiscard]] std::span<const float> weight(const site& where, std::span<const float> master) const {
    return hook_ != nullptr ? hook_->weight(where, master, std::nullopt) : master;
  }
  /// weight <- weight + step.scale * step.direction through the hook (role
  /// update); apply_step_fp32 without one. Spans must have equal size.
  void update(const site& where, std::span<float> weight, const weight_step& step) const;
  /// out <- a + s * b before rounding into `role`'s format (see
  /// tensor_hook::add_scaled); add_scaled_fp32 without a hook. Spans must
  /// have equal size.
  void add_scaled(const site& where, tensor_role role, std::span<const float> a, float s, std::span<const float> b,
                  std::span<float> out) const;
  /// A hyper-parameter as the op at `where` combines it with a tensor of
  /// `role` (see tensor_hook::scalar); float(value) without a hook.
  [[nodiscard]] float scalar(const site& where, tensor_role role, double value) const {
    return hook_ != nullptr ? hook_->scalar(where, role, value) : static_cast<float>(value);
  }
  /// The values a matmul/conv computes with for an input (see tensor_hook::operand).
  [[nodiscard]] std::span<const float> operand(const site& where, tensor_role role,
                                               std::span<const float> values) const {
    return hook_ != nullptr ? hook_->operand(where, role, values, std::nullopt) : values;
  }
  /// weight() in an op's backward, for the parameter its latest forward
  /// asked for and that has not changed since (see tensor_hook::weight_again).
  [[nodiscard]] std::span<const float> weight_again(const site& where, std::span<const float> master) const {
    return hook_ != nullptr ? hook_->weight_again(where, master) : master;
  }
  /// operand() in an op's backward, for the input its latest forward passed
  /// and that has not changed since (see tensor_hook::operand_again).
  [[nodiscard]] std::span<const float> operand_again(const site& where, tensor_role role,
                                                     std::span<const float> values) const {
    return hook_ != nullptr ? hook_->operand_again(where, role, values) : values;
  }
  /// C = op(A) * op(B) + beta * C through the engine, or sgemm without one;
  /// C becomes a tensor of `role`.
  void gemm(const site& where, tensor_role role, const gemm_args& g) const {
    if (gemm_ != nullptr)
      gemm_->gemm(where, role, g);
    else
      sgemm(g);
  }
  /// The installed hook (null in plain fp32), so a trainer can chain hooks.
  [[nodiscard]] tensor_hook* hook() const { return hook_; }

  /// True while training: batch norm uses batch statistics and updates its
  /// running ones, dropout drops. False for evaluation.
  bool training = true;
  /// Seed and step counter from which stochastic ops (dropout) derive their
  /// random streams, so a run is reproducible and resumable.
  std::uint64_t seed = 0;
  std::uint64_t step = 0;
  /// Worker threads an op may use by splitting its batch (conv2d). Each
  /// worker always gets the same share, so results depend on this number but
  /// never on timing.
  std::size_t threads = 1;

 private:
  tensor_hook* hook_ = nullptr;
  const gemm_engine* gemm_ = nullptr;
};

}  // namespace lab
