// A small run database with one of each problem, written by the GUI tests:
// a skipped step that was not traced (7), an overflow (step 12, layer b,
// grad_weight), a NaN (step 20, layer a, activation) and underflows (layer b,
// activation, worst at step 24). Statistics every 2 steps, layers a and b.
// Writing it again to the same file appends another run.
#pragma once

#include <filesystem>

#include "rundb/writer.hpp"

namespace gui_test {

inline constexpr std::int64_t trouble_steps = 30;

inline rundb::run_id write_trouble(const std::filesystem::path& file, const std::string& name = "trouble") {
  rundb::writer w(file);
  w.declare_format({"binary16", 11, -14, 15, true, true});
  const auto id = w.begin_run({.name = name, .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
  w.add_event({id, 0, rundb::event_kind::warning, {}, "loss scale \"dynamic\", growth 2"});
  for (std::int64_t s = 0; s < trouble_steps; ++s) {
    rundb::step_record step{.run = id, .step = s, .loss = 1.0 / static_cast<double>(s + 1),
                            .loss_scale = s < 7 ? 65536.0 : 32768.0, .skipped = s == 7, .lr = 0.1, .grad_norm = 1.0};
    if (step.skipped) step.skip_reason = "inf in grad_weight";
    w.add_step(step);
    // As the trainer wrote it before 3d2f557 (and other writers may): the skipped step's event names no layer.
    if (step.skipped) w.add_event({id, s, rundb::event_kind::skipped, {}, "update skipped: inf in grad_weight"});
    if (s % 2 != 0) continue;
    for (const char* layer : {"a", "b"}) {
      for (const char* role : {"activation", "grad_weight"}) {
        rundb::tensor_stats_record t{.run = id, .step = s, .layer = layer, .op = "dense", .role = role,
                                     .format = "binary16", .count = 100};
        const std::string l = layer, r = role;
        if (s == 12 && l == "b" && r == "grad_weight") {
          t.overflows = 5;
          t.infs = 1;
        }
        if (s == 20 && l == "a" && r == "activation") t.nans = 3;
        if (l == "b" && r == "activation") t.underflows = s == 24 ? 50 : 10;
        t.hist = {-24, std::vector<std::uint64_t>(42, static_cast<std::uint64_t>(s % 7 + (l == "a" ? 1 : 2)))};
        w.add_tensor_stats(t);
      }
    }
    if (s == 12) w.add_event({id, s, rundb::event_kind::overflow, "b", "1 inf and 5 overflowing values in grad_weight"});
    if (s == 20) w.add_event({id, s, rundb::event_kind::nan, "a", "3 NaN in activation"});
  }
  w.finish_run(id, rundb::run_status::finished);
  w.flush();
  return id;
}

}  // namespace gui_test
