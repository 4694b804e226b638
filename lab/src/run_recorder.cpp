#include "lab/run_recorder.hpp"

#include "lab/errors.hpp"
#include "lab/precision_hook.hpp"

namespace lab {
namespace {

// The config as stored with the run: without the database's own path (see
// rundb/SCHEMA.md, runs.config_yaml).
std::string stored_yaml(const train_config& config) {
  std::string yaml = to_yaml(config);
  const std::string key = "trace.db: ";
  if (const auto at = yaml.find(key); at != std::string::npos && (at == 0 || yaml[at - 1] == '\n'))
    yaml.erase(at, yaml.find('\n', at) + 1 - at);
  return yaml;
}

}  // namespace

run_recorder::run_recorder(const train_config& config, std::string name, std::string numlab_version)
    : db_(config.trace.db),
      run_(db_.begin_run({.name = std::move(name),
                          .config_yaml = stored_yaml(config),
                          .numlab_version = std::move(numlab_version)})),
      every_(config.trace.every == 0 ? 1 : config.trace.every),
      tracer_(hooks_) {
  sink_ = std::make_shared<rundb_sink>(db_, run_, config.trace.histograms,
                                       [this](std::string_view site) { return tracer_.label(site); });
  num::sink_filter filter;
  filter.site = config.trace.sites;
  filter.every = every_;
  hooks_.attach(sink_, filter);
  scale_sink_ = std::make_unique<rundb_scale_sink>(db_, run_, filter);
  tracer_.set_scale_sink(scale_sink_.get());
  // Silent until attach() names the policy: the trainer's constructor already
  // reports parameters, and without the policy their formats would read fp32.
  tracer_.set_enabled(false);
}

run_recorder::~run_recorder() {
  if (sink_) sink_->flush();
  if (scale_sink_) scale_sink_->flush();
}

void run_recorder::attach(trainer& t) {
  trainer_ = &t;
  tracer_.set_policy(t.precision());
  tracer_.set_enabled(true);
  for (const auto& w : t.warnings()) db_.add_event({run_, 0, rundb::event_kind::warning, {}, w});
  t.set_observer(this);
}

void run_recorder::on_step_begin(std::uint64_t step) {
  step_ = step;
  tracer_.begin_step(step);
}

void run_recorder::on_step(const step_info& info) {
  sink_->flush();
  scale_sink_->flush();
  const auto step = static_cast<std::int64_t>(info.step);
  rundb::step_record r;
  r.run = run_;
  r.step = step;
  r.epoch = static_cast<std::int64_t>(info.epoch);
  r.loss = info.loss;
  r.loss_scale = info.loss_scale;
  r.skipped = info.skipped;
  r.skip_reason = info.skip_reason;
  r.lr = info.lr;
  r.grad_norm = info.grad_norm;
  r.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  db_.add_step(std::move(r));
  if (info.skipped)
    db_.add_event({run_, step, rundb::event_kind::skipped, info.skip_layer, "update skipped: " + info.skip_reason});
  if (trainer_ != nullptr && info.step % every_ == 0) {
    for (const auto& e : trainer_->shadow_errors()) {
      const bool parameter = e.role == tensor_role::grad_weight;
      db_.add_shadow_error({run_, step, parameter ? e.layer + "." + e.tensor : e.layer,
                            std::string(role_name(e.role)), e.relative_error});
    }
  }
}

void run_recorder::on_evaluation(bool running) { tracer_.set_enabled(!running); }

void run_recorder::on_epoch(const epoch_report& report) {
  db_.add_evaluation({run_, static_cast<std::int64_t>(report.epoch), static_cast<std::int64_t>(report.updates),
                      report.test.loss, report.test.accuracy});
}

void run_recorder::finish(rundb::run_status status) {
  sink_->flush();
  scale_sink_->flush();
  db_.finish_run(run_, status);
}

void run_recorder::fail(const std::exception& error) noexcept {
  try {
    sink_->flush();
    scale_sink_->flush();
    if (const auto* trap = dynamic_cast<const precision_trap*>(&error)) {
      db_.add_event({run_, static_cast<std::int64_t>(trap->step), rundb::event_kind::trap,
                     trap->layer, trap->what()});
      db_.finish_run(run_, rundb::run_status::trapped);
    } else if (const auto* diverged = dynamic_cast<const training_diverged*>(&error)) {
      const auto step = static_cast<std::int64_t>(diverged->step);
      db_.add_event({run_, step, rundb::event_kind::warning, {}, diverged->what()});
      if (const precision_hook* policy = trainer_ != nullptr ? trainer_->precision() : nullptr) {
        if (const auto& nan = policy->first_nan())
          db_.add_event({run_, static_cast<std::int64_t>(nan->step), rundb::event_kind::nan, nan->layer,
                         "first NaN of the run: " + nan->describe()});
        if (const auto& inf = policy->first_infinity())
          db_.add_event({run_, static_cast<std::int64_t>(inf->step), rundb::event_kind::overflow, inf->layer,
                         "first infinity of the run: " + inf->describe()});
      }
      db_.finish_run(run_, rundb::run_status::diverged);
    } else {
      db_.add_event({run_, static_cast<std::int64_t>(step_), rundb::event_kind::warning, {},
                     std::string("run failed: ") + error.what()});
      db_.finish_run(run_, rundb::run_status::failed);
    }
  } catch (...) {  // the database itself failed; the original error is what the caller reports
  }
}

}  // namespace lab
