// Images per second of fp32 training steps (forward, loss, backward, Adam
// update) on synthetic batches: the tutorial conv model at batch 32 on
// 28x28x1 and ResNet-8 at batch 128 on 32x32x3, the shapes of issue 5's
// comparison with PyTorch (bench/compare_pytorch.sh). Threads: the
// benchmark argument is the number of worker threads (BLAS single-threaded).
#include <benchmark/benchmark.h>
#include <cblas.h>

#include "lab/batches.hpp"
#include "lab/loss.hpp"
#include "lab/models.hpp"
#include "lab/optimizer.hpp"

namespace {

void train_steps(benchmark::State& state, lab::model_spec spec, std::size_t batch_size) {
  openblas_set_num_threads(1);
  auto net = lab::make_model(spec);
  lab::rng init(1);
  net->initialise(init);
  auto params = net->parameters();
  lab::optimizer_settings settings;
  settings.eps = 1e-4f;
  lab::optimizer opt(settings, params);
  const lab::dataset data = lab::make_synthetic(batch_size * 4, spec.channels, spec.height, spec.width,
                                                spec.classes, 1.0f, 2);
  lab::batch_loader loader(data, batch_size, true, true, 3);
  loader.start_epoch(0);
  lab::batch b;
  lab::tensor logits, grad;
  lab::op_context ctx;
  ctx.threads = static_cast<std::size_t>(state.range(0));
  std::size_t i = 0;
  for (auto _ : state) {
    loader.fill(i++ % loader.batches_per_epoch(), b);
    net->forward(ctx, b.images, logits);
    const float loss = lab::softmax_cross_entropy(ctx, logits, b.labels, 0.0f, 1.0f, grad);
    benchmark::DoNotOptimize(loss);
    net->backward(ctx, b.images, logits, grad, nullptr);
    opt.step(ctx, 0.001f);
    lab::zero_gradients(params);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch_size));
  state.counters["images/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * batch_size), benchmark::Counter::kIsRate);
}

void BM_TutorialConvBatch32(benchmark::State& state) {
  lab::model_spec spec;
  spec.name = "tutorial_conv";
  train_steps(state, spec, 32);
}

void BM_ResNet8Batch128(benchmark::State& state) {
  lab::model_spec spec;
  spec.name = "resnet";
  spec.depth = 8;
  spec.channels = 3;
  spec.height = spec.width = 32;
  train_steps(state, spec, 128);
}

}  // namespace

BENCHMARK(BM_TutorialConvBatch32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ResNet8Batch128)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
