// The tensor_hook that applies a precision_policy: it rounds every tensor an
// op produces, casts weights and matmul/conv inputs, performs the
// optimizer's write w <- w * keep + s * d in the storage format (as PyTorch's
// bf16/fp16 kernels compute it; see update() in precision_hook.cpp), casts
// the optimizer's hyper-parameters to the format of the tensor they meet
// (scalar()), supplies the GEMM engine for low-precision partials, counts
// what rounding did, and raises traps.
//
// All rounding goes through libnum's array kernels. Stochastic rounding of a
// tensor uses random_stream(seed, stream) with stream derived from the step
// (begin_step), the site (layer, tensor) and the role, and element i takes
// word i: two runs with one seed are bit-identical.
//
// Ops of class `scaled` (scaled_recipe.hpp) compute with fp32 inputs and
// outputs; their GEMMs quantize both operands (scaled_gemm.hpp) and show each
// quantized operand to the next hook (observe_quantized). operand() notes the
// whole tensor's amax for per-tensor scales; delayed scaling's histories
// advance in end_step().
//
// Chaining: a hook passed as `next` sees every call after the policy has
// rounded the values (produce), with the rounded copies (weight, operand)
// and after the rounded update, so it sees what the low-precision machine
// actually holds (the shadow comparison uses that). Where the policy rounded
// a tensor, the same call carries the values from before the rounding
// (unrounded_values): a tracer's statistics then count what the rounding
// flushed to zero or overflowed. A trap raised by a rounding is thrown after
// that call, so a tracer records the tensor that trapped.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <libnum/array.hpp>

#include "lab/hadamard.hpp"
#include "lab/layer.hpp"
#include "lab/low_precision_gemm.hpp"
#include "lab/op_context.hpp"
#include "lab/precision_policy.hpp"
#include "lab/scaled_gemm.hpp"

namespace lab {

/// A trapped floating-point exception: the first overflow, divide-by-zero or
/// invalid result (as enabled by policy.traps) stops the run with this.
class precision_trap : public std::runtime_error {
 public:
  /// One offending element: its index, the value before rounding and after.
  struct offending {
    std::size_t index;
    float before, after;
  };
  precision_trap(num::flags kind, const site& where, tensor_role role, std::uint64_t step,
                 std::vector<offending> values);

  num::flags kind;                  ///< overflow, divide_by_zero or invalid
  std::string layer, op, tensor;    ///< where
  tensor_role role;
  std::uint64_t step;               ///< the step (begin_step) it happened in
  std::vector<offending> values;    ///< up to 8 offending elements
};

/// The first tensor of a run that held a NaN (or an infinity): where, when,
/// and how many of its values. Located while rounding, without stopping.
struct non_finite_origin {
  std::string layer, op, tensor;
  tensor_role role = tensor_role::activation;
  std::uint64_t step = 0;     ///< the step (begin_step) it happened in
  std::size_t index = 0;      ///< the first offending element
  std::size_t count = 0;      ///< offending elements in the tensor
  std::size_t size = 0;       ///< elements in the tensor
  /// "layer conv1 (conv2d) tensor kernel [grad_weight] at step 1: 3 of 150 values"
  [[nodiscard]] std::string describe() const;
};

/// What the optimizer's updates did to the stored weights.
struct update_tally {
  std::uint64_t elements = 0;       ///< weight elements updated
  std::uint64_t nonzero_delta = 0;  ///< elements with delta != 0
  std::uint64_t unchanged = 0;      ///< elements whose stored value did not change
  std::uint64_t swamped = 0;        ///< delta != 0 but the stored value did not change
  /// sum of |delta| asked for, and sum of (after - before) * sign(delta)
  /// actually applied: applied / requested is 1 for exact updates, below 1
  /// where rounding swallows updates, and about 1 for unbiased stochastic
  /// rounding (in double). Each update's sums are taken in eight lanes
  /// (element i in lane i mod 8, the lanes added pairwise; see
  /// lab/src/fused_loops.hpp, update_pass) and then added to these in the
  /// order of the updates. Until session 12 one running sum took every
  /// element in order; the two orders can differ in the last bits.
  double requested = 0.0, applied = 0.0;
};

/// What rounding did since the last reset, by tensor role (conversion
/// counts only while counting is on, see precision_hook::set_counting).
struct precision_tally {
  std::array<num::conversion_counts, tensor_role_count> by_role{};  ///< indexed by tensor_role
  std::array<std::uint64_t, tensor_role_count> elements{};          ///< elements rounded, by role
  update_tally updates;
  /// What a scaled recipe's quantizations did, by gemm_operand (num::quantize's
  /// counts, summed over every GEMM operand quantized; always kept).
  std::array<num::scaled_counts, gemm_operand_count> scaled{};
};

/// Applies a precision_policy to every tensor of a run (see file comment).
class precision_hook : public tensor_hook {
 public:
  /// `run_seed` keys the stochastic streams when policy.seed is 0; `next`
  /// (may be null, not owned) is called after this hook's rounding;
  /// `threads` is handed to libnum's array kernels for long tensors.
  precision_hook(precision_policy policy, std::uint64_t run_seed, tensor_hook* next = nullptr, unsigned threads = 1);

