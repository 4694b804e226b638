// The experiment interface: what `numlab experiment NAME` runs.
//
// An experiment is a named function from run options to tables plus checks
// against the values its tutorial printed. Each lives in one source file in
// experiments/ and is listed once in experiments/registry.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "table.hpp"

namespace numlab::experiments {

/// How to run an experiment.
struct run_options {
  std::filesystem::path output_dir = "results";  ///< where NAME.md/.csv (and run databases) go
  bool full = false;        ///< the tutorial's full sizes instead of the 2-core defaults
  std::uint64_t seed = 1;   ///< seed of every random choice (stochastic rounding, data order, init)
  /// Training experiments train every configuration at seeds seed, seed+1,
  /// ... (this many) and compare them with tests that account for seed
  /// noise; 0 picks the default for the size (5; 1 at --full, 2 at --tiny).
  std::size_t seeds = 0;
  bool tiny = false;        ///< smallest size that still shows the effect (smoke tests)
  /// Training experiments: how many seeds train at once, each on its own
  /// thread (every run keeps one BLAS thread); the results are the same
  /// for any value, only the wall times change.
  unsigned jobs = 1;
  /// Where training experiments record each of their training runs (one run
  /// database, rundb/SCHEMA.md; empty: not recorded).
  std::filesystem::path run_database{};
};

/// One value or claim the tutorial printed, beside what numlab measured for
/// it and the test that decided between them.
struct reference_check {
  std::string quantity;   ///< what was measured, e.g. "0.0004 + 0.25 - 0.25 in fp16"
  std::string source;     ///< where it was published, e.g. "Graphcore fp16 tutorial"
  std::string published;  ///< what the tutorial printed, verbatim (nothing else)
  std::string computed;   ///< numlab's measured value (never the tutorial's words)
  std::string test;       ///< the test applied to the measurement
  bool decided = true;    ///< false when nothing was measured to test (a diverged run, one seed)
  bool matches = false;   ///< the test's outcome, never set by hand; false when not decided
  std::string verdict;    ///< one line: "matches", "differs: why" or "not decided: why"
};

/// A value shown beside the tutorial's that no measurement could contradict
/// (an arithmetic identity, a setting read back): reported, not judged.
struct reference_fact {
  std::string quantity;
  std::string source;
  std::string published;  ///< what the tutorial printed, verbatim, or "-"
  std::string numlab;     ///< numlab's value
  std::string why;        ///< why this is not a verdict
};

/// Everything one run produces.
struct experiment_result {
  std::vector<std::string> settings;  ///< sizes, seeds, streams, modes actually used
  std::vector<table> tables;
  std::vector<reference_check> checks;
  std::vector<reference_fact> facts;
  std::vector<std::string> findings;  ///< one line each: what the tables show

  /// The table with this id; throws std::out_of_range.
  const table& find_table(std::string_view id) const;
};

/// A reproducible experiment.
struct experiment {
  std::string_view name;         ///< command-line name, e.g. "swamping-add"
  std::string_view description;  ///< one line for `numlab experiment list`
  bool fast = true;              ///< part of `numlab experiment all`
  experiment_result (*run)(const run_options&) = nullptr;
};

/// Every experiment, in the order `list` and `all` show them.
std::span<const experiment> all_experiments();

/// The experiment called `name`; throws std::invalid_argument naming it and
/// listing the known names.
const experiment& find_experiment(std::string_view name);

}  // namespace numlab::experiments
