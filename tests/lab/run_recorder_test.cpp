// A trainer recorded through run_recorder: every step's scalars, tensor
// statistics at the configured cadence in the policy's formats, events,
// evaluations, and the final status, read back through rundb::reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <rundb/reader.hpp>

#include "lab/run_recorder.hpp"
#include "lab/trainer.hpp"
#include "temp_dir.hpp"

namespace lab {
namespace {

train_config tiny(const std::filesystem::path& db) {
  train_config c;
  c.model = "mlp";
  c.hidden = {16};
  c.dataset = "synthetic";
  c.train_limit = 64;
  c.test_limit = 32;
  c.batch_size = 16;  // 4 updates per epoch
  c.epochs = 2;
  c.threads = 1;
  set_config_value(c, "precision", "fp16-mixed", "test");
  set_config_value(c, "trace.db", db.string(), "test");
  return c;
}

rundb::run_id record(const train_config& config) {
  run_recorder recorder(config, "tiny", "test");
  trainer t(config, load_data(config), recorder.context());
  recorder.attach(t);
  t.run();
  recorder.finish(rundb::run_status::finished);
  return recorder.run();
}

TEST(RunRecorder, RecordsStepsStatisticsAndEvaluations) {
  lab::testing::temp_dir dir;
  train_config config = tiny(dir / "run.db");
  set_config_value(config, "trace.every", "3", "test");
  const auto id = record(config);

  rundb::reader r(dir / "run.db");
  const auto run = r.run(id);
  EXPECT_EQ(run.status, rundb::run_status::finished);
  EXPECT_NE(run.config_yaml.find("trace.every: 3"), std::string::npos) << run.config_yaml;
  EXPECT_NE(run.config_yaml.find("precision: fp16-mixed"), std::string::npos);
  // The stored config does not point back at the file (it may be moved, and a rerun must not append to it).
  EXPECT_EQ(run.config_yaml.find("run.db"), std::string::npos) << run.config_yaml;
  const auto steps = r.steps(id);
  ASSERT_EQ(steps.size(), 8u);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].step, static_cast<std::int64_t>(i));
    EXPECT_EQ(steps[i].epoch, static_cast<std::int64_t>(i / 4));
    EXPECT_FALSE(steps[i].skipped);
    EXPECT_EQ(*steps[i].lr, 0.001);  // the lr as written, a double like PyTorch's; ops cast it where torch does
    EXPECT_GT(*steps[i].grad_norm, 0.0);
    EXPECT_DOUBLE_EQ(*steps[i].loss_scale, 1.0);
  }
  EXPECT_EQ(r.stats_steps(id), (std::vector<std::int64_t>{0, 3, 6}));
  std::vector<std::string> roles = r.roles(id);
  EXPECT_EQ(roles, (std::vector<std::string>{"activation", "grad_input", "grad_weight", "master_weight", "update",
                                             "weight"}));
  // fp16-mixed: dense computes in fp16, the loss in fp32, master weights stay fp32.
  const auto rows = r.tensor_stats({.run = id, .steps = {3, 3}});
  std::set<std::string> checked;
  for (const auto& s : rows) {
    std::string expected;
    if (s.role == "master_weight" || s.role == "update") expected = "fp32";
    else if (s.role == "weight" || (s.layer == "dense1" && s.role == "activation")) expected = "fp16";
    else if (s.layer == "loss") expected = "fp32";
    else continue;
    EXPECT_EQ(s.format, expected) << s.layer << " " << s.role;
    checked.insert(s.layer + "/" + s.role);
  }
  EXPECT_TRUE(checked.contains("dense1/activation"));
  EXPECT_TRUE(checked.contains("loss/activation"));
  EXPECT_TRUE(checked.contains("dense1.kernel/weight"));
  EXPECT_TRUE(checked.contains("dense1.kernel/update"));
  const auto evals = r.evaluations(id);
  ASSERT_EQ(evals.size(), 2u);
  EXPECT_EQ(evals[0].epoch, 1);
  EXPECT_EQ(evals[0].step, 4);
  EXPECT_EQ(evals[1].step, 8);
}

// The recorded norm is the float one clipping compares with clip_norm
// (global_gradient_norm, tested by hand in loss_optimizer_test), clipping or
// not: every value is a float, and step 0 (same weights, same batch) records
// the same norm with and without clipping. A norm accumulated in double is
// almost never a float.
TEST(RunRecorder, GradNormIsTheNormClippingUses) {
  lab::testing::temp_dir dir;
  std::vector<double> first;
  for (const char* clip : {"0", "0.05"}) {
    train_config config = tiny(dir / (std::string("clip") + clip + ".db"));
    set_config_value(config, "clip_norm", clip, "test");
    const auto id = record(config);
    const auto steps = rundb::reader(dir / (std::string("clip") + clip + ".db")).steps(id);
    ASSERT_EQ(steps.size(), 8u);
    for (const auto& s : steps) {
      ASSERT_TRUE(s.grad_norm.has_value());
      EXPECT_EQ(static_cast<double>(static_cast<float>(*s.grad_norm)), *s.grad_norm) << clip << " " << s.step;
    }
    first.push_back(*steps[0].grad_norm);
    // Clipping at 0.05 acts: the norms lie above it.
    if (std::string(clip) != "0") {
      EXPECT_GT(*steps[0].grad_norm, 0.05);
    }
  }
  EXPECT_EQ(first[0], first[1]);
}

