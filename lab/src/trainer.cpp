#include "lab/trainer.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "lab/errors.hpp"
#include "lab/loss.hpp"
#include "lab/models.hpp"

namespace lab {
namespace {

std::size_t count_correct(const tensor& logits, std::span<const std::int32_t> labels) {
  const std::size_t n = logits.shape()[0], k = logits.shape()[1];
  std::size_t correct = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float* z = logits.data() + i * k;
    const auto best = static_cast<std::int32_t>(std::max_element(z, z + k) - z);
    correct += best == labels[i] ? 1 : 0;
  }
  return correct;
}

// The first gradient that is not finite (why a step is skipped): the text,
// and the layer it belongs to, so that the skip event names its layer.
struct non_finite_site {
  std::string reason;
  std::string layer;
};

non_finite_site non_finite_gradient(const std::vector<parameter*>& params) {
  for (const auto* p : params)
    for (const float g : p->grad.values())
      if (!std::isfinite(g)) return {std::string(std::isnan(g) ? "NaN" : "inf") + " in grad_weight of " + p->name, p->layer};
  return {"inf/NaN in gradients", {}};
}

}  // namespace

trainer::trainer(train_config config, train_data data, op_context ctx)
    : config_(std::move(config)), data_(std::move(data)), ctx_(ctx) {
  validate(config_);
  loss_ = loss_kind_named(config_.loss);
  // Ops split their batches between ctx.threads workers themselves; BLAS
  // calls inside them stay single-threaded so the two never oversubscribe.
  openblas_set_num_threads(1);
  ctx_.threads = std::max<std::size_t>(1, config_.threads);
  const auto& s = data_.train.images.shape();
  if (data_.train.size() == 0) throw input_error("training set is empty");
  if (data_.test.images.shape().rank() == 4 && data_.test.size() > 0 &&
      data_.test.images.shape().per_sample() != s.per_sample())
    throw input_error("test images " + data_.test.images.shape().str() + " do not match training images " + s.str());
  model_spec spec;
  spec.name = config_.model;
  spec.channels = s[1];
  spec.height = s[2];
  spec.width = s[3];
  spec.classes = data_.train.classes;
  spec.hidden = config_.hidden;
  spec.depth = config_.depth;
  spec.dropout = static_cast<float>(config_.dropout);
  spec.statistics = parse_norm_statistics(config_.norm_statistics);
  model_ = make_model(spec);
  rng init(config_.seed, 0);
  model_->initialise(init);
  params_ = model_->parameters();

  optimizer_settings os;
  os.kind = parse_optimizer_kind(config_.optimizer);
  os.momentum = config_.momentum;
  os.nesterov = config_.nesterov;
  os.beta1 = config_.beta1;
  os.beta2 = config_.beta2;
  os.eps = config_.eps;
  os.weight_decay = config_.weight_decay;
  optimizer_ = std::make_unique<optimizer>(os, params_);

  augmentation aug{config_.augment_crop, config_.augment_flip};
  loader_ = std::make_unique<batch_loader>(data_.train, config_.batch_size, true, config_.drop_last, config_.seed, aug);
  updates_per_epoch_ = (loader_->batches_per_epoch() + config_.accumulate - 1) / config_.accumulate;

  schedule_.kind = parse_schedule_kind(config_.schedule);
  schedule_.base_lr = config_.lr;
  schedule_.warmup_steps = config_.warmup_steps;
  schedule_.step_size = config_.step_epochs * updates_per_epoch_;
  schedule_.gamma = config_.gamma;
  schedule_.total_steps = config_.max_steps ? config_.max_steps : config_.epochs * updates_per_epoch_;
  schedule_.min_lr = config_.min_lr;

  ctx_.seed = config_.seed;
  if (!config_.resume.empty()) {
    const checkpoint_header h = load_checkpoint(config_.resume, fingerprint(), checkpoint_tensors());
    epochs_done_ = h.epochs_done;
    updates_done_ = h.updates_done;
    micro_steps_done_ = h.micro_steps_done;
    optimizer_->set_steps(h.updates_done);
  }
  install_precision(os, spec);
}

