// The tracer announces every tensor with its site, role, step and storage
// format; the rundb sink turns the announcements into run-database rows.
// Expected statistics are derived by hand from the values fed in.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <rundb/reader.hpp>
#include <rundb/writer.hpp>

#include "lab/precision_hook.hpp"
#include "lab/rundb_sink.hpp"
#include "lab/run_tracer.hpp"
#include "temp_dir.hpp"

namespace lab {
namespace {

struct seen {
  std::string site;
  num::role_tag role;
  std::uint64_t step;
  num::tensor_stats stats;
};

struct collector : num::stats_sink {
  std::vector<seen> records;
  std::vector<num::swamping_stats> swamping;
  void on_stats(const num::stats_record& r) override {
    records.push_back({std::string(r.site), r.role, r.step, r.stats});
  }
  void on_swamping(const num::swamping_record& r) override { swamping.push_back(r.stats); }
};

const site conv1_output{"conv1", "conv2d", op_class::conv, "output"};
const site conv1_kernel{"conv1", "conv2d", op_class::conv, "kernel"};

TEST(RunTracer, AnnouncesSiteRoleStepAndValues) {
  num::stats_hooks hooks;
  auto sink = std::make_shared<collector>();
  hooks.attach(sink);
  run_tracer tracer(hooks);
  tracer.begin_step(7);
  std::vector<float> out = {0.0f, 1.0f, -4.0f, 0.5f};
  tracer.produce(conv1_output, tensor_role::activation, out, std::nullopt);
  ASSERT_EQ(sink->records.size(), 1u);
  const auto& r = sink->records[0];
  EXPECT_EQ(r.site, "conv1.output");
  EXPECT_EQ(r.role.name, "activation");
  EXPECT_EQ(r.role.id, trace_tag(tensor_role::activation).id);
  EXPECT_EQ(r.step, 7u);
  EXPECT_EQ(r.stats.target, num::binary32);  // no policy: everything is fp32
  EXPECT_EQ(r.stats.count, 4u);
  EXPECT_EQ(r.stats.zeros, 1u);
  EXPECT_EQ(r.stats.max_abs, 4.0f);
  EXPECT_EQ(r.stats.min_nonzero_abs, 0.5f);
  EXPECT_DOUBLE_EQ(r.stats.mean(), -2.5 / 4.0);
  EXPECT_EQ(r.stats.binade(2), 1u);   // |-4| in [4, 8)
  EXPECT_EQ(r.stats.binade(-1), 1u);  // 0.5 in [0.5, 1)
  const auto label = tracer.label("conv1.output");
  ASSERT_TRUE(label.has_value());
  EXPECT_EQ(label->layer, "conv1");
  EXPECT_EQ(label->op, "conv2d");
}

// Batch norm's rounded statistics hand the tracer its intermediates as
// activations beside its output: they keep their own labels.
TEST(RunTracer, BatchNormStatisticsIntermediatesAreLabelledApartFromItsOutput) {
  num::stats_hooks hooks;
  auto sink = std::make_shared<collector>();
  hooks.attach(sink);
  run_tracer tracer(hooks);
  tracer.begin_step(1);
  std::vector<float> values = {1.0f, 4.0f};
  for (const char* tensor : {"output", "mean", "deviations", "squares"})
    tracer.produce({"bn", "batch_norm", op_class::norm, tensor}, tensor_role::activation, values, std::nullopt);
  ASSERT_EQ(sink->records.size(), 4u);
  for (const char* name : {"bn.output", "bn.mean", "bn.deviations", "bn.squares"})
    ASSERT_TRUE(tracer.label(name).has_value()) << name;
  EXPECT_EQ(tracer.label("bn.output")->layer, "bn");
  EXPECT_EQ(tracer.label("bn.mean")->layer, "bn.mean");
  EXPECT_EQ(tracer.label("bn.deviations")->layer, "bn.deviations");
  EXPECT_EQ(tracer.label("bn.squares")->layer, "bn.squares");
  EXPECT_EQ(tracer.label("bn.squares")->op, "batch_norm");
}

TEST(RunTracer, WeightIsHandedThroughAndLabelledAsAParameter) {
  num::stats_hooks hooks;
  auto sink = std::make_shared<collector>();
  hooks.attach(sink);
  run_tracer tracer(hooks);
  const std::vector<float> master = {0.25f, -0.75f};
  const auto used = tracer.weight(conv1_kernel, master, std::nullopt);
  EXPECT_EQ(used.data(), master.data());
  ASSERT_EQ(sink->records.size(), 1u);
  EXPECT_EQ(sink->records[0].role.name, "weight");
  EXPECT_EQ(sink->records[0].role.id, trace_tag(tensor_role::weight).id);
  EXPECT_EQ(tracer.label("conv1.kernel")->layer, "conv1.kernel");
}

TEST(RunTracer, FilterCadenceAndEvaluationPauseAreRespected) {
  num::stats_hooks hooks;
  auto sink = std::make_shared<collector>();
  hooks.attach(sink, {.site = "conv1.grad*", .roles = num::all_roles, .every = 3});
  run_tracer tracer(hooks);
  std::vector<float> g = {1.0f};
  for (std::uint64_t step = 0; step < 7; ++step) {
    tracer.begin_step(step);
    tracer.produce({"conv1", "conv2d", op_class::conv, "grad_input"}, tensor_role::grad_input, g, std::nullopt);
    tracer.produce(conv1_output, tensor_role::activation, g, std::nullopt);  // filtered out by site
  }
  tracer.set_enabled(false);
  tracer.begin_step(9);
  tracer.produce({"conv1", "conv2d", op_class::conv, "grad_input"}, tensor_role::grad_input, g, std::nullopt);
  ASSERT_EQ(sink->records.size(), 3u);  // steps 0, 3, 6
  EXPECT_EQ(sink->records[0].step, 0u);
  EXPECT_EQ(sink->records[1].step, 3u);
  EXPECT_EQ(sink->records[2].step, 6u);
  // Optimizer state is not a traced role.
  tracer.set_enabled(true);
  tracer.begin_step(0);
  tracer.produce({"conv1", "adam", op_class::optimizer, "kernel.m"}, tensor_role::optimizer_state, g, std::nullopt);
  EXPECT_EQ(sink->records.size(), 3u);
}

TEST(RunTracer, Fp32UpdateIsPerformedAndItsSwampingMeasured) {
  num::stats_hooks hooks;
  auto sink = std::make_shared<collector>();
  hooks.attach(sink);
  run_tracer tracer(hooks);
  // ulp(1) in fp32 is 2^-23: 2^-26 is below half an ulp and is lost; 0.5 is exact.
  std::vector<float> w = {1.0f, 1.0f};
  const std::vector<float> delta = {std::ldexp(1.0f, -26), 0.5f};
  tracer.update(conv1_kernel, w, {delta});
  EXPECT_EQ(w[0], 1.0f);
  EXPECT_EQ(w[1], 1.5f);
  ASSERT_EQ(sink->records.size(), 1u);
  EXPECT_EQ(sink->records[0].role.name, "update");
  EXPECT_EQ(sink->records[0].role.id, trace_tag(tensor_role::update).id);
  EXPECT_EQ(sink->records[0].stats.max_abs, 0.5f);
  ASSERT_EQ(sink->swamping.size(), 1u);
  EXPECT_EQ(sink->swamping[0].updates, 2u);
  EXPECT_EQ(sink->swamping[0].total_swamped, 1u);
}

// A tracer chained after an fp16-mixed policy, collecting what it announces.
struct traced_fp16_mixed {
  num::stats_hooks hooks;
  std::shared_ptr<collector> sink = std::make_shared<collector>();
  run_tracer tracer{hooks};
  precision_hook policy{mixed_policy(), 1, &tracer};

