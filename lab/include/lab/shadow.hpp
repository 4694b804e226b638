// Shadow mode: an fp32 copy of the model runs on the same batch beside the
// low-precision one, with the same weights (the low-precision model's stored
// values), and every activation and gradient of the two is compared per site.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lab/op_context.hpp"
#include "lab/sequential.hpp"

namespace lab {

/// A tensor_hook that keeps a copy of every activation and gradient an op
/// produces (latest value per site and role), then hands the call on to
/// `next` (may be null, not owned).
class tensor_recorder : public tensor_hook {
 public:
  explicit tensor_recorder(tensor_hook* next = nullptr) : next_(next) {}
  /// One recorded tensor.
  struct entry {
    std::string layer, op, tensor;
    tensor_role role;
    std::vector<float> values;
  };

  void produce(const site& where, tensor_role role, std::span<float> values, unrounded_values unrounded) override;
  std::span<const float> weight(const site& where, std::span<const float> master,
                                unrounded_values unrounded) override;
  void update(const site& where, std::span<float> weight, const weight_step& step) override;
  float scalar(const site& where, tensor_role role, double value) override;
  std::span<const float> operand(const site& where, tensor_role role, std::span<const float> values,
                                 unrounded_values unrounded) override;
  void observe_update(const site& where, std::span<const float> before, std::span<const float> delta,
                      std::span<const float> after) override;
  /// Whether the next hook observes the update (it records none itself).
  bool observes_update(const site& where) override;

  /// Recorded activations and gradients keyed "layer/tensor#role", in key order.
  [[nodiscard]] const std::map<std::string, entry>& entries() const { return entries_; }
  void clear() { entries_.clear(); }

 private:
  tensor_hook* next_;
  std::map<std::string, entry> entries_;
};

/// Relative error of one site against the fp32 shadow: ||x - ref|| / ||ref||
/// (L2 norms accumulated in double; 0 when both are zero).
struct shadow_error {
  std::string layer, op, tensor;
  tensor_role role;
  double relative_error = 0.0;  ///< of the latest step
  double mean = 0.0, max = 0.0; ///< over the steps compared so far
  std::uint64_t steps = 0;
};

/// The fp32 copy of a model and the comparison. The shadow model must have
/// been built from the same model_spec as the low-precision one.
class shadow_model {
 public:
  explicit shadow_model(std::unique_ptr<sequential> model);

  /// Copies `main`'s parameter values and buffers into the shadow, runs it on
  /// `images` with the loss `loss_and_grad` computes (called with the
  /// shadow's context, logits and the gradient to fill), runs backward, and
  /// compares everything with what `recorded` holds for the main model's
  /// latest step. `like` supplies training mode, seed, step and threads (so
  /// dropout draws the same masks). Returns the per-site errors so far.
  template <typename LossFn>
  const std::vector<shadow_error>& compare(sequential& main, const tensor_recorder& recorded, const tensor& images,
                                           const op_context& like, LossFn loss_and_grad) {
    sync_from(main);
    op_context ctx(&reference_);
    ctx.training = like.training;
    ctx.seed = like.seed;
    ctx.step = like.step;
    ctx.threads = like.threads;
    reference_.clear();
    model_->forward(ctx, images, logits_);
    loss_and_grad(ctx, logits_, grad_logits_);
    model_->backward(ctx, images, logits_, grad_logits_, nullptr);
    accumulate(recorded);
    return errors_;
  }
  [[nodiscard]] const std::vector<shadow_error>& errors() const { return errors_; }

 private:
  void sync_from(sequential& main);
  void accumulate(const tensor_recorder& recorded);

  std::unique_ptr<sequential> model_;
  tensor_recorder reference_;
  tensor logits_, grad_logits_;
  std::vector<shadow_error> errors_;
};

}  // namespace lab