TEST(RunRecorder, SkippedStepsCarryTheirReasonAndAnEvent) {
  lab::testing::temp_dir dir;
  train_config config = tiny(dir / "run.db");
  config.epochs = 1;
  // 2^40 overflows fp16 gradients: dynamic scaling skips and backs off by 2 per step.
  set_config_value(config, "loss_scaling", "dynamic", "test");
  set_config_value(config, "loss_scale", "1099511627776", "test");
  set_config_value(config, "trace.sites", "dense1", "test");
  const auto id = record(config);

  rundb::reader r(dir / "run.db");
  const auto steps = r.steps(id);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_TRUE(steps[0].skipped);
  EXPECT_NE(steps[0].skip_reason.find("grad_weight of"), std::string::npos) << steps[0].skip_reason;
  EXPECT_DOUBLE_EQ(*steps[0].loss_scale, 1099511627776.0);
  EXPECT_DOUBLE_EQ(*steps[1].loss_scale, 549755813888.0);
  std::size_t skipped_events = 0;
  std::size_t overflow_events = 0;
  for (const auto& e : r.events(id)) {
    if (e.kind == rundb::event_kind::skipped) {
      ++skipped_events;
      // The event names the layer whose gradient the step's reason names ("... of dense1.kernel").
      const auto step = std::find_if(steps.begin(), steps.end(), [&](const auto& s) { return s.step == e.step; });
      ASSERT_NE(step, steps.end());
      EXPECT_FALSE(e.layer.empty()) << e.message;
      EXPECT_NE(step->skip_reason.find(" of " + e.layer + "."), std::string::npos) << e.layer << ": " << e.message;
    }
    // A per-site overflow event names the counts it has, and never "0 inf" beside the skip reason's "inf".
    if (e.kind == rundb::event_kind::overflow && e.message.find("first occurrence at this site") != std::string::npos) {
      ++overflow_events;
      EXPECT_FALSE(e.message.starts_with("0 ")) << e.message;
      if (e.message.find(" finite value") != std::string::npos) {
        EXPECT_NE(e.message.find("beyond fp16's largest finite value"), std::string::npos) << e.message;
      }
    }
  }
  EXPECT_GT(overflow_events, 0u);
  EXPECT_EQ(skipped_events, static_cast<std::size_t>(std::count_if(
                                steps.begin(), steps.end(), [](const auto& s) { return s.skipped; })));
  // The site filter keeps only dense1's tensors.
  for (const auto& layer : r.layers(id)) EXPECT_TRUE(layer.starts_with("dense1")) << layer;
}

TEST(RunRecorder, RecordsWhatThePoliciesRoundingFlushesToZeroAndOverflows) {
  lab::testing::temp_dir dir;
  train_config config = tiny(dir / "run.db");
  config.epochs = 1;
  // fp16-mixed: the loss runs in fp32 and hands its gradient to the fp16
  // matmul of `logits`, which casts it (site logits.grad_output). A static
  // loss scale of 2^-40 puts every such gradient far below fp16's smallest
  // subnormal 2^-24: the cast flushes them all to zero, and the run database
  // must count them as underflows (the tracer sees values before rounding).
  // A dynamic scale starting at 2^40 overflows them instead (and skips
  // those steps rather than diverging).
  set_config_value(config, "loss_scaling", "static", "test");
  set_config_value(config, "loss_scale", "9.094947017729282e-13", "test");
  const auto tiny_scale = record(config);
  set_config_value(config, "loss_scaling", "dynamic", "test");
  set_config_value(config, "loss_scale", "1099511627776", "test");
  const auto huge_scale = record(config);

  rundb::reader r(dir / "run.db");
  const auto totals = [&](rundb::run_id id, const std::string& layer, const std::string& role) {
    for (const auto& t : r.totals_by_layer(id))
      if (t.layer == layer && t.role == role) return t;
    ADD_FAILURE() << "no totals for " << layer << " " << role;
    return rundb::layer_totals{};
  };
  const auto flushed = totals(tiny_scale, "logits.grad_output", "grad_input");
  EXPECT_EQ(flushed.count, 4u * 16u * 10u);  // 4 steps of 16 samples x 10 classes
  // Only exact zeros of the loss gradient (none: softmax is never exactly one-hot) escape.
  EXPECT_EQ(flushed.underflows, flushed.count);
  EXPECT_EQ(flushed.overflows, 0u);
  const auto overflowed = totals(huge_scale, "logits.grad_output", "grad_input");
  EXPECT_GT(overflowed.overflows, 0u);
  EXPECT_EQ(overflowed.underflows, 0u);
  // Nothing of the sort in the loss gradient itself, which stays fp32.
  EXPECT_EQ(totals(tiny_scale, "loss", "grad_input").underflows, 0u);
}

}  // namespace
}  // namespace lab