  traced_fp16_mixed() {
    hooks.attach(sink);
    tracer.set_policy(&policy);
  }
  static precision_policy mixed_policy() {
    precision_config pc;
    pc.preset = "fp16-mixed";
    return pc.resolve();
  }
};

TEST(RunTracer, ReportsThePolicysStorageFormat) {
  traced_fp16_mixed t;
  auto& policy = t.policy;
  auto& sink = t.sink;
  // 2^-30 is below fp16's smallest subnormal 2^-24 / 2: it rounds to zero.
  std::vector<float> out = {std::ldexp(1.0f, -30), 3.0f};
  policy.produce(conv1_output, tensor_role::activation, out, std::nullopt);
  ASSERT_EQ(sink->records.size(), 1u);
  EXPECT_EQ(sink->records[0].stats.target, num::binary16);
  // The tracer sees the tensor before the policy rounds it: the value the
  // rounding flushes to zero counts as an underflow, not as an input zero,
  // and the rounded copy handed on afterwards is not announced a second time.
  EXPECT_EQ(sink->records[0].stats.zeros, 0u);
  EXPECT_EQ(sink->records[0].stats.underflows, 1u);
  EXPECT_EQ(sink->records[0].stats.histogram[0], 1u);
  EXPECT_EQ(out[0], 0.0f);  // while the op's output itself is rounded
  // Mixed precision keeps fp32 master weights: their update is an fp32 write.
  std::vector<float> w = {1.0f};
  const std::vector<float> d = {0.25f};
  policy.update(conv1_kernel, w, {d});
  ASSERT_EQ(sink->swamping.size(), 1u);
  EXPECT_EQ(sink->swamping[0].target, num::binary32);
}

// AdamW's step decays w first (w * keep), then adds the delta. Every hook
// that performs an update reports "before" as the decayed weight
// (tensor_hook::observe_update), so a delta lost in the add counts as
// swamped even though the decay moved w. keep = 1 - 2^-10 is exact in fp32
// (1 * keep = 1 - 2^-10); 2^-40 is far below half an ulp of it (2^-25).
TEST(RunTracer, AdamWsBeforeIsTheDecayedWeightForTracerAndPolicyAlike) {
  const float keep = 1.0f - std::ldexp(1.0f, -10);
  const std::vector<float> d = {std::ldexp(1.0f, -40), 0.25f};
  {
    num::stats_hooks hooks;
    auto sink = std::make_shared<collector>();
    hooks.attach(sink);
    run_tracer tracer(hooks);
    std::vector<float> w = {1.0f, 1.0f};
    tracer.update(conv1_kernel, w, {d, 1.0f, keep});
    EXPECT_EQ(w[0], keep);
    EXPECT_EQ(w[1], keep + 0.25f);
    ASSERT_EQ(sink->swamping.size(), 1u);
    EXPECT_EQ(sink->swamping[0].updates, 2u);
    EXPECT_EQ(sink->swamping[0].total_swamped, 1u);
  }
  {
    // The fp16-mixed policy performs the (fp32 master) write and reports it.
    traced_fp16_mixed t;
    std::vector<float> w = {1.0f, 1.0f};
    t.policy.update(conv1_kernel, w, {d, 1.0f, keep});
    EXPECT_EQ(w[0], keep);
    ASSERT_EQ(t.sink->swamping.size(), 1u);
    EXPECT_EQ(t.sink->swamping[0].updates, 2u);
    EXPECT_EQ(t.sink->swamping[0].total_swamped, 1u);
  }
}

// A policy that performs an update copies the old weights and works out the
// delta only for a hook that observes it (tensor_hook::observes_update): the
// tracer says so at the steps its sinks want, here every second one.
TEST(RunTracer, ThePolicyHandsUpdatesOnOnlyAtTracedSteps) {
  num::stats_hooks hooks;
  auto sink = std::make_shared<collector>();
  num::sink_filter every_second;
  every_second.every = 2;
  hooks.attach(sink, every_second);
  run_tracer tracer(hooks);
  precision_hook policy(traced_fp16_mixed::mixed_policy(), 1, &tracer);
  tracer.set_policy(&policy);
  std::vector<float> w = {1.0f};
  const std::vector<float> d = {0.25f};
  for (std::uint64_t step = 0; step < 4; ++step) {
    tracer.begin_step(step);
    policy.begin_step(step);
    EXPECT_EQ(tracer.observes_update(conv1_kernel), step % 2 == 0) << step;
    policy.update(conv1_kernel, w, {d});
  }
  EXPECT_EQ(w[0], 2.0f);  // every step updates
  EXPECT_EQ(sink->swamping.size(), 2u);  // steps 0 and 2 are traced
  std::vector<std::uint64_t> delta_steps;
  for (const auto& r : sink->records)
    if (r.role.name == "update") delta_steps.push_back(r.step);
  EXPECT_EQ(delta_steps, (std::vector<std::uint64_t>{0, 2}));
}

TEST(RunTracer, CountsWhatTheCastOfMasterWeightsAndGradientsLoses) {
  traced_fp16_mixed t;
  auto& policy = t.policy;
  auto& sink = t.sink;
  // fp16's largest finite value is 65504; 65520 is the midpoint to 2^16 and
  // rounds (to even) to infinity. 1e-8 is below 2^-25 and rounds to zero.
  const std::vector<float> master = {1e-8f, 65520.0f, 1.0f};
  const auto used = policy.weight(conv1_kernel, master, std::nullopt);
  EXPECT_EQ(used[0], 0.0f);
  EXPECT_TRUE(std::isinf(used[1]));
  ASSERT_EQ(sink->records.size(), 1u);
  EXPECT_EQ(sink->records[0].role.name, "weight");
  EXPECT_EQ(sink->records[0].role.id, trace_tag(tensor_role::weight).id);
  EXPECT_EQ(sink->records[0].stats.underflows, 1u);
  EXPECT_EQ(sink->records[0].stats.overflows, 1u);
  EXPECT_EQ(sink->records[0].stats.infs, 0u);
  // A gradient's subnormal: 2^-20 is nonzero in fp16 but below 2^-14.
  std::vector<float> grad = {std::ldexp(1.0f, -20), 0.0f};
  policy.produce({"conv1", "conv2d", op_class::conv, "grad_input"}, tensor_role::grad_input, grad, std::nullopt);
  ASSERT_EQ(sink->records.size(), 2u);
  EXPECT_EQ(sink->records[1].stats.subnormals, 1u);
  EXPECT_EQ(sink->records[1].stats.zeros, 1u);
  EXPECT_EQ(sink->records[1].stats.underflows, 0u);
}

TEST(RunTracer, TakesTheUnroundedValuesFromTheCallThatCarriesThem) {
  // The values from before the rounding travel with the rounded tensor, so
  // calls for other tensors in between change nothing.
  traced_fp16_mixed t;
  auto& sink = t.sink;
  std::vector<float> other = {1.0f};
  t.tracer.produce({"conv1", "conv2d", op_class::conv, "grad_input"}, tensor_role::grad_input, other, std::nullopt);
  const std::vector<float> unrounded = {std::ldexp(1.0f, -30), 3.0f};
  std::vector<float> rounded = {0.0f, 3.0f};
  t.tracer.produce(conv1_output, tensor_role::activation, rounded, std::span<const float>(unrounded));
  const std::vector<float> master = {70000.0f};
  const std::vector<float> cast = {std::numeric_limits<float>::infinity()};
  t.tracer.weight(conv1_kernel, cast, std::span<const float>(master));
  ASSERT_EQ(sink->records.size(), 3u);
  // 2^-30 rounds to zero in fp16: an underflow, not a zero of the input.
  EXPECT_EQ(sink->records[1].stats.zeros, 0u);
  EXPECT_EQ(sink->records[1].stats.underflows, 1u);
  // 70000 > 65504 + ulp/2 overflows fp16; the input held no infinity.
  EXPECT_EQ(sink->records[2].stats.overflows, 1u);
  EXPECT_EQ(sink->records[2].stats.infs, 0u);
  // A matmul's received gradient is announced only where the policy cast it.
  std::vector<float> g = {std::ldexp(1.0f, -30)};
  t.tracer.operand({"conv1", "conv2d", op_class::conv, "grad_output"}, tensor_role::grad_input, g, std::nullopt);
  t.tracer.operand({"conv1", "conv2d", op_class::conv, "input"}, tensor_role::activation, g, std::span<const float>(g));
  EXPECT_EQ(sink->records.size(), 3u);
  t.tracer.operand({"conv1", "conv2d", op_class::conv, "grad_output"}, tensor_role::grad_input, rounded,
                   std::span<const float>(g));
  ASSERT_EQ(sink->records.size(), 4u);
  EXPECT_EQ(sink->records[3].site, "conv1.grad_output");
  EXPECT_EQ(sink->records[3].stats.underflows, 1u);
}

TEST(RunTracer, RecordsTheTensorThatTrapped) {
  num::stats_hooks hooks;
  auto sink = std::make_shared<collector>();
  hooks.attach(sink);
  run_tracer tracer(hooks);
  precision_config pc;
  pc.preset = "fp16";
  set_precision_value(pc, "traps", "overflow", "test");
  precision_hook policy(pc.resolve(), 1, &tracer);
  tracer.set_policy(&policy);
  std::vector<float> out = {1.0f, 1e6f};
  EXPECT_THROW(policy.produce(conv1_output, tensor_role::activation, out, std::nullopt), precision_trap);
  ASSERT_EQ(sink->records.size(), 1u);
  EXPECT_EQ(sink->records[0].stats.overflows, 1u);
}

TEST(RundbSink, WritesRowsWithLabelsFormatsHistogramsAndEvents) {
  lab::testing::temp_dir dir;
  const auto file = dir / "sink.db";
  {
    rundb::writer db(file);
    const auto run = db.begin_run({.name = "sink"});
    num::stats_hooks hooks;
    run_tracer tracer(hooks);
    auto sink = std::make_shared<rundb_sink>(db, run, true, [&](std::string_view s) { return tracer.label(s); });
    hooks.attach(sink);
    tracer.begin_step(4);
    std::vector<float> out = {1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f};
    tracer.produce(conv1_output, tensor_role::activation, out, std::nullopt);
    std::vector<float> w = {1.0f, 2.0f};
    const std::vector<float> delta = {std::ldexp(1.0f, -26), 0.0f};
    tracer.update(conv1_kernel, w, {delta});
    sink->flush();
    db.finish_run(run, rundb::run_status::finished);
  }
  rundb::reader r(file);
  const auto run = r.runs().at(0).id;
  const auto rows = r.tensor_stats({.run = run, .with_histograms = true});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].layer, "conv1");
  EXPECT_EQ(rows[0].op, "conv2d");
  EXPECT_EQ(rows[0].role, "activation");
  EXPECT_EQ(rows[0].step, 4);
  EXPECT_EQ(rows[0].format, "fp32");
  EXPECT_EQ(rows[0].count, 3u);
  EXPECT_EQ(rows[0].nans, 1u);
  EXPECT_EQ(rows[0].max_abs, 2.0);
  // Two finite values in binades 0 and 1 of fp32, whose lowest binade is -149.
  ASSERT_EQ(rows[0].hist.bins.size(), num::stats_plan(num::binary32).bin_count());
  EXPECT_EQ(rows[0].hist.first_exponent, -149);
  EXPECT_EQ(rows[0].hist.bins[1 + 149], 1u);
  EXPECT_EQ(rows[0].hist.bins[1 + 150], 1u);
  // The update's delta statistics and its swamping joined into one row.
  EXPECT_EQ(rows[1].layer, "conv1.kernel");
  EXPECT_EQ(rows[1].role, "update");
  EXPECT_EQ(rows[1].count, 2u);
  EXPECT_EQ(rows[1].zeros, 1u);
  EXPECT_EQ(rows[1].swamped, 1u);
  EXPECT_FALSE(rows[1].ulp_ratio.bins.empty());
  const auto fmt = r.format("fp32");
  ASSERT_TRUE(fmt.has_value());
  EXPECT_EQ(fmt->precision, 24);
  EXPECT_EQ(fmt->emax, 127);
  const auto events = r.events(run);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, rundb::event_kind::nan);
  EXPECT_EQ(events[0].layer, "conv1");
}

}  // namespace
}  // namespace lab
