// Images per second of fp32 training steps (forward, loss, backward, Adam
// update) on synthetic batches: the tutorial conv model at batch 32 on
// 28x28x1 and ResNet-8 at batch 128 on 32x32x3, the shapes of issue 5's
// comparison with PyTorch (bench/compare_pytorch.sh). Threads: the
// benchmark argument is the number of worker threads (BLAS single-threaded).
#include <benchmark/benchmark.h>

#include "lab/loss.hpp"
#include "synthetic_training.hpp"

namespace {

void train_steps(benchmark::State& state, const lab::model_spec& spec, std::size_t batch_size) {
  numlab_bench::synthetic_training t(spec, batch_size);
  lab::op_context ctx;
  ctx.threads = static_cast<std::size_t>(state.range(0));
  std::size_t i = 0;
  for (auto _ : state) {
    t.fill(i++);
    t.net->forward(ctx, t.b.images, t.logits);
    const float loss = lab::softmax_cross_entropy(ctx, t.logits, t.b.labels, 0.0f, 1.0f, t.grad);
    benchmark::DoNotOptimize(loss);
    t.net->backward(ctx, t.b.images, t.logits, t.grad, nullptr);
    t.opt->step(ctx, 0.001f);
    lab::zero_gradients(t.params);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch_size));
  state.counters["images/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * batch_size), benchmark::Counter::kIsRate);
}

void BM_TutorialConvBatch32(benchmark::State& state) { train_steps(state, numlab_bench::tutorial_conv(), 32); }

void BM_ResNet8Batch128(benchmark::State& state) {
  train_steps(state, numlab_bench::resnet8(), 128);
}

}  // namespace

BENCHMARK(BM_TutorialConvBatch32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ResNet8Batch128)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