  /// The policy is the first hook of a chain: `unrounded` (always nullopt
  /// from an op) is not looked at by these.
  void produce(const site& where, tensor_role role, std::span<float> values, unrounded_values unrounded) override;
  void produce_from(const site& where, std::span<float> values,
                    std::span<const std::span<const float>> inputs) override;
  std::span<const float> weight(const site& where, std::span<const float> master,
                                unrounded_values unrounded) override;
  void update(const site& where, std::span<float> weight, const weight_step& step) override;
  float scalar(const site& where, tensor_role role, double value) override;
  /// Fused in float, or torch_bf16_add where policy.torch_bf16 is set, the
  /// role's format at `where` is bf16 and its rounding nearest even.
  void add_scaled(const site& where, tensor_role role, std::span<const float> a, float s, std::span<const float> b,
                  std::span<float> out) override;
  std::span<const float> operand(const site& where, tensor_role role, std::span<const float> values,
                                 unrounded_values unrounded) override;
  /// weight() and operand() in an op's backward: the copy rounded in the
  /// op's forward, where this hook still holds it for the same tensor (same
  /// site and role, same data, same step, no update since), with its counts
  /// and non-finite check replayed into tally() and the locator, so that
  /// every result and tally is as a new rounding would make it (the
  /// stochastic streams depend only on step, site and role). Otherwise they
  /// round anew. The next hook sees the same call as from weight()/operand().
  std::span<const float> weight_again(const site& where, std::span<const float> master) override;
  std::span<const float> operand_again(const site& where, tensor_role role, std::span<const float> values) override;

  /// An op_context routing tensors through this hook and GEMMs through its engine.
  [[nodiscard]] op_context context();
  /// The GEMM engine: sgemm, or low-format partials for low-precision sites.
  [[nodiscard]] const gemm_engine* engine() const { return &engine_; }
  /// Sets the step from which stochastic streams are derived (call before
  /// each forward/backward and before each optimizer update). Forgets the
  /// amaxes delayed scaling saw since the last end_step() (an evaluation's).
  void begin_step(std::uint64_t step);
  /// Ends a training step's forward and backward: every amax delayed scaling
  /// saw since begin_step() joins its tensor's history, and the tensor's
  /// scale for the next step is recomputed (TE DelayedScaling, see
  /// tensor_scaling::delayed). Nothing to do for other policies.
  void end_step();
  /// Rounds parameters stored in the format (pure policies) once, e.g. after
  /// initialisation; reported to `next` as role master_weight.
  void store_parameters(const std::vector<parameter*>& params);

