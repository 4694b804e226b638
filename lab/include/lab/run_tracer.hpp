// The tracer: a tensor_hook that announces every tensor of a training run to
// a num::stats_hooks registry, so whatever sinks are attached there (the run
// database's rundb_sink, a test's collector) receive libnum's statistics.
//
// Chained after the precision policy (lab::trainer does this for a hook
// handed in through its op_context), it announces each tensor with the format
// the policy stores it in (binary32 where the policy keeps fp32) and the
// policy's rounding of that role. Where the policy rounded a tensor, the
// call carries the values from *before* that rounding (unrounded_values) and
// the tracer announces those: statistics of x as rounded into the format are
// those of the rounded tensor, and in addition count what the rounding
// flushed to zero (underflows) or overflowed. Under stochastic
// rounding those two counts are drawn from the statistics' own random words,
// so they match the policy's in distribution, not element for element. Sites are named "<layer>.<tensor>" ("conv1.output",
// "conv1.grad_input", "conv1.kernel"), which is what sink filters match.
//
// Roles: activation and grad_input from produce(); grad_weight from
// produce(); the gradient a matmul/conv receives, where the policy casts it
// to the op's format (operand, site "<layer>.grad_output", role grad_input);
// weight from weight(); master_weight after every optimizer update;
// update as the statistics of the delta followed by the swamping statistics
// of the performed write (announce_update, ulp taken in the storage format).
// The optimizer's internal state is not announced.
//
// Under a scaled recipe, every GEMM operand the policy quantizes
// (observe_quantized) goes, with its statistics, to the scale_sink if one is
// set and wants it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <libnum/format.hpp>
#include <libnum/hooks.hpp>
#include <libnum/rounding.hpp>

#include "lab/op_context.hpp"
#include "lab/scale_trace.hpp"

namespace lab {

class precision_hook;

/// The tag a role is announced under to libnum's statistics hooks: the
/// role's enum value as id, role_name() as name.
num::role_tag trace_tag(tensor_role role);

/// How a traced site is labelled in a run database: the layer column (the
/// layer for its output and input gradient, "<layer>.<tensor>" for a
/// parameter and for the received gradient "<layer>.grad_output") and the op kind.
struct site_label {
  std::string layer;
  std::string op;
};

/// Announces every tensor it sees to a stats_hooks registry (see file comment).
class run_tracer : public tensor_hook {
 public:
  /// Announces to `hooks` (not owned; must outlive the tracer).
  explicit run_tracer(num::stats_hooks& hooks) : hooks_(hooks) {}

  /// Takes storage formats and roundings from `policy` (null: everything fp32).
  void set_policy(const precision_hook* policy) { policy_ = policy; }
  /// The optimizer step the following tensors belong to.
  void begin_step(std::uint64_t step) { step_ = step; }
  /// Pauses announcing (evaluation passes are not training steps).
  void set_enabled(bool on) { enabled_ = on; }
  /// Where quantized GEMM operands are reported (not owned; null: nowhere).
  void set_scale_sink(scale_sink* sink) { scale_sink_ = sink; }
  [[nodiscard]] std::uint64_t step() const { return step_; }

  void produce(const site& where, tensor_role role, std::span<float> values, unrounded_values unrounded) override;
  std::span<const float> weight(const site& where, std::span<const float> master,
                                unrounded_values unrounded) override;
  /// Without a precision policy in front: w <- w + delta in fp32, observed.
  void update(const site& where, std::span<float> weight, const weight_step& step) override;
  void observe_update(const site& where, std::span<const float> before, std::span<const float> delta,
                      std::span<const float> after) override;
  /// Whether some sink wants the update of `where` at this step.
  bool observes_update(const site& where) override;
  /// Announces the gradient a matmul/conv receives where the policy cast it
  /// (role grad_input, `unrounded` set): that cast is where mixed precision
  /// loses small gradients. A forward input's cast repeats its producer's
  /// output rounding, so it is not announced. Hands `values` through.
  std::span<const float> operand(const site& where, tensor_role role, std::span<const float> values,
                                 unrounded_values unrounded) override;
  /// Reports the operand's statistics to the scale sink.
  void observe_quantized(const site& where, const quantized_operand& operand) override;

  /// "<layer>.<tensor>".
  static std::string site_name(const site& where);
  /// The label of a site name announced so far; nullopt for one never seen.
  [[nodiscard]] std::optional<site_label> label(std::string_view site_name) const;

 private:
  /// The format `role` of `where` is stored in, and the rounding that produced it.
  [[nodiscard]] std::pair<num::format, num::round_spec> storage(const site& where, tensor_role role) const;
  void announce(const site& where, tensor_role role, std::span<const float> values);
  const std::string& remember(const site& where, tensor_role role);

  num::stats_hooks& hooks_;
  const precision_hook* policy_ = nullptr;
  std::uint64_t step_ = 0;
  bool enabled_ = true;
  scale_sink* scale_sink_ = nullptr;
  std::map<std::string, site_label, std::less<>> labels_;
  std::string name_;            // scratch: the current site's name
  std::vector<float> before_;   // scratch: weights before an fp32 update
  std::vector<float> delta_;    // scratch: the delta an fp32 update asked for
};

}  // namespace lab