std::string trainer::fingerprint() const {
  std::size_t count = 0;
  for (auto* p : params_) count += p->value.size();
  return config_.model + " input " + data_.train.images.shape().with_batch(1).str() + " params " +
         std::to_string(count) + " optimizer " + config_.optimizer +
         (config_.momentum != 0.0 ? " momentum" : "");
}

std::vector<named_tensor> trainer::checkpoint_tensors() const {
  std::vector<named_tensor> all;
  for (auto* p : params_) all.push_back({"param:" + p->name, &p->value});
  std::size_t i = 0;
  for (auto* b : model_->buffers()) all.push_back({"buffer:" + std::to_string(i++), b});
  i = 0;
  for (auto* t : optimizer_->state()) all.push_back({"optimizer:" + std::to_string(i++), t});
  return all;
}

void trainer::save(const std::filesystem::path& path) const {
  checkpoint_header h;
  h.fingerprint = fingerprint();
  h.epochs_done = epochs_done_;
  h.updates_done = updates_done_;
  h.micro_steps_done = micro_steps_done_;
  save_checkpoint(path, h, checkpoint_tensors());
}

double trainer::train_batch(const batch& b, float grad_scale, std::size_t& correct) {
  op_context ctx = ctx_;
  ctx.training = true;
  ctx.step = micro_steps_done_;
  if (precision_) precision_->begin_step(micro_steps_done_);
  grad_scale *= static_cast<float>(scaler_->scale());
  model_->forward(ctx, b.images, logits_);
  correct += count_correct(logits_, b.labels);
  const double loss =
      classification_loss(ctx, loss_, logits_, b.labels, static_cast<float>(config_.label_smoothing), grad_scale,
                          grad_logits_);
  model_->backward(ctx, b.images, logits_, grad_logits_, nullptr);
  if (precision_) precision_->end_step();
  if (shadow_) run_shadow(b, grad_scale);
  ++micro_steps_done_;
  return loss;
}

void trainer::apply_update() {
  op_context ctx = ctx_;
  ctx.step = updates_done_;
  if (precision_) precision_->begin_step(updates_done_);
  // GradScaler order: unscale, then clip, then step unless a gradient is
  // inf/NaN; the scale changes only here, at effective-batch boundaries.
  const bool found_inf = scaler_->unscale(params_);
  last_update_skipped_ = found_inf && scaler_->skips_non_finite();
  // In double, as PyTorch's Python-side lr; the optimizer converts it where
  // torch casts it (op_context::scalar).
  const double lr = schedule_.at(updates_done_) * scaler_->lr_factor();
  if (observer_ != nullptr) {
    last_step_.step = updates_done_;
    last_step_.loss_scale = scaler_->scale();
    last_step_.skipped = last_update_skipped_;
    non_finite_site skip = last_update_skipped_ ? non_finite_gradient(params_) : non_finite_site{};
    last_step_.skip_reason = std::move(skip.reason);
    last_step_.skip_layer = std::move(skip.layer);
    last_step_.lr = last_update_skipped_ ? 0.0 : lr;
  }
  // The recorded norm is the one clipping compares with clip_norm (taken
  // once, before the gradients are scaled), whether or not it clips.
  const bool clips = !last_update_skipped_ && config_.clip_norm > 0.0;
  if (clips) {
    const double norm = clip_gradient_norm(params_, static_cast<float>(config_.clip_norm));
    if (observer_ != nullptr) last_step_.grad_norm = norm;
  } else if (observer_ != nullptr) {
    last_step_.grad_norm = global_gradient_norm(params_);
  }
  if (!last_update_skipped_) optimizer_->step(ctx, lr);
  scaler_->update(found_inf);
  zero_gradients(params_);
  ++updates_done_;
}