  /// The format a tensor of `role` at `where` is held in, or nullopt for
  /// fp32. A follow-class op takes the widest format of the inputs its
  /// latest forward named (produce_from); fp32 where it named none.
  [[nodiscard]] std::optional<num::format> format_of(const site& where, tensor_role role) const;
  /// Whether parameters of `where` are stored in the format (no fp32 master).
  [[nodiscard]] bool stored_in_format(const site& where) const;

  [[nodiscard]] const precision_policy& policy() const { return policy_; }
  [[nodiscard]] const precision_tally& tally() const { return tally_; }
  void reset_tally() { tally_ = {}; }
  /// Whether rounding gathers libnum's conversion counts into tally()
  /// (underflows, overflows, ...). Off by default: counting rules out the
  /// F16C/AVX-512 conversion shortcuts, which is most of the policy's cost.
  /// Traps count regardless. Update tallies are always kept.
  void set_counting(bool on) { counting_ = on; }
  /// The first tensor that held a NaN, and the first that held an infinity
  /// (an overflow of the format included), as every tensor passes this hook
  /// after rounding; nullopt while none has.
  [[nodiscard]] const std::optional<non_finite_origin>& first_nan() const { return first_nan_; }
  [[nodiscard]] const std::optional<non_finite_origin>& first_infinity() const { return first_infinity_; }
  [[nodiscard]] std::uint64_t step() const { return step_; }

 private:
  class policy_engine : public gemm_engine {
   public:
    explicit policy_engine(const precision_hook& owner) : owner_(owner) {}
    void gemm(const site& where, tensor_role role, const gemm_args& g) const override;

   private:
    const precision_hook& owner_;
  };

  // Delayed and current scaling's view of one GEMM operand tensor of a layer.
  struct scaled_tensor {
    float amax = __builtin_nanf("");  // whole tensor, at its latest operand() call
    float pending = 0.0f;             // largest amax since begin_step (delayed)
    bool seen = false;
    num::amax_history history{1};
    float scale = 1.0f;               // delayed: the decode scale of this step
  };
  // An operand's quantization and the history copy its span shows.
  struct prepared_operand {
    operand_quantization how;
    std::vector<float> history;
  };

  [[nodiscard]] bool scaled_site(const site& where) const;
  // The state of (layer, operand); call with scaled_mutex_ held.
  scaled_tensor& scaled_state(std::string_view layer, gemm_operand operand) const;
  [[nodiscard]] prepared_operand prepare_operand(const site& where, tensor_role gemm_role, const gemm_args& g,
                                                 bool is_a) const;
  void gemm_scaled(const site& where, tensor_role role, const gemm_args& g) const;
  // operand() at a scaled site: the whole tensor's amax for its per-tensor scale.
  void note_scaled_amax(const site& where, tensor_role role, std::span<const float> values);
  [[nodiscard]] std::optional<num::format> site_format(const site& where) const;
  /// Whether an add-with-alpha into format f with the rounding of `role`
  /// follows PyTorch's bf16 scalar loop (policy.torch_bf16).
  [[nodiscard]] bool emulates_torch_bf16(const num::format& f, tensor_role role) const;
  [[nodiscard]] num::array_options options(const site& where, tensor_role role, const num::format& f) const;
  // Rounds `in` into `out` (which must not overlap it); returns the trap to
  // raise, if any, for the caller to throw once the tensor is handed on.
  // `result`, where given, receives the rounding pass's counts.
  [[nodiscard]] std::optional<precision_trap> round(const site& where, tensor_role role, const num::format& f,
                                                    std::span<const float> in, std::span<float> out,
                                                    num::conversion_result* result = nullptr);
  // The tally and the non-finite check of a rounding pass that wrote `out`.
  void note_rounding(const site& where, tensor_role role, std::span<const float> out,
                     const num::conversion_result& result);
  // The trap a NaN or infinity among `values` raises under policy.traps.
  [[nodiscard]] std::optional<precision_trap> finite_trap(const site& where, tensor_role role,
                                                          std::span<const float> values) const;
  // Notes `values` (as held after rounding) as the first NaN / infinity of
  // the run; `has_non_finite` is what the pass that wrote them found.
  void locate_non_finite(const site& where, tensor_role role, std::span<const float> values, bool has_non_finite);
  [[nodiscard]] std::optional<num::format> widest_format_of(std::span<const std::span<const float>> inputs) const;
  // Rounds `values` to f (if any) and passes them to the next hook.
  void hand_on(const site& where, tensor_role role, std::span<float> values, const std::optional<num::format>& f);
  // A weight's or an operand's rounded copy, and what it was rounded from,
  // for weight_again() and operand_again().
  struct kept_rounding {
    std::vector<float> values;  // the copy (its first `size` elements)
    const float* source = nullptr;
    std::size_t size = 0;
    std::uint64_t step = 0, weight_writes = 0;  // step_ and weight_writes_ when rounded
    bool reusable = false;                // rounded without a trap
    bool in_format = false;               // the source was in the format: no copy made (held_in)
    num::conversion_result result;        // the rounding pass's counts
  };
  kept_rounding& kept(const site& where, tensor_role role);
  // Whether `values` is a forward output of this pass that this hook has
  // rounded (in place) into a format f holds all of, so that rounding it
  // into f would change nothing; only while no counts are gathered and
  // nothing traps. Relies, as the follow ops' formats do, on a forward
  // output staying as produced until the loss ends the pass.
  [[nodiscard]] bool held_in(std::span<const float> values, const num::format& f) const;
  // The copy of `values` rounded to f: kept's, if `again` and it matches,
  // else `values` itself where held_in(), else rounded now into kept's
  // storage. Sets `trap` as round() returns it.
  std::span<const float> rounded_copy(const site& where, tensor_role role, const num::format& f,
                                      std::span<const float> values, bool again,
                                      std::optional<precision_trap>& trap);
  std::span<const float> weight_of(const site& where, std::span<const float> master, bool again);
  std::span<const float> operand_of(const site& where, tensor_role role, std::span<const float> values, bool again);

