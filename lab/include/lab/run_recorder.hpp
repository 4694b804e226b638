// Records a training run into a run database (rundb/SCHEMA.md): the run's
// identity and resolved config, per-step scalars, tensor statistics through a
// run_tracer and a rundb_sink at the configured cadence (and, under a scaled
// recipe, scale statistics through a rundb_scale_sink), events, evaluations,
// shadow-mode errors, and the final status. The trainer sees only a
// step_observer and a tensor_hook; the SQL lives behind rundb::writer.
//
// Use: construct from the config, build the trainer with context(), attach()
// it, run, then finish() with the outcome (or fail() with the exception).
#pragma once

#include <chrono>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <libnum/hooks.hpp>
#include <rundb/writer.hpp>

#include "lab/op_context.hpp"
#include "lab/run_tracer.hpp"
#include "lab/rundb_scale_sink.hpp"
#include "lab/rundb_sink.hpp"
#include "lab/train_config.hpp"
#include "lab/trainer.hpp"

namespace lab {

/// Writes one run of `config` into config.trace.db (see file comment).
class run_recorder : public step_observer {
 public:
  /// Opens (or creates) the database and begins a run named `name` with status
  /// running. Throws rundb errors for a file that is not a run database.
  run_recorder(const train_config& config, std::string name, std::string numlab_version);
  /// Commits what is queued; a run never finished keeps status running.
  ~run_recorder() override;
  run_recorder(const run_recorder&) = delete;
  run_recorder& operator=(const run_recorder&) = delete;

  /// The op_context to build the trainer with: routes every tensor through the tracer.
  [[nodiscard]] op_context context() { return op_context(&tracer_); }
  /// Connects to the trainer built with context(): storage formats from its
  /// precision policy, its warnings as events, and step reports.
  void attach(trainer& t);

  void on_step_begin(std::uint64_t step) override;
  void on_step(const step_info& info) override;
  void on_evaluation(bool running) override;
  void on_epoch(const epoch_report& report) override;

  /// Ends the run with `status` (finished or interrupted) and waits for the commit.
  void finish(rundb::run_status status);
  /// Ends the run after `error`: a precision_trap gives status trapped and a
  /// trap event with its report; training_diverged status diverged, a
  /// warning event with its message and, where the precision policy located
  /// them, a nan and an overflow event naming the run's first NaN and first
  /// infinity; anything else status failed and a warning event with its
  /// message. Never throws.
  void fail(const std::exception& error) noexcept;

  /// Records where the run sits in a sweep grid (rundb run_coordinates).
  void set_coordinates(std::vector<rundb::coordinate> coordinates) { db_.set_coordinates(run_, std::move(coordinates)); }

  [[nodiscard]] rundb::run_id run() const { return run_; }
  [[nodiscard]] const std::filesystem::path& path() const { return db_.path(); }

 private:
  rundb::writer db_;
  rundb::run_id run_;
  std::uint64_t every_;
  num::stats_hooks hooks_;
  run_tracer tracer_;
  std::shared_ptr<rundb_sink> sink_;
  std::unique_ptr<rundb_scale_sink> scale_sink_;  // scaled recipes' quantized GEMM operands
  trainer* trainer_ = nullptr;
  std::uint64_t step_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace lab