std::vector<epoch_report> trainer::run(progress_sink* sink) {
  std::vector<epoch_report> reports;
  batch b;
  zero_gradients(params_);
  interrupted_ = false;
  if (sink != nullptr)
    for (const auto& w : warnings_) sink->on_warning(w);
  for (std::size_t epoch = epochs_done_; epoch < config_.epochs; ++epoch) {
    if (config_.max_steps && updates_done_ >= config_.max_steps) break;
    loader_->start_epoch(epoch);
    const std::size_t batches = loader_->batches_per_epoch();
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0.0, group_loss = 0.0;
    std::size_t correct = 0, seen = 0, in_group = 0, trained_batches = 0;
    for (std::size_t i = 0; i < batches; ++i) {
      if (config_.max_steps && updates_done_ >= config_.max_steps) break;
      loader_->fill(i, b);
      // Each micro-batch's loss is averaged over the update's micro-batches,
      // so a group of `accumulate` batches equals one batch of that total size
      // (for equal batch sizes). The epoch's last group may be shorter.
      const std::size_t group = std::min(config_.accumulate, batches - (i - in_group));
      if (in_group == 0 && observer_ != nullptr) observer_->on_step_begin(updates_done_);
      const double loss = train_batch(b, 1.0f / static_cast<float>(group), correct);
      if (!std::isfinite(loss))
        throw training_diverged("training diverged: loss is " + std::to_string(loss) + " at epoch " +
                                    std::to_string(epoch + 1) + " batch " + std::to_string(i + 1) + " (step " +
                                    std::to_string(updates_done_) + ")",
                                updates_done_);
      loss_sum += loss;
      group_loss += loss;
      seen += b.labels.size();
      ++trained_batches;
      if (++in_group == group) {
        apply_update();
        in_group = 0;
        if (observer_ != nullptr) {
          last_step_.epoch = epoch;
          last_step_.loss = group_loss / static_cast<double>(group);
          observer_->on_step(last_step_);
        }
        group_loss = 0.0;
        // The one process-wide flag (set by numlab train's SIGINT handler):
        // stop between steps, so the interrupted step is complete.
        if (stop_flag_ != nullptr && *stop_flag_ != 0) interrupted_ = true;
      }
      if (sink != nullptr) {
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        sink->on_batch(epoch + 1, i + 1, batches, loss_sum / static_cast<double>(trained_batches),
                       secs > 0 ? static_cast<double>(seen) / secs : 0.0);
      }
      if (interrupted_) return reports;
    }
    if (in_group > 0) {  // stopped by max_steps inside a group: drop the partial gradient
      zero_gradients(params_);
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    epoch_report r;
    r.epoch = epoch + 1;
    r.epochs = config_.epochs;
    r.train_loss = trained_batches ? loss_sum / static_cast<double>(trained_batches) : 0.0;
    r.train_accuracy = seen ? static_cast<double>(correct) / static_cast<double>(seen) : 0.0;
    r.train_seconds = secs;
    r.images_per_second = secs > 0 ? static_cast<double>(seen) / secs : 0.0;
    if (observer_ != nullptr) observer_->on_evaluation(true);
    r.test = evaluate(data_.test);
    if (observer_ != nullptr) observer_->on_evaluation(false);
    r.updates = updates_done_;
    const bool complete = trained_batches == batches;
    if (complete) epochs_done_ = epoch + 1;
    if (complete && !config_.checkpoint.empty()) save(config_.checkpoint);
    if (sink != nullptr) sink->on_epoch(r);
    if (observer_ != nullptr) observer_->on_epoch(r);
    reports.push_back(r);
  }
  return reports;
}

evaluation trainer::evaluate(const dataset& data) {
  evaluation e;
  if (data.size() == 0) return e;
  batch_loader loader(data, config_.eval_batch_size, false, false, 0);
  loader.start_epoch(0);
  op_context ctx = ctx_;
  ctx.training = false;
  batch b;
  double loss_sum = 0.0;
  std::size_t correct = 0;
  for (std::size_t i = 0; i < loader.batches_per_epoch(); ++i) {
    loader.fill(i, b);
    model_->forward(ctx, b.images, logits_);
    correct += count_correct(logits_, b.labels);
    const double loss =
        classification_loss(ctx, loss_, logits_, b.labels, static_cast<float>(config_.label_smoothing), 1.0f,
                            grad_logits_);
    loss_sum += loss * static_cast<double>(b.labels.size());
  }
  e.loss = loss_sum / static_cast<double>(data.size());
  e.accuracy = static_cast<double>(correct) / static_cast<double>(data.size());
  return e;
}

}  // namespace lab