  precision_policy policy_;
  std::uint64_t seed_;
  tensor_hook* next_;
  unsigned threads_;
  policy_engine engine_;
  std::uint64_t step_ = 0;
  // The format of each forward output of the current pass, by its data.
  std::unordered_map<const float*, std::optional<num::format>> activation_formats_;
  std::map<std::string, std::optional<num::format>, std::less<>> follow_decisions_;  // by layer
  std::map<std::string, kept_rounding, std::less<>> kept_;  // by "layer/tensor#role"
  std::uint64_t weight_writes_ = 0;  // update() and master_weight produce() calls so far
  std::vector<float> trap_scratch_;
  std::vector<float> unrounded_;  // a produced tensor's values before its in-place rounding
  std::vector<double> exact_;
  std::vector<float> rounded_;
  std::vector<float> delta_;    // an update's requested delta, for the next hook
  std::vector<float> decayed_;  // an AdamW update's decayed weights
  // Mutable: the GEMM engine (const) adds its scaled counts, under scaled_mutex_.
  mutable precision_tally tally_;
  std::optional<non_finite_origin> first_nan_, first_infinity_;
  bool counting_ = false;
  // Scaled recipes: per layer, by gemm_operand. Conv2d's workers run GEMMs
  // at once, so the states and the next hook's observe_quantized are used
  // under the mutex.
  mutable std::mutex scaled_mutex_;
  mutable std::map<std::string, std::array<std::optional<scaled_tensor>, gemm_operand_count>, std::less<>>
      scaled_tensors_;
  // Per layer, the weight's quantization in the forward GEMM [0] and the
  // dgrad GEMM [1], kept for the GEMM's other parts (conv2d's chunks).
  mutable std::map<std::string, std::array<operand_keeper, 2>, std::less<>> weight_keepers_;
  // Scratch of the scaled GEMMs: one taken per GEMM in flight, given back after.
  mutable std::vector<std::unique_ptr<scaled_gemm_scratch>> scratch_pool_;
  std::array<float, hadamard_size> hadamard_signs_{};
};

}  // namespace lab
