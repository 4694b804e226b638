// The training loop: data, model, optimizer, schedule, evaluation each
// epoch, checkpoints. A fixed seed gives bit-identical runs (for a fixed
// BLAS thread count), and resuming from an epoch checkpoint continues
// bit-identically, because every random stream is derived from (seed, epoch,
// step) rather than carried along.
#pragma once

#include <csignal>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lab/batches.hpp"
#include "lab/checkpoint.hpp"
#include "lab/dataset.hpp"
#include "lab/loss.hpp"
#include "lab/loss_scaler.hpp"
#include "lab/models.hpp"
#include "lab/op_context.hpp"
#include "lab/optimizer.hpp"
#include "lab/precision_hook.hpp"
#include "lab/schedule.hpp"
#include "lab/sequential.hpp"
#include "lab/shadow.hpp"
#include "lab/train_config.hpp"

namespace lab {

/// Training and test splits.
struct train_data {
  dataset train, test;
};

/// Loads the configured data set, applies train_limit / test_limit and, when
/// configured, per-channel standardisation with training-set statistics.
train_data load_data(const train_config& config);

/// Loss and accuracy over a data set.
struct evaluation {
  double loss = 0.0, accuracy = 0.0;
};

/// What one epoch did.
struct epoch_report {
  std::size_t epoch = 0;      ///< 1-based
  std::size_t epochs = 0;
  double train_loss = 0.0, train_accuracy = 0.0;
  evaluation test;
  double train_seconds = 0.0, images_per_second = 0.0;
  std::uint64_t updates = 0;  ///< total optimizer updates so far
};

/// Receives progress while training (the CLI's progress bar).
class progress_sink {
 public:
  virtual ~progress_sink() = default;
  /// After each training batch: running mean loss and throughput so far.
  virtual void on_batch(std::size_t epoch, std::size_t batch, std::size_t batches, double mean_loss,
                        double images_per_second) = 0;
  /// After each epoch's evaluation.
  virtual void on_epoch(const epoch_report& report) = 0;
  /// A warning about the run (an unrepresentable hyperparameter), before
  /// the first batch. The default prints "numlab: warning: ..." to stderr.
  virtual void on_warning(const std::string& message);
};

/// What one optimizer step did (for run recorders such as lab::run_recorder).
struct step_info {
  std::uint64_t step = 0;   ///< 0-based optimizer step
  std::size_t epoch = 0;    ///< 0-based epoch
  double loss = 0.0;        ///< mean training loss over the step's micro-batches
  double loss_scale = 1.0;  ///< loss scale in force during the step
  bool skipped = false;     ///< update skipped for inf/NaN gradients
  std::string skip_reason;  ///< which gradient was not finite, when skipped
  std::string skip_layer;   ///< the layer of that gradient, when skipped (empty if none was found)
  double lr = 0.0;          ///< learning rate applied (0 when skipped)
  double grad_norm = 0.0;   ///< global_gradient_norm() of the unscaled gradients before clipping (float,
                            ///< torch's clip_grad_norm_ order): the value clipping compared with clip_norm
};

/// Observes the training loop step by step. Every call comes from the
/// training thread.
class step_observer {
 public:
  virtual ~step_observer() = default;
  /// Before the first micro-batch of optimizer step `step`.
  virtual void on_step_begin(std::uint64_t step) = 0;
  /// After the step's update (or its skipping).
  virtual void on_step(const step_info& info) = 0;
  /// An evaluation pass starts (true) or ends (false); its tensors are not a step's.
  virtual void on_evaluation(bool /*running*/) {}
  /// After each epoch's evaluation.
  virtual void on_epoch(const epoch_report& /*report*/) {}
};

/// Owns a model, its optimizer and data; runs training.
class trainer {
 public:
  /// Builds everything from `config`; resumes from config.resume when set.
  trainer(train_config config, train_data data, op_context ctx = {});

  /// Trains the remaining epochs; returns one report per epoch trained.
  std::vector<epoch_report> run(progress_sink* sink = nullptr);
  /// Loss and accuracy on `data` in evaluation mode.
  evaluation evaluate(const dataset& data);
  /// Reports every step to `observer` (not owned; null: none).
  void set_observer(step_observer* observer) { observer_ = observer; }
  /// run() polls `flag` after every optimizer step and returns early, with
  /// interrupted() true, once it is nonzero (set by a SIGINT handler).
  void stop_when(const volatile std::sig_atomic_t* flag) { stop_flag_ = flag; }
  /// Whether the latest run() stopped because the stop flag was raised.
  [[nodiscard]] bool interrupted() const { return interrupted_; }

  [[nodiscard]] sequential& model() { return *model_; }
  [[nodiscard]] const train_data& data() const { return data_; }
  [[nodiscard]] std::uint64_t epochs_done() const { return epochs_done_; }
  [[nodiscard]] std::uint64_t updates_done() const { return updates_done_; }
  /// Writes a checkpoint of the current state to `path`.
  void save(const std::filesystem::path& path) const;

  /// The precision policy's hook, or null when the policy rounds nothing.
  /// A tracer handed in through the constructor's op_context is chained
  /// after it and sees the rounded tensors.
  [[nodiscard]] precision_hook* precision() { return precision_.get(); }
  [[nodiscard]] const precision_hook* precision() const { return precision_.get(); }
  /// The loss-scale state (scale 1 without loss scaling).
  [[nodiscard]] const loss_scaler& scaler() const { return *scaler_; }
  /// Whether the latest update was skipped for inf/NaN gradients.
  [[nodiscard]] bool last_update_skipped() const { return last_update_skipped_; }
  /// Warnings about the configuration (also sent to the progress sink).
  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }
  /// Shadow mode (config shadow: true): per-site relative errors of
  /// activations and gradients against the fp32 shadow model, accumulated
  /// over the training batches so far; empty when off.
  [[nodiscard]] std::vector<shadow_error> shadow_errors() const;

 private:
  double train_batch(const batch& b, float grad_scale, std::size_t& correct);
  void apply_update();
  [[nodiscard]] std::vector<named_tensor> checkpoint_tensors() const;
  [[nodiscard]] std::string fingerprint() const;
  void install_precision(const optimizer_settings& os, const model_spec& spec);  // trainer_precision.cpp
  void run_shadow(const batch& b, float grad_scale);                               // trainer_precision.cpp

  train_config config_;
  train_data data_;
  op_context ctx_;
  std::unique_ptr<sequential> model_;
  std::vector<parameter*> params_;
  std::unique_ptr<optimizer> optimizer_;
  std::unique_ptr<batch_loader> loader_;
  lr_schedule schedule_;
  std::size_t updates_per_epoch_ = 0;
  std::uint64_t epochs_done_ = 0, updates_done_ = 0, micro_steps_done_ = 0;
  loss_kind loss_ = loss_kind::cross_entropy;
  tensor logits_, grad_logits_;
  std::unique_ptr<precision_hook> precision_;
  std::unique_ptr<loss_scaler> scaler_;
  std::vector<std::string> warnings_;
  bool last_update_skipped_ = false;
  std::unique_ptr<tensor_recorder> recorder_;  // shadow mode: what the low-precision model produced
  std::unique_ptr<shadow_model> shadow_;
  step_observer* observer_ = nullptr;
  const volatile std::sig_atomic_t* stop_flag_ = nullptr;
  bool interrupted_ = false;
  step_info last_step_;  // filled by apply_update while an observer is set
};

}  // namespace lab
