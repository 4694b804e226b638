// End-to-end training behaviour: overfitting a tiny batch, bit-identical
// runs for a fixed seed, bit-identical continuation from a checkpoint,
// gradient accumulation, checkpoint files that are whole or absent, and the
// optimizer constants formed from the decimals the configuration holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <span>
#include <utility>
#include <vector>

#include "lab/errors.hpp"
#include "lab/loss.hpp"
#include "lab/models.hpp"
#include "lab/optimizer.hpp"
#include "lab/trainer.hpp"
#include "temp_dir.hpp"

namespace lab {
namespace {

double overfit(const model_spec& spec, std::size_t steps, float lr) {
  dataset d = make_synthetic(8, spec.channels, spec.height, spec.width, spec.classes, 1.0f, 3);
  // Random labels: nothing to generalise, the model must memorise.
  rng gen(4);
  for (auto& l : d.labels) l = static_cast<std::int32_t>(gen.below(spec.classes));
  auto net = make_model(spec);
  rng init(5);
  net->initialise(init);
  optimizer_settings s;
  optimizer opt(s, net->parameters());
  op_context ctx;
  tensor logits, grad;
  double loss = 0.0;
  for (std::size_t i = 0; i < steps; ++i) {
    net->forward(ctx, d.images, logits);
    loss = softmax_cross_entropy(ctx, logits, d.labels, 0.0f, 1.0f, grad);
    net->backward(ctx, d.images, logits, grad, nullptr);
    opt.step(ctx, lr);
    zero_gradients(net->parameters());
  }
  return loss;
}

TEST(Training, MlpOverfitsATinyBatch) {
  model_spec spec;
  spec.name = "mlp";
  spec.height = spec.width = 8;
  spec.classes = 4;
  spec.hidden = {32};
  EXPECT_LT(overfit(spec, 200, 0.01f), 1e-2);
}

TEST(Training, TutorialConvOverfitsATinyBatch) {
  model_spec spec;
  spec.name = "tutorial_conv";
  spec.height = spec.width = 8;
  spec.classes = 4;
  EXPECT_LT(overfit(spec, 150, 0.003f), 1e-2);
}

TEST(Training, ResNet8OverfitsATinyBatch) {
  model_spec spec;
  spec.name = "resnet";
  spec.height = spec.width = 8;
  spec.classes = 4;
  EXPECT_LT(overfit(spec, 150, 0.01f), 5e-2);
}

train_config small_config() {
  train_config c;
  c.dataset = "synthetic";
  c.model = "resnet";
  c.depth = 8;
  c.train_limit = 48;
  c.test_limit = 16;
  c.batch_size = 16;
  c.eval_batch_size = 16;
  c.epochs = 2;
  c.optimizer = "sgd";
  c.lr = 0.05f;
  c.momentum = 0.9f;
  c.nesterov = true;
  c.weight_decay = 1e-4f;
  c.schedule = "cosine";
  c.warmup_steps = 2;
  c.augment_crop = 2;
  c.augment_flip = true;
  c.threads = 2;
  c.seed = 11;
  return c;
}

std::vector<float> all_parameters(trainer& t) {
  std::vector<float> out;
  for (auto* p : t.model().parameters()) out.insert(out.end(), p->value.values().begin(), p->value.values().end());
  for (auto* b : t.model().buffers()) out.insert(out.end(), b->values().begin(), b->values().end());
  return out;
}

TEST(Training, FixedSeedGivesBitIdenticalRuns) {
  const train_config c = small_config();
  trainer a(c, load_data(c)), b(c, load_data(c));
  const auto ra = a.run(), rb = b.run();
  ASSERT_EQ(ra.size(), 2u);
  EXPECT_EQ(ra.back().train_loss, rb.back().train_loss);
  EXPECT_EQ(all_parameters(a), all_parameters(b));
  train_config other = c;
  other.seed = 12;
  trainer d(other, load_data(other));
  d.run();
  EXPECT_NE(all_parameters(a), all_parameters(d));
}

TEST(Training, ResumeFromCheckpointIsBitIdentical) {
  testing::temp_dir dir;
  train_config full = small_config();
  full.dropout = 0.0f;
  trainer straight(full, load_data(full));
  const auto reports = straight.run();

  train_config first = full;
  first.epochs = 1;
  first.checkpoint = (dir / "ck.bin").string();
  trainer part1(first, load_data(first));
  part1.run();
  ASSERT_TRUE(std::filesystem::exists(dir / "ck.bin"));
  EXPECT_FALSE(std::filesystem::exists(dir / "ck.bin.tmp"));

  train_config second = full;
  second.resume = first.checkpoint;
  trainer part2(second, load_data(second));
  EXPECT_EQ(part2.epochs_done(), 1u);
  const auto rest = part2.run();
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].train_loss, reports[1].train_loss);
  EXPECT_EQ(rest[0].test.accuracy, reports[1].test.accuracy);
  EXPECT_EQ(all_parameters(part2), all_parameters(straight));
}

