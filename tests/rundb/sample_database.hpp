// Helpers shared by the run-database tests: scratch files and a small,
// fully populated database whose contents follow simple formulas, so tests
// can compare what they read against values computed independently.
#pragma once

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "rundb/writer.hpp"
#include "scratch_dir.hpp"

namespace rundb_test {

/// A fresh directory removed (with its contents) at scope exit.
class scratch_dir : public test_support::scratch_dir {
 public:
  explicit scratch_dir(const std::string& tag) : test_support::scratch_dir("rundb", tag) {}
};

inline void write_file(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary);
  out << bytes;
}

inline std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The formulas the sample run follows.
inline double sample_loss(std::int64_t step) { return 2.0 / (1.0 + 0.1 * static_cast<double>(step)); }
inline bool sample_skipped(std::int64_t step) { return step % 17 == 16; }
inline double sample_scale(std::int64_t step) { return std::ldexp(1.0, 16 - static_cast<int>(step / 17)); }
inline const std::vector<std::string>& sample_layers() {
  static const std::vector<std::string> layers{"conv1", "conv2", "fc"};
  return layers;
}
inline std::uint64_t sample_overflows(std::int64_t step, std::size_t layer) {
  return static_cast<std::uint64_t>(step) * (layer + 1);
}
inline std::vector<std::uint64_t> sample_bins(std::int64_t step, std::size_t layer) {
  std::vector<std::uint64_t> bins(42);
  for (std::size_t i = 0; i < bins.size(); ++i) bins[i] = (i * 7 + layer * 3 + static_cast<std::size_t>(step)) % 50;
  return bins;
}
inline std::vector<std::uint64_t> sample_ulp_ratio_bins(std::int64_t step, std::size_t layer) {
  std::vector<std::uint64_t> bins(18);
  for (std::size_t i = 0; i < bins.size(); ++i) bins[i] = (i * 5 + layer + static_cast<std::size_t>(step)) % 30;
  return bins;
}
inline constexpr std::int64_t sample_steps = 50;
inline constexpr std::int64_t sample_stats_every = 5;

/// Writes a finished run ("baseline") with every kind of record, and a second
/// run ("second") left running with a few steps. Returns the first run's id.
inline rundb::run_id write_sample(const std::filesystem::path& file) {
  rundb::writer w(file);
  w.declare_format({"binary16", 11, -14, 15, true, true});
  const auto id = w.begin_run({.name = "baseline", .config_yaml = "model: tiny\nlr: 0.1\n",
                               .numlab_version = "0.1.0"});
  for (std::int64_t s = 0; s < sample_steps; ++s) {
    rundb::step_record step{.run = id, .step = s, .epoch = s / 10, .loss = sample_loss(s),
                            .loss_scale = sample_scale(s), .skipped = sample_skipped(s),
                            .lr = 0.1, .grad_norm = 1.0 + static_cast<double>(s), .wall_time = 0.01 * static_cast<double>(s)};
    if (step.skipped) step.skip_reason = "inf in grad_weight of conv2";
    w.add_step(step);
    if (step.skipped) w.add_event({id, s, rundb::event_kind::skipped, "conv2", "inf in gradient"});
    if (s % sample_stats_every == 0) {
      for (std::size_t l = 0; l < sample_layers().size(); ++l) {
        for (const char* role : {"grad_weight", "update"}) {
          rundb::tensor_stats_record t{.run = id, .step = s, .layer = sample_layers()[l], .op = "dense",
                                       .role = role, .format = "binary16", .count = 1000};
          t.overflows = sample_overflows(s, l);
          t.underflows = 2 * l;
          t.subnormals = 3;
          t.swamped = std::string(role) == "update" ? 10 * l : 0;
          t.max_abs = 100.0 * static_cast<double>(l + 1);
          t.hist = {-24, sample_bins(s, l)};
          if (t.role == "update") t.ulp_ratio = {-8, sample_ulp_ratio_bins(s, l)};
          w.add_tensor_stats(t);
        }
      }
    }
    if (s % 10 == 9) w.add_evaluation({id, s / 10, s, sample_loss(s) * 1.1, 0.5 + 0.01 * static_cast<double>(s)});
  }
  w.add_shadow_error({id, 10, "fc", "activation", 1e-3});
  w.add_event({id, 33, rundb::event_kind::warning, "", "epsilon not representable"});
  w.finish_run(id, rundb::run_status::finished);
  const auto second = w.begin_run({.name = "second", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
  for (std::int64_t s = 0; s < 5; ++s) w.add_step({.run = second, .step = s, .loss = 1.0});
  w.flush();
  return id;
}

}  // namespace rundb_test