TEST(Training, CorruptOrMismatchedCheckpointIsRejected) {
  testing::temp_dir dir;
  train_config c = small_config();
  c.epochs = 1;
  c.checkpoint = (dir / "ck.bin").string();
  trainer t(c, load_data(c));
  t.run();
  {
    std::fstream f(dir / "ck.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    f.put('\x55');
  }
  train_config r = small_config();
  r.resume = c.checkpoint;
  EXPECT_THROW(trainer(r, load_data(r)), input_error);
  t.save(dir / "ck.bin");
  train_config other_model = r;
  other_model.depth = 14;
  EXPECT_THROW(trainer(other_model, load_data(other_model)), input_error);
}

TEST(Training, FailedCheckpointWriteLeavesNoFile) {
  testing::temp_dir dir;
  train_config c = small_config();
  trainer t(c, load_data(c));
  const auto target = dir / "no_such_folder" / "ck.bin";
  EXPECT_THROW(t.save(target), input_error);
  EXPECT_FALSE(std::filesystem::exists(target));
}

// A one-epoch SGD run of a small MLP on 64 synthetic samples, batches of 16.
train_config small_mlp_config() {
  train_config c;
  c.dataset = "synthetic";
  c.model = "mlp";
  c.hidden = {16};
  c.train_limit = 64;
  c.test_limit = 16;
  c.batch_size = 16;
  c.epochs = 1;
  c.optimizer = "sgd";
  c.lr = 0.1f;
  return c;
}

TEST(Training, GradientAccumulationMatchesOneLargeBatch) {
  // Two micro-batches of 8 averaged == one batch of 16 (up to rounding),
  // and the number of updates halves.
  const train_config big = small_mlp_config();
  train_config small = big;
  small.batch_size = 8;
  small.accumulate = 2;
  // Same samples in the same order: no shuffling difference matters because
  // the permutation depends only on (seed, epoch), and 2 x 8 consecutive
  // samples are exactly one batch of 16.
  trainer a(big, load_data(big)), b(small, load_data(small));
  const auto ra = a.run(), rb = b.run();
  EXPECT_EQ(ra.back().updates, 4u);
  EXPECT_EQ(rb.back().updates, 4u);
  const auto pa = all_parameters(a), pb = all_parameters(b);
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) ASSERT_NEAR(pa[i], pb[i], 1e-5) << i;
}

TEST(Training, ImpossibleConfigsAreInputErrors) {
  train_config c = small_config();
  c.depth = 9;
  EXPECT_THROW(trainer(c, load_data(c)), input_error);
  c = small_config();
  c.batch_size = 100;
  c.drop_last = true;
  EXPECT_THROW(trainer(c, load_data(c)), input_error);
  c = small_config();
  c.dataset = "fashion_mnist";
  c.data_dir = "/nonexistent/fashion";
  try {
    load_data(c);
    FAIL();
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/fashion"), std::string::npos) << e.what();
  }
}

// Records the hyper-parameters the optimizer hands to the context
// (op_context::scalar); plain fp32 otherwise.
class scalar_recorder final : public tensor_hook {
 public:
  std::vector<double> seen;
  void produce(const site&, tensor_role, std::span<float>, unrounded_values) override {}
  std::span<const float> weight(const site&, std::span<const float> master, unrounded_values) override {
    return master;
  }
  void update(const site&, std::span<float> weight, const weight_step& step) override {
    apply_step_fp32(weight, step);
  }
  float scalar(const site&, tensor_role, double value) override {
    seen.push_back(value);
    return static_cast<float>(value);
  }
};

// Records the learning rate of every applied step.
struct lr_recorder final : step_observer {
  std::vector<double> lrs;
  void on_step_begin(std::uint64_t) override {}
  void on_step(const step_info& info) override { lrs.push_back(info.lr); }
};

TEST(Training, OptimizerConstantsComeFromTheDecimalsWritten) {
  // PyTorch forms its constants from the decimals written, as doubles. So
  // the optimizer must see 0.9, not 0.9f = 0.899999976, and AdamW's
  // 1 - lr * wd must be formed in double from the lr written, all 17 digits
  // of it (its float would give 1 - 0.0012345679 * 0.1 instead). The
  // warm-up's lr is formed in double too, as a Python scheduler's: lr * 1 / 2
  // at the first step, lr * 2 / 2 at the second (beta2 0.99: no two of the
  // values looked for are equal).
  train_config c = small_mlp_config();
  c.max_steps = 2;
  for (const auto& [key, value] : std::initializer_list<std::pair<const char*, const char*>>{
           {"optimizer", "adamw"},
           {"lr", "0.0012345678901234567"},
           {"warmup_steps", "2"},
           {"beta1", "0.9"},
           {"beta2", "0.99"},
           {"eps", "1e-8"},
           {"weight_decay", "0.1"}})
    set_config_value(c, key, value, "test");
  scalar_recorder recorder;
  lr_recorder steps;
  trainer t(c, load_data(c), op_context(&recorder));
  t.set_observer(&steps);
  t.run();
  ASSERT_EQ(t.updates_done(), 2u);
  const double lr = 0.0012345678901234567;
  const double warm = lr * 1.0 / 2.0;
  ASSERT_NE(static_cast<double>(static_cast<float>(lr)), lr);
  EXPECT_EQ(steps.lrs, (std::vector<double>{warm, lr}));
  const auto saw = [&](double value) {
    return std::find(recorder.seen.begin(), recorder.seen.end(), value) != recorder.seen.end();
  };
  for (const double value : {0.9, 1.0 - 0.9, 0.99, 1e-8, 1.0 - warm * 0.1, 1.0 - lr * 0.1})
    EXPECT_TRUE(saw(value)) << std::hexfloat << value;
}

TEST(Training, ShippedFp32ConfigsAreValidAndBuildTheirModels) {
  std::size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(NUMLAB_SOURCE_DIR) / "configs")) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with("_fp32.yml")) continue;
    train_config c;
    apply_config_file(c, entry.path());
    EXPECT_NO_THROW(validate(c)) << name;
    model_spec spec;
    spec.name = c.model;
    spec.depth = c.depth;
    spec.hidden = c.hidden;
    spec.dropout = static_cast<float>(c.dropout);
    EXPECT_NO_THROW(make_model(spec)) << name;
    ++checked;
  }
  EXPECT_GE(checked, 4u);
}

}  // namespace
}  // namespace lab
